// What "Check my steps" decides without the page (steps.js draws it): the steps and their
// shapes, the string suggested, what is wrong with a string or with the tables typed, the
// request's body, and the words of the server's verdict.

import { jsonLiteral } from './matrix_parse.js';

// [name in the API, the table's title]. In the order a student computes them.
export const STEPS = [
  ['Q', 'Q (one row per letter, n_q columns)'],
  ['K', 'K (one row per letter, n_q columns)'],
  ['V', 'V (one row per letter, n_v columns)'],
  ['scores', 'Scores = scale · Q Kᵀ (rows queries, columns keys)'],
  ['masked_scores', 'Masked scores ("–" where the mask hides a key)'],
  ['attention', 'Attention = softmax of each row'],
  ['output', 'Output = attention · V'],
];

// Whether the step is one row and one column per letter (query by key).
export const isSquare = (name) =>
  name === 'scores' || name === 'masked_scores' || name === 'attention';

// The step's number of columns for a string of length L and weights n_q, n_v.
export function columnsOf(name, L, nq, nv) {
  if (isSquare(name)) return L;
  return name === 'V' || name === 'output' ? nv : nq;
}

// A row or column's label: the letter and its position from 1 ("c at 3").
export const letterLabel = (chars, i) => `${chars[i]} at ${i + 1}`;

// The label of the step's column c (c from 0).
export function columnLabel(name, chars, c) {
  if (isSquare(name)) return letterLabel(chars, c);
  return `${name === 'output' ? 'c' : name.toLowerCase()} ${c + 1}`;
}

// The handout's "abcce" (Exercise 2; "cbcce" when positions count) when the alphabet has
// its letters, else the problem's first example, else the alphabet's first three letters.
export function suggestedInput(problem) {
  const alphabet = Array.from(problem.alphabet);
  if (Array.from('abcce').every((ch) => alphabet.includes(ch))) {
    return problem.W_P ? 'cbcce' : 'abcce';
  }
  return problem.strings.examples[0] || alphabet.slice(0, 3).join('');
}

// What is wrong with the string `chars` (an array of letters) for `problem`, or ''.
export function inputProblem(problem, chars) {
  const alphabet = Array.from(problem.alphabet);
  if (chars.length === 0) return 'Type a string of at least one letter.';
  if (chars.some((ch) => !alphabet.includes(ch))) {
    return `Use only letters of "${problem.alphabet}".`;
  }
  if (problem.W_P && chars.length > problem.W_P[0].length) {
    return `At most ${problem.W_P[0].length} letters: W_P has a column per position.`;
  }
  return '';
}

// Why the steps cannot be sent yet, or '': `weightsOk` whether the matrices above are
// complete, `bad` the entries typed wrong, `given` the steps typed.
export function readiness({ weightsOk, bad, given }) {
  if (!weightsOk) return 'Fill in your matrices above first.';
  if (bad > 0) {
    return `${bad} ${bad === 1 ? 'entry is' : 'entries are'} empty or not a number (outlined); `
      + 'fill in the whole table or leave it all empty.';
  }
  if (given === 0) return 'Type at least one step.';
  return '';
}

// A table of entry texts (null for a hidden entry) as JSON, the numbers as typed.
export const matrixText = (rows) => {
  const row = (r) => `[${r.map((t) => (t === null ? 'null' : jsonLiteral(t))).join(', ')}]`;
  return `[${rows.map(row).join(', ')}]`;
};

// The body of POST …/check-steps (API.md §10): `weightParts` the weights as '"W_q": …' texts,
// `steps` [name, rows] of the steps typed, `reveal` whether correct values are asked for.
export function stepsBody({ weightParts, input, steps, reveal }) {
  const typed = steps.map(([name, rows]) => `"${name}": ${matrixText(rows)}`);
  return `{${weightParts.join(', ')}, "input": ${JSON.stringify(input)}, `
    + `"steps": {${typed.join(', ')}}${reveal ? ', "reveal": true' : ''}}`;
}

// One step's verdict in words: { correct, wrong_entries: [[row, column], …] } (from 1).
export function stepVerdict(step) {
  if (step.correct) return '✓ correct';
  const n = step.wrong_entries.length;
  const where = step.wrong_entries.map(([r, c]) => `row ${r}, column ${c}`).join('; ');
  return `✗ ${n} wrong ${n === 1 ? 'entry' : 'entries'}: ${where}`;
}

// The last line of a check: where the first slip is, or that every step typed is right.
export function checkSummary(firstWrong) {
  return firstWrong
    ? `Your first slip is in ${firstWrong}; the steps after it are judged against your own `
      + `${firstWrong}.`
    : 'Every step you typed is right.';
}
