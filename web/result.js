// The grade answer drawn for a student (API.md §5): how many tested strings pass, each
// example position by position, the failing strings, and for the one selected, expected
// against output, the attention heatmap laid out as in the handout (rows are queries,
// columns keys) and every step of the head. Only the student's own head is drawn: the
// answer holds nothing of the reference, and nothing here asks for it.

import { diverging, divergingGradient, sequential, sequentialGradient } from './colors.js';
import { element } from './dom.js';
import { formatNumber, resultTable, rove } from './grid.js';
import { mistakeTitle } from './mistake_titles.js';
import { refreshScrollCues } from './scroll_cue.js';

const STAGES = [
  ['embeddings', 'Embeddings r_i', 'feature'],
  ['Q', 'Q = rows W_q r_i', 'q'],
  ['K', 'K = rows W_k r_i', 'k'],
  ['V', 'V = rows W_V r_i', 'v'],
  ['scores', 'Scores = scale · Q Kᵀ', 'key'],
  ['masked_scores', 'Masked scores', 'key'],
  ['attention', 'Attention = softmax of each row', 'key'],
  ['output', 'Output = attention · V', 'c'],
];

const letters = (input) => Array.from(input);
const tokenLabel = (chars, i) => `${chars[i]} at ${i + 1}`;
const shape = (m) => `${m.length} × ${m[0] ? m[0].length : 0}`;
const maxAbs = (m) => Math.max(0, ...m.flat().filter((x) => x !== null).map(Math.abs));

function positionPasses(expected, output, tolerance) {
  return expected.every((x, c) => Math.abs(output[c] - x) <= tolerance);
}

// The summary box, and the verdict in words (what the page announces).
function summary(answer) {
  const { total, passed } = answer.tests;
  const box = element('div', { class: answer.passed ? 'summary pass' : 'summary fail' });
  const verdict = `${passed} of ${total} tested strings pass`;
  const detail = answer.passed
    ? 'Your head passes this problem.'
    : `Score ${formatNumber(answer.score)} (passed strings ÷ tested strings). `
      + `${answer.tests.failed} strings fail.`;
  box.append(element('p', { class: 'verdict', id: 'verdict', text: verdict }));
  box.append(element('p', { text: detail }));
  const margin = marginText(answer.margin);
  if (margin) box.append(element('p', { id: 'margin', text: margin }));
  return { box, text: `${verdict}. ${detail}` };
}

// A passing head's margin (API.md §13, docs/diagnosis.md): how far inside the tolerance its
// worst position stayed and, when there is one, how strongly it prefers what it attends to.
function marginText(margin) {
  if (!margin || typeof margin !== 'object' || typeof margin.worst_error !== 'number' ||
      typeof margin.tolerance !== 'number' || typeof margin.slack !== 'number') {
    return null;
  }
  let text = `Margin: your worst position is off by ${formatNumber(margin.worst_error)}, ` +
    `${formatNumber(margin.slack)} inside the tolerance ${String(margin.tolerance)}.`;
  if (typeof margin.score_gap === 'number') {
    text += ' Each query\'s highest score leads its next by at least '
      + `${formatNumber(margin.score_gap)}.`;
  }
  return text;
}

function diagnosisList(answer) {
  if (!Array.isArray(answer.diagnosis) || answer.diagnosis.length === 0) return null;
  const list = element('ul', { class: 'diagnosis', id: 'diagnosis' });
  for (const d of answer.diagnosis) {
    // A plain title; the code ("key_too_soft") is for the staff, kept in data-mistake.
    const item = element('li', { 'data-mistake': d.mistake },
      element('strong', { class: 'mistake-title', text: mistakeTitle(d.mistake) }),
      element('p', { class: 'mistake-message', text: d.message || '' }));
    if (d.hint) {
      item.append(element('p', { class: 'hint' }, element('strong', { text: 'Hint: ' }), d.hint));
    }
    list.append(item);
  }
  return element('section', { class: 'panel', 'aria-labelledby': 'diagnosis-title' },
    element('h3', { id: 'diagnosis-title', text: 'What the grader found' }), list);
}

function examplesTable(answer, tolerance) {
  if (!answer.examples.length) return null;
  const longest = Math.max(...answer.examples.map((e) => letters(e.input).length));
  const cols = Array.from({ length: longest }, (_, i) => `position ${i + 1}`);
  const rows = answer.examples.map((e) => letters(e.input));
  const table = element('table', {
    class: 'matrix examples', id: 'examples', role: 'grid', 'aria-readonly': 'true',
  });
  table.append(element('caption', {
    text: `Examples (✓ within the tolerance ${String(tolerance)} at that position)`,
  }));
  const head = element('tr', {}, element('th', { scope: 'col', text: 'string' }));
  for (const c of cols) head.append(element('th', { scope: 'col', text: c }));
  table.append(element('thead', {}, head));
  const body = element('tbody');
  answer.examples.forEach((e, r) => {
    const tr = element('tr', { 'data-row': r }, element('th', { scope: 'row', text: e.input }));
    for (let i = 0; i < longest; i += 1) {
      if (i >= rows[r].length) {
        tr.append(element('td', { class: 'none' }));
        continue;
      }
      const ok = positionPasses(e.expected[i], e.output[i], tolerance);
      tr.append(element('td', {
        class: ok ? 'ok' : 'bad',
        role: 'gridcell',
        tabindex: r === 0 && i === 0 ? 0 : -1,
        'data-row': r,
        'data-col': i,
        'aria-label': `${e.input}, position ${i + 1} (${rows[r][i]}): ${ok ? 'passes' : 'fails'}`,
        text: `${rows[r][i]} ${ok ? '✓' : '✗'}`,
      }));
    }
    body.append(tr);
  });
  table.append(body);
  rove(table, 'td[role="gridcell"]', { editable: false });
  return table;
}

function expectedVsOutput(failure, tolerance, onSelectRow) {
  const chars = letters(failure.input);
  const n = failure.expected[0].length;
  const table = element('table', {
    class: 'matrix compare', id: 'compare', role: 'grid', 'aria-readonly': 'true',
  });
  table.append(element('caption', {
    text: 'Expected and your output at each position (wrong: off by more than '
      + `${String(tolerance)})`,
  }));
  const head = element('tr', {}, element('th', { scope: 'col', text: 'position' }));
  for (let c = 0; c < n; c += 1) {
    head.append(element('th', { scope: 'col', text: `expected ${c + 1}` }),
      element('th', { scope: 'col', text: `output ${c + 1}` }));
  }
  table.append(element('thead', {}, head));
  const body = element('tbody');
  failure.expected.forEach((row, i) => {
    const tr = element('tr', { 'data-row': i },
      element('th', { scope: 'row', text: tokenLabel(chars, i) }));
    row.forEach((want, c) => {
      const got = failure.output[i][c];
      const wrong = Math.abs(got - want) > tolerance;
      tr.append(
        element('td', {
          role: 'gridcell',
          'data-row': i,
          'data-col': 2 * c,
          tabindex: i === 0 && c === 0 ? 0 : -1,
          'aria-label': `${tokenLabel(chars, i)}, component ${c + 1}, expected: `
            + formatNumber(want),
          text: formatNumber(want),
        }),
        element('td', {
          role: 'gridcell',
          'data-row': i,
          'data-col': 2 * c + 1,
          tabindex: -1,
          class: wrong ? 'wrong' : 'right',
          'aria-label': `${tokenLabel(chars, i)}, component ${c + 1}, your output: `
            + `${formatNumber(got)}${wrong ? ', wrong' : ''}`,
          text: formatNumber(got),
        }),
      );
    });
    body.append(tr);
  });
  table.append(body);
  rove(table, 'td', { editable: false, onEnter: onSelectRow });
  table.addEventListener('click', (event) => {
    const target = event.target.closest('tr[data-row]');
    if (target) onSelectRow(Number(target.dataset.row));
  });
  return table;
}

function legend(id, gradient, low, mid, high, title) {
  const bar = element('div', { class: 'legend-bar', 'aria-hidden': 'true' });
  bar.style.backgroundImage = gradient;
  return element('figure', { class: 'legend', id },
    element('figcaption', { text: title }), bar,
    element('div', { class: 'legend-ticks', 'aria-hidden': 'true' },
      element('span', { text: low }), element('span', { text: mid }),
      element('span', { text: high })),
    element('p', { class: 'legend-masked' },
      element('span', { class: 'masked swatch', 'aria-hidden': 'true', text: '–' }),
      ' masked: the key comes after the query'));
}

function heatmap(failure, onSelectRow) {
  const chars = letters(failure.input);
  const labels = chars.map((_, i) => tokenLabel(chars, i));
  const masked = (r, c) => failure.trace.masked_scores[r][c] === null;
  const table = resultTable({
    id: 'heatmap',
    caption: `Attention of "${failure.input}" (${shape(failure.trace.attention)}): `
      + 'rows are queries, columns are keys',
    rows: failure.trace.attention,
    rowLabels: labels,
    colLabels: labels,
    cornerLabel: 'query \\ key',
    masked,
    paint: (x) => sequential(x),
    describe: (r, c, text) => `query ${labels[r]}, key ${labels[c]}: ${text}`,
    onSelectRow,
  });
  table.classList.add('heatmap');
  return element('div', { class: 'heatmap-box' },
    element('div', { class: 'scroll' }, table),
    legend('heatmap-legend', sequentialGradient(), '0', '0.5', '1',
      'Attention weight (fixed scale 0 to 1)'));
}

function pipeline(failure, onSelectRow, features) {
  const chars = letters(failure.input);
  const labels = chars.map((_, i) => tokenLabel(chars, i));
  const strip = element('div', { class: 'pipeline', id: 'pipeline' });
  for (const [key, title, column] of STAGES) {
    const m = failure.trace[key];
    if (!m) continue;
    const square = column === 'key';
    const named = (c) => (column === 'feature' && features[c] ? features[c] : `${column} ${c + 1}`);
    const cols = square ? labels : m[0].map((_, c) => named(c));
    const extent = maxAbs(m);
    const table = resultTable({
      id: `stage-${key}`,
      caption: `${title} (${shape(m)})`,
      rows: m,
      rowLabels: labels,
      colLabels: cols,
      cornerLabel: square ? 'query \\ key' : 'token',
      masked: key === 'masked_scores' || key === 'attention'
        ? (r, c) => failure.trace.masked_scores[r][c] === null
        : undefined,
      paint: key === 'attention' ? (x) => sequential(x) : (x) => diverging(x, extent),
      describe: square
        ? (r, c, text) => `${title}: query ${labels[r]}, key ${labels[c]}: ${text}`
        : (r, c, text) => `${title}: ${labels[r]}, ${cols[c]}: ${text}`,
      onSelectRow,
    });
    strip.append(element('div', { class: 'stage scroll' }, table));
  }
  return element('div', {},
    strip,
    legend('signed-legend', divergingGradient(), '−largest', '0', '+largest',
      'Signed values (each table scaled to its largest magnitude)'));
}

// Highlights query row `r` in every table of `root`.
function highlightRow(root, r, input) {
  for (const tr of root.querySelectorAll('tbody tr[data-row]')) {
    const on = Number(tr.dataset.row) === r;
    tr.classList.toggle('selected', on);
    tr.setAttribute('aria-selected', on ? 'true' : 'false');
  }
  const chars = letters(input);
  const note = root.querySelector('#row-note');
  if (note) {
    note.textContent = r === null
      ? ''
      : `Query ${tokenLabel(chars, r)} is highlighted in every table.`;
  }
}

function failureDetail(answer, failure, tolerance, features) {
  const detail = element('section', {
    class: 'panel failure', id: 'failure-detail', 'aria-labelledby': 'failure-title',
  });
  const where = failure.failing_positions.join(', ');
  const plural = failure.failing_positions.length > 1 ? 's' : '';
  detail.append(element('h3', {
    id: 'failure-title', text: `"${failure.input}" fails at position${plural} ${where}`,
  }));
  detail.append(element('p', {
    text: `Largest error ${formatNumber(failure.max_error)}; a position passes when every `
      + `component is within ${String(tolerance)} of the expected value.`,
  }));
  const diagnosis = diagnosisList(answer);
  if (diagnosis) detail.append(diagnosis);
  const select = (r) => highlightRow(detail, r, failure.input);
  detail.append(element('div', { class: 'scroll' }, expectedVsOutput(failure, tolerance, select)));
  detail.append(element('h4', { text: 'Where each query looks' }));
  detail.append(element('p', {
    class: 'help',
    text: 'Move with the arrow keys inside a table; Enter (or a click) highlights that query '
      + 'in every table.',
  }));
  detail.append(element('p', { id: 'row-note', class: 'row-note', role: 'status' }));
  detail.append(heatmap(failure, select));
  detail.append(element('h4', { text: 'Every step of your head' }));
  detail.append(pipeline(failure, select, features));
  return detail;
}

// Draws `answer` into `root`; returns its verdict in words. `problem`: the problem as served
// (for its tolerance); `features`: the features' labels ("vowel", …).
export function renderResult(root, answer, problem, features = []) {
  root.replaceChildren();
  const { box, text } = summary(answer);
  root.append(box);
  if (answer.passed) {
    const diagnosis = diagnosisList(answer);
    if (diagnosis) root.append(diagnosis);
  }
  const examples = examplesTable(answer, problem.tolerance);
  if (examples) {
    root.append(element('div', { class: 'scroll' }, examples));
  }
  if (!answer.failures.length) return text;
  const list = element('ul', { class: 'failures', id: 'failures' });
  const detailBox = element('div', { id: 'failure-box' });
  const choose = (k) => {
    for (const b of list.querySelectorAll('button')) {
      b.setAttribute('aria-pressed', b.dataset.index === String(k) ? 'true' : 'false');
    }
    detailBox.replaceChildren(
      failureDetail(answer, answer.failures[k], problem.tolerance, features));
    refreshScrollCues(root);
  };
  answer.failures.forEach((f, k) => {
    const plural = f.failing_positions.length > 1 ? 's' : '';
    const button = element('button', {
      type: 'button',
      'data-index': k,
      'aria-pressed': 'false',
      text: `"${f.input}" (position${plural} ${f.failing_positions.join(', ')})`,
    });
    button.addEventListener('click', () => choose(k));
    list.append(element('li', {}, button));
  });
  const shown = answer.failures.length;
  root.append(element('h3', {
    text: shown < answer.tests.failed
      ? `Failing strings: the first ${shown} of ${answer.tests.failed}, shortest first`
      : `Failing strings (${shown})`,
  }));
  root.append(list, detailBox);
  choose(0);
  return text;
}
