// The staff page's class view (API.md §16) for one problem: the stats (named mistakes, the
// labelled histogram, common failing strings, variants), integrity, the submissions (any one
// opened as the student saw it, drawn by the student page's own result.js), both CSVs
// downloaded with the staff key, and a regrade that is offered only after a dry run.

import * as api from './staff_api.js';
import { byId as $, element } from './dom.js';
import { featureNames } from './feature_names.js';
import { renderResult } from './result.js';
import {
  INTEGRITY_KINDS, changeText, fileNameOf, hasDryRun, hasStudentsCsv, histogramBins,
  isDryRunAnswer, percent, plural, sharedGroupText,
} from './staff_logic.js';

// Records listed a page at a time: enough to see a section's class at once, few enough that
// the table stays readable; "Show more" follows next_cursor.
const SUBMISSIONS_PAGE = 50;

const state = {
  problem: null,
  cursor: null,
  features: { dryRun: false, studentsCsv: false, integrity: false },
  featuresRead: null,
};

// What the server can do is read from its own openapi, once, after sign-in (every call of the
// page carries the key): a server that ignores ?dry_run would regrade for real on a
// "preview", so without the parameter no preview is offered.
function readFeatures() {
  state.featuresRead ||= api.openapi().then((answer) => {
    if (answer.status !== 200) {
      state.featuresRead = null;
      return;
    }
    state.features = {
      dryRun: hasDryRun(answer.body),
      studentsCsv: hasStudentsCsv(answer.body),
      integrity: Boolean(answer.body.paths && answer.body.paths['/v1/problems/{id}/integrity']),
    };
  });
  return state.featuresRead;
}

function errorText(answer) {
  const error = answer.body && answer.body.error;
  return error ? error.message : `the server answered ${answer.status}`;
}

function say(id, text) {
  $(id).textContent = text;
}

function table(id, caption, headers, rows) {
  return element('table', { id },
    element('caption', { text: caption }),
    element('thead', {}, element('tr', {},
      ...headers.map((h) => element('th', { scope: 'col', text: h })))),
    element('tbody', {}, ...rows));
}

const numberCell = (n) => element('td', { class: 'number', text: String(n) });

function showStats(stats) {
  const box = $('class-stats');
  box.replaceChildren(element('p', {
    id: 'class-summary',
    text: `${stats.students} ${plural(stats.students, 'student')} (${stats.submissions} `
      + `${plural(stats.submissions, 'grading')}); ${stats.students_passed} passed; `
      + `first-try pass rate ${percent(stats.first_try_pass_rate)}.`,
  }));
  if (Array.isArray(stats.mistakes)) {
    box.append(stats.mistakes.length === 0
      ? element('p', { id: 'class-mistakes', text: 'No named mistake in the students\' latest gradings.' })
      : table('class-mistakes', 'Named mistakes in the students\' latest gradings', ['mistake', 'students'],
        stats.mistakes.map((m) => element('tr', {},
          element('th', { scope: 'row' }, element('code', { text: m.mistake })), numberCell(m.students)))));
  }
  box.append(table('class-histogram', 'Students by the score of their latest grading', ['score', 'students'],
    histogramBins(stats.score_histogram).map((b) => element('tr', {},
      element('th', { scope: 'row', text: b.label }), numberCell(b.count)))));
  box.append(stats.common_failures.length === 0
    ? element('p', { id: 'class-failures', text: 'No failing string in the students\' latest gradings.' })
    : table('class-failures', 'Common failing strings (latest gradings)', ['string', 'students'],
      stats.common_failures.map((f) => element('tr', {},
        element('th', { scope: 'row' }, element('code', { text: `"${f.input}"` })), numberCell(f.students)))));
  if (Array.isArray(stats.variants) && stats.variants.length > 0) {
    box.append(table('class-variants', 'Variants', ['variant', 'students', 'passed'],
      stats.variants.map((v) => element('tr', {},
        element('th', { scope: 'row' }, element('code', { text: v.variant })),
        numberCell(v.students), numberCell(v.students_passed)))));
  }
}

function showIntegrity(answer) {
  const box = $('class-integrity');
  if (answer === null) {
    box.replaceChildren(element('p', { text: 'This server does not compare heads (its API has no integrity route).' }));
    return;
  }
  if (answer.status !== 200) {
    box.replaceChildren(element('p', { text: `Integrity could not be read: ${errorText(answer)}.` }));
    return;
  }
  const { shared, other_variant: otherVariant } = answer.body;
  const items = [
    ...shared.map((g) => element('li', { 'data-kind': g.kind },
      element('strong', { text: g.kind === 'identical' ? 'Identical' : 'Same after relabeling' }),
      `: ${sharedGroupText(g)}`)),
    ...otherVariant.map((o) => element('li', { 'data-kind': 'other_variant' },
      element('strong', { text: 'Another variant\'s head' }),
      `: ${o.student}'s failing head is ${o.matches_student}'s head for their own variant.`)),
  ];
  box.replaceChildren(
    element('ul', { class: 'help', id: 'integrity-kinds' },
      ...Object.values(INTEGRITY_KINDS).map((text) => element('li', { text }))),
    items.length === 0
      ? element('p', { id: 'integrity-findings', text: 'No two students sent the same head.' })
      : element('ul', { id: 'integrity-findings' }, ...items));
}

function submissionRow(record) {
  const open = element('button', {
    type: 'button',
    text: 'Open',
    'aria-label': `Open the grading of ${record.student ?? 'no student'} at ${record.time}`,
  });
  open.addEventListener('click', () => openSubmission(record.id));
  return element('tr', { 'data-id': record.id },
    element('td', { text: record.time }),
    element('th', { scope: 'row', text: record.student ?? '(none)' }),
    element('td', { text: record.passed ? 'passed' : 'failed' }),
    element('td', { class: 'number', text: record.score.toFixed(2) }),
    element('td', { text: (record.mistakes || []).join(', ') }),
    element('td', {}, open));
}

async function loadSubmissions(more) {
  const answer = await api.submissions(state.problem, SUBMISSIONS_PAGE, more ? state.cursor : null);
  if (answer.status !== 200) {
    say('submissions-status', `The submissions could not be read: ${errorText(answer)}.`);
    return;
  }
  const rows = answer.body.submissions.map(submissionRow);
  if (more) {
    $('submissions-table').querySelector('tbody').append(...rows);
  } else {
    $('submissions-list').replaceChildren(table('submissions-table', 'Gradings, newest first',
      ['time', 'student', 'result', 'score', 'mistakes', 'open'], rows));
  }
  state.cursor = answer.body.next_cursor;
  $('submissions-more').hidden = !state.cursor;
  const shown = $('submissions-table').querySelectorAll('tbody tr').length;
  say('submissions-status', `${shown} ${plural(shown, 'grading')} shown${state.cursor ? '; there are more' : ''}.`);
}

// A record as its student saw it: the answer the server sent, drawn by the student page's own
// renderer, against the problem as that student is served it (their variant).
async function openSubmission(id) {
  const view = $('submission-view');
  view.hidden = false;
  const answer = await api.submission(id);
  if (answer.status !== 200) {
    view.replaceChildren(element('p', { text: `The grading could not be read: ${errorText(answer)}.` }));
    return;
  }
  const record = answer.body;
  let problem = record.student ? await api.problemOf(record.problem, record.student) : null;
  if (!problem || problem.status !== 200) problem = await api.getProblem(record.problem);
  const heading = element('h3', {
    id: 'submission-title',
    tabindex: '-1',
    text: `${record.student ?? 'No student'}, ${record.time}: ${record.passed ? 'passed' : 'failed'}, score ${record.score.toFixed(2)}`,
  });
  const result = element('div', { id: 'submission-result', class: 'result' });
  view.replaceChildren(heading, element('p', { class: 'help', text: `Grading ${record.id}${record.regrade_of ? `, a regrade of ${record.regrade_of}` : ''}. Below, the answer exactly as the student's page showed it.` }), result);
  const sent = record.answer;
  if (problem.status === 200 && sent && typeof sent === 'object' && Array.isArray(sent.failures)) {
    renderResult(result, sent, problem.body, featureNames(problem.body));
  } else {
    // A record from before answers were kept whole, or a problem no longer served.
    result.append(element('pre', { text: JSON.stringify(sent, null, 2) }));
  }
  heading.focus();
  document.body.dataset.opened = record.id;
}

// A CSV fetched with the staff key in its header and saved from a Blob: the key never goes in
// a URL a download manager or a history could keep.
async function download(path, fallback) {
  say('download-status', 'Downloading…');
  const answer = await api.csv(path);
  if (answer.status !== 200) {
    say('download-status', `Not downloaded: ${errorText(answer)}.`);
    return;
  }
  const name = fileNameOf(answer.headers.get('Content-Disposition'), fallback);
  const url = URL.createObjectURL(new Blob([answer.text], { type: 'text/csv' }));
  const link = element('a', { href: url, download: name });
  document.body.append(link);
  link.click();
  link.remove();
  setTimeout(() => URL.revokeObjectURL(url), 60000);
  say('download-status', `Saved ${name}.`);
}

function showChanges(body, title, caption) {
  const rows = body.changed.map((c) => element('tr', {},
    element('th', { scope: 'row', text: c.student ?? '(none)' }),
    element('td', { text: changeText(c) })));
  $('regrade-result').replaceChildren(element('p', { id: 'regrade-summary', text: title }),
    rows.length ? table('regrade-changes', caption, ['student', 'before → after'], rows) : '');
}

async function previewRegrade() {
  $('regrade').disabled = true;
  say('regrade-status', 'Running the dry run…');
  const answer = await api.regrade(state.problem, true);
  if (!isDryRunAnswer(answer.status, answer.body)) {
    say('regrade-status', answer.status === 200
      ? 'The server did not answer a dry run; nothing more is offered.'
      : `The dry run failed: ${errorText(answer)}.`);
    return;
  }
  const n = answer.body.changed.length;
  showChanges(answer.body, `Dry run: ${answer.body.regraded} ${plural(answer.body.regraded, 'student')} `
    + `would be regraded; ${n} would change. Nothing was written.`, 'Who would change');
  say('regrade-status', '');
  $('regrade').disabled = false;
}

async function regrade() {
  $('regrade').disabled = true;
  say('regrade-status', 'Regrading…');
  const answer = await api.regrade(state.problem, false);
  if (answer.status !== 200) {
    say('regrade-status', `The regrade failed: ${errorText(answer)}.`);
    return;
  }
  showChanges(answer.body, `Regraded ${answer.body.regraded} ${plural(answer.body.regraded, 'student')}; `
    + `${answer.body.changed.length} changed.`, 'Who changed');
  say('regrade-status', '');
  await showClass();
}

export async function showClass() {
  const id = state.problem;
  say('class-status', `Reading the class of ${id}…`);
  await readFeatures();
  const [stats, integrity] = await Promise.all([api.stats(id),
    state.features.integrity ? api.integrity(id) : null]);
  if (stats.status !== 200) {
    say('class-status', `The class could not be read: ${errorText(stats)}.`);
    return;
  }
  showStats(stats.body);
  showIntegrity(integrity);
  await loadSubmissions(false);
  $('class-parts').hidden = false;
  $('download-students').hidden = !state.features.studentsCsv;
  $('regrade-preview').hidden = !state.features.dryRun;
  $('regrade').hidden = !state.features.dryRun;
  $('regrade-unavailable').hidden = state.features.dryRun;
  say('class-status', `The class of ${id}.`);
  document.body.dataset.classShown = `${id} ${Date.now()}`;
}

export function setupClass({ onProblems }) {
  onProblems((problems) => {
    const select = $('class-problem');
    const kept = select.value;
    select.replaceChildren(...problems.map((p) => element('option', { value: p.id, text: `${p.id}: ${p.title}` })));
    if (problems.some((p) => p.id === kept)) select.value = kept;
  });
  $('class-form').addEventListener('submit', (event) => {
    event.preventDefault();
    state.problem = $('class-problem').value;
    if (!state.problem) return;
    $('regrade').disabled = true;
    $('regrade-result').replaceChildren();
    $('submission-view').hidden = true;
    showClass();
  });
  $('submissions-more').addEventListener('click', () => loadSubmissions(true));
  $('download-submissions').addEventListener('click', () =>
    download(`/v1/submissions.csv?problem=${encodeURIComponent(state.problem)}`, `${state.problem}-submissions.csv`));
  $('download-students').addEventListener('click', () =>
    download(`/v1/students.csv?problem=${encodeURIComponent(state.problem)}`, `${state.problem}-students.csv`));
  $('regrade-preview').addEventListener('click', previewRegrade);
  $('regrade').addEventListener('click', regrade);
}
