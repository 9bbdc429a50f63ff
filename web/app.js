// The student page: pick a problem, enter W_q, W_k, W_V (grids or a pasted matrix), grade,
// read the result, check steps by hand. Input is checked here before anything is sent, so a
// typo costs no attempt; the server's own errors are shown next to the matrix they name and
// beside Grade, and go as soon as the matrices change. The result shown is always the answer
// to the matrices on screen: once they differ from those graded, it is marked out of date.

import { getProblem, grade, listProblems } from './api.js';
import { byId as $, element, metaContent } from './dom.js';
import { featureNames } from './feature_names.js';
import { matrixEntry } from './matrix_entry.js';
import { isNumberText, jsonLiteral } from './matrix_parse.js';
import { renderProblem } from './problem_info.js';
import { renderResult } from './result.js';
import { refreshScrollCues, watchScrollCues } from './scroll_cue.js';
import { StepsPanel } from './steps.js';
import { restoreMatrices, saveMatrices, storedProblem } from './storage.js';

const ALIASES = { W_Q: 'W_q', W_K: 'W_k', W_v: 'W_V' };

// The staff's page (API.md §16) frames this page as /?preview=1 to show an unsaved problem
// exactly as a student will see it: the problem then comes from the framing page (same
// origin only), nothing is graded or kept.
const state = {
  problem: null,
  matrices: new Map(),
  retryTimer: null,
  // The weights' JSON text of the result shown (null: none shown), to tell when it is stale.
  graded: null,
  // Whether the student has asked to grade since the problem was shown: every empty box is
  // outlined from then on, not before.
  attempted: false,
  preview: new URLSearchParams(location.search).has('preview') && window.parent !== window,
};

function save() {
  if (!state.problem || state.preview) return;
  const saved = {};
  for (const [name, { grid }] of state.matrices) saved[name] = grid.values();
  saveMatrices(state.problem.id, saved);
}

// The features' labels of the problem shown ("vowel", else "feature 1").
const featureLabel = (c) => state.features[c] || `feature ${c + 1}`;

function showProblem(problem) {
  state.features = featureNames(problem);
  renderProblem($('problem-info'), problem, featureLabel);
}

function buildMatrices(problem) {
  const box = $('matrices');
  box.replaceChildren();
  state.matrices.clear();
  const nE = problem.W_E.length;
  const saved = restoreMatrices(problem.id);
  for (const name of problem.submit) {
    const entry = matrixEntry({
      name, nE, featureLabel, kept: saved[name], onEdit: edited,
    });
    box.append(entry.fieldset);
    state.matrices.set(name, entry);
  }
}

// After any change of the matrices: what the server said about the last ones no longer holds,
// the result may be out of date, and the matrices are kept.
function edited() {
  clearErrors();
  validate();
  markStale();
  save();
}

// The weights as JSON members ('"W_q": [[1, 1]]'), and n_q, n_v for the step grids.
function weights() {
  const parts = [];
  let ok = true;
  for (const [name, { grid }] of state.matrices) {
    const values = grid.values();
    if (!values.every((row) => row.every((t) => isNumberText(t || '')))) ok = false;
    const literal = (t) => (isNumberText(t || '') ? jsonLiteral(t) : 'null');
    const rows = values.map((row) => `[${row.map(literal).join(', ')}]`);
    parts.push(`"${name}": [${rows.join(', ')}]`);
  }
  const given = (state.problem && state.problem.given) || {};
  const rowsOf = (name) => {
    if (state.matrices.has(name)) return state.matrices.get(name).grid.rows;
    return given[name] ? given[name].length : 1;
  };
  return { ok, parts, nq: rowsOf('W_q'), nv: rowsOf('W_V') };
}

// The weights as the JSON text a grading sends (what a result answers).
const weightsText = () => `{${weights().parts.join(', ')}}`;

// The status beside Grade: `text`, and when given a link ("Go to W_q") that moves the
// keyboard to `box` (a matrix's box), as in an error summary.
function setStatus(text, link) {
  const status = $('grade-status');
  status.replaceChildren(text);
  if (!link || !link.box) return;
  const go = element('a', { href: `#${link.box.closest('fieldset').id}`, text: link.text });
  go.addEventListener('click', (event) => {
    event.preventDefault();
    link.box.focus();
    link.box.scrollIntoView({ block: 'center' });
  });
  status.append(' ', go);
}

function validate() {
  let bad = 0;
  let shown = 0;
  let first = null;
  for (const { grid } of state.matrices.values()) {
    const marked = grid.markInvalid(state.attempted);
    bad += marked.bad;
    shown += marked.shown;
    first = first || marked.first;
  }
  const button = $('grade');
  const waiting = state.retryTimer !== null;
  button.disabled = waiting || !state.problem || state.preview;
  if (state.preview) {
    setStatus('A preview: grading opens once the problem is saved.');
  } else if (!waiting) {
    // Before the first edit or Grade nothing is red, and the status only says what is left.
    const one = bad === 1;
    if (bad === 0) {
      setStatus('');
    } else if (shown === 0) {
      setStatus(`Fill in ${one ? 'the empty box' : `the ${bad} boxes`} to grade.`);
    } else {
      const count = `${bad} ${one ? 'entry is' : 'entries are'}`;
      setStatus(`${state.attempted ? 'Not graded: ' : ''}${count} empty or not a number `
        + `(outlined in red); fix ${one ? 'it' : 'them'} to grade.`,
      { text: 'Go to the first', box: first });
    }
  }
  if (state.steps) state.steps.layout();
  return bad === 0;
}

// The result shown, marked out of date (visibly, and in the heading a screen reader reads)
// while the matrices on screen are not those it answers.
function markStale() {
  const stale = state.graded !== null && weightsText() !== state.graded;
  $('result-section').classList.toggle('stale', stale);
  $('result-stale').hidden = !stale;
  $('result-title-stale').textContent = stale ? ' (out of date)' : '';
}

function clearErrors() {
  for (const { error, grid } of state.matrices.values()) {
    error.textContent = '';
    grid.table.classList.remove('server-error');
  }
}

// Shows a server error under the matrix it names; that matrix, or null.
function showError(error) {
  const name = ALIASES[error.field] || error.field;
  const target = name && state.matrices.get(name);
  if (target) {
    target.error.textContent = error.message;
    target.grid.table.classList.add('server-error');
    return target;
  }
  return null;
}

// A 429 (API.md §8): the server's message (it says why and when) is announced once in the
// status; the countdown beside it is not a live region, so a screen reader is not told every
// second. Grade stays disabled until the wait is over, the matrices and last result untouched.
function waitForRetry(seconds, message) {
  const until = new Date(Date.now() + seconds * 1000);
  const status = $('grade-status');
  const countdown = $('grade-countdown');
  clearInterval(state.retryTimer);
  status.textContent =
    `Not graded: ${message}. You may grade again at ${until.toLocaleTimeString()}.`;
  const tick = () => {
    const left = Math.ceil((until - Date.now()) / 1000);
    if (left <= 0) {
      clearInterval(state.retryTimer);
      state.retryTimer = null;
      countdown.textContent = '';
      validate();  // first: with no wait left it clears the status
      status.textContent = 'You may grade again.';
      return;
    }
    countdown.textContent = `Grade is available again in ${left} s.`;
  };
  state.retryTimer = setInterval(tick, 1000);
  tick();
  validate();
}

async function onGrade() {
  state.attempted = true;
  if (!validate()) {
    const first = $('grade-status').querySelector('a');
    if (first) first.focus();
    return;
  }
  clearErrors();
  const { parts } = weights();
  const sent = weightsText();
  const button = $('grade');
  button.disabled = true;
  setStatus('Grading…');
  const maxFailures = Number($('max-failures').value);
  const problem = state.problem;
  const { status, body, retryAfter } =
    await grade(problem.id, `{${parts.join(', ')}, "max_failures": ${maxFailures}}`);
  validate();
  // Another problem (or a pool) was chosen while this one was graded: the answer is not for
  // what the page shows now, and it is not drawn over it.
  if (state.problem !== problem) return;
  if (status === 200) {
    state.graded = sent;
    $('result-section').hidden = false;
    const verdict = renderResult($('result'), body, state.problem, state.features);
    markStale();
    // The verdict itself is announced (the status is a live region), and the keyboard moves
    // to the result it heads.
    setStatus(`Graded: ${verdict}`);
    $('result-title').focus();
    refreshScrollCues();
    return;
  }
  const error = (body && body.error) || { message: `the server answered ${status}`, field: null };
  if (status === 429) {
    waitForRetry(retryAfter || 60, error.message);
    return;
  }
  // The error beside Grade, with a link to the matrix it names (its message is under it too).
  const placed = showError(error);
  const name = ALIASES[error.field] || error.field;
  setStatus(`Not graded: ${error.message}.`,
    placed ? { text: `Go to ${name}`, box: placed.grid.firstBox() } : null);
  markStale();
}

// Nothing to grade where a problem was chosen (a pool without its student, or a problem that
// could not be loaded): `text` says why, and the last problem's matrices, result and steps go
// with it, so that nothing on the page is taken for this choice's or graded against it. Its
// matrices stay saved, and come back when it is chosen again.
function showNoProblem(text) {
  state.problem = null;
  state.attempted = false;
  state.graded = null;
  $('problem-info').textContent = text;
  $('matrices').replaceChildren();
  state.matrices.clear();
  $('result').replaceChildren();
  state.steps.clear();
  markStale();
  validate();
}

async function chooseProblem(id) {
  // Tests (and scripts) wait for data-problem to name the problem shown.
  document.body.dataset.problem = '';
  const { status, body } = await getProblem(id);
  if (status !== 200) {
    const why = body && body.error ? body.error.message : status;
    showNoProblem(`This problem could not be loaded: ${why}`);
    return;
  }
  // A pool (API.md §15) as written: its problem is given per student, from the course.
  if (Array.isArray(body.pool)) {
    showNoProblem('This is a pool: each student is given one of its '
      + `${body.pool.length} problems. Open it from your course to see yours.`);
    document.body.dataset.problem = id;
    return;
  }
  state.problem = body;
  state.attempted = false;
  state.graded = null;
  showProblem(body);
  buildMatrices(body);
  $('result').replaceChildren(element('p', {
    class: 'help', id: 'result-empty', text: 'Grade your matrices to see the result here.',
  }));
  markStale();
  state.steps.setProblem(body);
  validate();
  save();
  refreshScrollCues();
  document.body.dataset.problem = id;
}

// The preview's problem, sent by the staff's page that frames this one.
function showPreview(problem) {
  state.problem = problem;
  state.attempted = false;
  const select = $('problem-select');
  select.replaceChildren(element('option', { value: problem.id, text: problem.title }));
  select.disabled = true;
  showProblem(problem);
  buildMatrices(problem);
  $('result-section').hidden = true;
  $('steps-section').hidden = true;
  validate();
  document.body.dataset.problem = problem.id;
}

function startPreview() {
  window.addEventListener('message', (event) => {
    if (event.origin !== location.origin || event.source !== window.parent) return;
    if (event.data && event.data.type === 'headgrader-preview' && event.data.problem) {
      showPreview(event.data.problem);
    }
  });
  document.body.dataset.ready = 'true';
  window.parent.postMessage({ type: 'headgrader-preview-ready' }, location.origin);
}

async function start() {
  if (state.preview) {
    startPreview();
    return;
  }
  state.steps = new StepsPanel($('steps'), { weights, showWeightError: showError });
  $('grade').addEventListener('click', onGrade);
  // Enter in a box grades, as in a form.
  $('matrices').addEventListener('keydown', (event) => {
    if (event.key !== 'Enter' || event.target.tagName !== 'INPUT') return;
    event.preventDefault();
    if (!$('grade').disabled) onGrade();
  });
  watchScrollCues();
  const select = $('problem-select');
  const { status, body } = await listProblems();
  if (status !== 200) {
    $('problem-info').textContent =
      'The list of problems could not be loaded; reload the page to try again.';
    return;
  }
  for (const p of body.problems) select.append(element('option', { value: p.id, text: p.title }));
  // Launched from the LMS (API.md §11), the page is for one problem: its token grades no other.
  const launched = metaContent('headgrader-problem');
  const student = metaContent('headgrader-student');
  if (launched !== undefined) {
    const signedIn = $('signed-in');
    signedIn.textContent = 'Signed in from your course as '
      + (student || 'a student whose name the course did not send')
      + '. Your gradings are recorded for you, and their score goes to the course gradebook.';
    signedIn.hidden = false;
  }
  const wanted = launched
    || new URLSearchParams(location.search).get('problem')
    || storedProblem();
  if (wanted && body.problems.some((p) => p.id === wanted)) select.value = wanted;
  if (launched) select.disabled = true;
  select.addEventListener('change', () => chooseProblem(select.value));
  if (select.value) await chooseProblem(select.value);
  document.body.dataset.ready = 'true';
}

start();
