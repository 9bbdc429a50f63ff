// The problem as the student page shows it: its title and statement, W_E (and W_P, and every
// matrix the problem gives) as tables labelled by feature, letter and position, and the rules
// of what the student submits (the shapes, causality, scale, tolerance, the strings tested).

import { element } from './dom.js';
import { resultTable } from './grid.js';

function matrixTable(id, caption, m, rowLabel, colLabel) {
  return element('div', { class: 'scroll' }, resultTable({
    id,
    caption,
    rows: m,
    rowLabels: m.map((_, r) => rowLabel(r)),
    colLabels: m[0].map((_, c) => colLabel(c)),
    cornerLabel: 'feature',
    masked: () => false,
    describe: (r, c, text) => `${caption.split(' ')[0]}, ${rowLabel(r)}, ${colLabel(c)}: ${text}`,
  }));
}

// Fills `info` with `problem`; featureLabel(c) names the feature of row or column c.
export function renderProblem(info, problem, featureLabel) {
  const alphabet = Array.from(problem.alphabet);
  const nE = problem.W_E.length;
  info.replaceChildren(
    element('h3', { text: problem.title }),
    element('p', { class: 'statement', text: problem.statement }),
    matrixTable('table-W_E',
      `W_E (${nE} × ${alphabet.length}): rows are features, columns letters`,
      problem.W_E, featureLabel, (c) => alphabet[c]),
  );
  if (problem.W_P) {
    info.append(matrixTable('table-W_P',
      `W_P (${nE} × ${problem.W_P[0].length}): rows are features, columns positions`,
      problem.W_P, featureLabel, (c) => `position ${c + 1}`));
  }
  for (const [name, m] of Object.entries(problem.given || {})) {
    info.append(matrixTable(`table-${name}`,
      `${name} (${m.length} × ${m[0].length}), given by the problem`,
      m, (r) => `row ${r + 1}`, featureLabel));
  }
  const rules = element('ul', { class: 'rules' });
  if (problem.submit.includes('W_q') || problem.submit.includes('W_k')) {
    rules.append(element('li', {
      text: `W_q and W_k are n_q × ${nE}: one column per feature (n_e = ${nE}); n_q, the `
        + 'number of rows, is yours to choose and the same for both.',
    }));
  }
  if (problem.submit.includes('W_V')) {
    rules.append(element('li', {
      text: `W_V is n_v × ${nE}: n_v rows, one per component of the expected output at each `
        + 'position.',
    }));
  }
  const causality = problem.causal === false
    ? 'not causal'
    : 'causal (a query sees only keys at or before it)';
  rules.append(element('li', {
    text: `The head is ${causality}; scores are multiplied by ${problem.scale}. A position `
      + `passes within ${problem.tolerance} per component; strings up to length `
      + `${problem.strings.max_length} are tested.`,
  }));
  info.append(element('h4', { text: `You submit ${problem.submit.join(', ')}` }), rules);
}
