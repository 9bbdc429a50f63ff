// The staff page's editor (API.md §16): a problem file in a textarea, validated as the author
// types (POST /v1/problems/validate, debounced, the newest answer only), its defects with the
// caret of `expected`, obstacles, lint and the named mistakes its tests catch; solve (POST
// /v1/problems/solve), a preview that is the student page itself showing the unsaved file,
// and save (PUT /v1/problems/{id}).

import * as api from './staff_api.js';
import { byId as $, element } from './dom.js';
import {
  debounce, draftId, Newest, plural, splitCaret, validationParts,
} from './staff_logic.js';

// A typing pause this long sends the draft: short enough to feel immediate, long enough that
// a word typed is one request.
const VALIDATE_DELAY_MS = 250;
// The route's default would do; the page says how long it may take.
const SOLVE_SECONDS = 10;

const TEMPLATE = `{
  "id": "new-problem",
  "title": "A new problem",
  "statement": "Say what the head must output at each position.",
  "alphabet": "ab",
  "classes": {"vowel": "a", "consonant": "b"},
  "W_E": [[1, 0], [0, 1]],
  "submit": ["W_q", "W_k", "W_V"],
  "expected": "any(consonant) ? [0, 1] : [1, 0]",
  "tolerance": 0.1,
  "strings": {"max_length": 6, "examples": ["ab", "aab"]}
}
`;

const state = { newest: new Newest(), preview: null, frameReady: false };

function errorText(answer) {
  const error = answer.body && answer.body.error;
  return error ? error.message : `the server answered ${answer.status}`;
}

function defectItem(defect) {
  const { text, excerpt } = splitCaret(defect.message);
  return element('li', {},
    element('strong', { text: defect.field || 'file' }), `: ${text}`,
    excerpt ? element('pre', { class: 'caret', text: excerpt }) : null);
}

function list(id, title, items) {
  if (items.length === 0) return [];
  return [element('h3', { id: `${id}-title`, text: title }),
    element('ul', { id, class: id === 'warnings' ? 'warnings' : 'defects', 'aria-labelledby': `${id}-title` }, ...items)];
}

function showValidation(answer) {
  const parts = validationParts(answer);
  $('validation-summary').textContent = parts.summary;
  const box = $('validation');
  box.replaceChildren(
    ...list('defects', `${parts.defects.length} ${plural(parts.defects.length, 'defect')}`,
      parts.defects.map(defectItem)),
    ...list('obstacles', 'Obstacles: the problem cannot be solved as written',
      parts.obstacles.map((o) => element('li', {},
        element('strong', { text: o.kind }), ` (input "${o.input}", position ${o.position}): `,
        splitCaret(o.message).text))),
    ...list('warnings', 'Warnings (lint)', parts.warnings.map((w) => element('li', {},
      element('strong', { text: w.field }), `: ${w.message}`))),
  );
  if (parts.caught.length) {
    box.append(element('table', { id: 'mistakes-caught' },
      element('caption', { text: 'Named mistakes made on the reference: do the tests catch them?' }),
      element('thead', {}, element('tr', {},
        ...['mistake', 'caught', 'by the string'].map((h) => element('th', { scope: 'col', text: h })))),
      element('tbody', {}, ...parts.caught.map((m) => element('tr', {},
        element('th', { scope: 'row' }, element('code', { text: m.mistake })),
        element('td', { text: m.caught ? 'yes' : 'no' }),
        element('td', { text: m.by === null ? '–' : `"${m.by}"` }))))));
  }
  if (answer.reference_margin) {
    const m = answer.reference_margin;
    box.append(element('p', {
      id: 'reference-margin',
      text: `The reference's worst error is ${m.worst_error.toFixed(4)} against a tolerance of `
        + `${m.tolerance}.`,
    }));
  }
  state.preview = answer.problem || null;
  $('preview').disabled = state.preview === null;
  if (state.preview && $('preview-frame')) sendPreview();
}

async function validateNow() {
  const text = $('problem-text').value;
  const ticket = state.newest.ticket();
  if (text.trim() === '') {
    $('validation-summary').textContent = 'Write or paste a problem file to check it.';
    $('validation').replaceChildren();
    return;
  }
  const answer = await api.validate(text, $('preview-student').value.trim());
  if (!state.newest.isNewest(ticket)) return;  // the author typed on meanwhile
  if (answer.status !== 200) {
    $('validation-summary').textContent = `Not checked: ${errorText(answer)}.`;
    return;
  }
  showValidation(answer.body);
  document.body.dataset.validated = String(ticket);
}

const validateSoon = debounce(validateNow, VALIDATE_DELAY_MS);

function setText(text) {
  $('problem-text').value = text;
  validateNow();
}

function matrixText(m) {
  return `[${m.map((row) => `[${row.join(', ')}]`).join(', ')}]`;
}

async function onSolve() {
  const button = $('solve');
  const out = $('solve-result');
  button.disabled = true;
  $('editor-status').textContent = `Searching for a head (up to ${SOLVE_SECONDS} s)…`;
  const answer = await api.solve($('problem-text').value, SOLVE_SECONDS);
  button.disabled = false;
  if (answer.status === 422) {
    $('editor-status').textContent = 'Not solved: the file has defects besides its reference.';
    out.replaceChildren(element('ul', { class: 'defects' }, ...answer.body.defects.map(defectItem)));
    return;
  }
  if (answer.status !== 200) {
    $('editor-status').textContent = `Not solved: ${errorText(answer)}.`;
    out.replaceChildren();
    return;
  }
  const found = answer.body;
  const head = found.found ? found.head : found.best;
  const matrices = element('ul', {}, ...Object.entries(head).map(([name, m]) =>
    element('li', {}, element('code', { text: `${name} = ${matrixText(m)}` }))));
  if (found.found) {
    $('editor-status').textContent = 'Solved: a head that passes every tested string is now the '
      + 'file\'s reference. Save to serve it.';
    out.replaceChildren(element('p', {
      text: `Found (worst error ${found.margin.worst_error.toFixed(4)} against a tolerance of `
        + `${found.margin.tolerance}):`,
    }), matrices);
    if (typeof found.file === 'string') setText(found.file);
    return;
  }
  $('editor-status').textContent = 'Not solved within the time: the best head is below.';
  out.replaceChildren(
    element('p', { text: `The best head passes ${(100 * found.score).toFixed(1)} % of the tested strings; it fails ${found.failing.map((s) => `"${s}"`).join(', ')}.` }),
    matrices,
    ...found.obstacles.map((o) => element('p', { class: 'error', text: o.message })));
}

async function onSave(refreshFolder) {
  const text = $('problem-text').value;
  const { id, error } = draftId(text);
  if (error) {
    $('editor-status').textContent = `Not saved: ${error}.`;
    return;
  }
  $('save').disabled = true;
  const answer = await api.putProblem(id, text);
  $('save').disabled = false;
  if (answer.status === 200 || answer.status === 201) {
    $('editor-status').textContent = `Saved: ${id} is served to students now`
      + `${answer.status === 201 ? ' (a new problem)' : ''}.`;
    $('solve-result').replaceChildren();
    await refreshFolder();
    return;
  }
  $('editor-status').textContent = `Not saved: ${errorText(answer)}`;
  if (answer.body && answer.body.defects) {
    $('solve-result').replaceChildren(element('ul', { class: 'defects' },
      ...answer.body.defects.map(defectItem)));
  }
}

// The student page (/?preview) in a frame of this origin, sent the draft as loaded: it shows
// it exactly as a student will, and grades nothing.
function sendPreview() {
  const frame = $('preview-frame');
  if (!frame || !state.frameReady || !state.preview) return;
  const variant = state.preview.variant;
  $('preview-title').textContent = 'Preview: the student page, from the unsaved file'
    + (variant ? `, as ${$('preview-student').value.trim()} will see it (variant ${variant})` : '');
  frame.contentWindow.postMessage({ type: 'headgrader-preview', problem: state.preview },
    location.origin);
}

function onPreview() {
  if (!state.preview) return;
  let frame = $('preview-frame');
  if (!frame) {
    state.frameReady = false;
    frame = element('iframe', {
      id: 'preview-frame',
      src: '/?preview=1',
      title: 'Preview: the student page showing this draft',
    });
    $('preview-box').replaceChildren(
      element('h3', {
        id: 'preview-title', text: 'Preview: the student page, from the unsaved file',
      }), frame);
  }
  sendPreview();
  frame.focus();
}

export function setupEditor({ refreshFolder, onProblems }) {
  const text = $('problem-text');
  text.addEventListener('input', validateSoon);
  $('preview-student').addEventListener('input', validateSoon);
  $('solve').addEventListener('click', onSolve);
  $('save').addEventListener('click', () => onSave(refreshFolder));
  $('preview').addEventListener('click', onPreview);
  window.addEventListener('message', (event) => {
    const frame = $('preview-frame');
    if (event.origin !== location.origin || !frame || event.source !== frame.contentWindow) return;
    if (event.data && event.data.type === 'headgrader-preview-ready') {
      state.frameReady = true;
      sendPreview();
    }
  });
  $('editor-load').addEventListener('click', async () => {
    const id = $('editor-start').value;
    if (id === '') {
      setText(TEMPLATE);
      return;
    }
    const answer = await api.getProblem(id);
    if (answer.status !== 200) {
      $('editor-status').textContent = `Not loaded: ${errorText(answer)}.`;
      return;
    }
    // The served problem has no reference (it is never sent out): Solve finds one.
    setText(`${JSON.stringify(answer.body, null, 2)}\n`);
    $('editor-status').textContent = `Loaded ${id} as served, without its reference (never `
      + 'sent out): Solve finds one, or paste your own.';
  });
  onProblems((problems) => {
    const select = $('editor-start');
    const kept = select.value;
    select.replaceChildren(element('option', { value: '', text: 'a new problem (a template)' }),
      ...problems.map((p) => element('option', { value: p.id, text: `${p.id}: ${p.title}` })));
    if (problems.some((p) => p.id === kept)) select.value = kept;
  });
}
