// web/step_logic.js: "Check my steps" without the page. The handout's Exercise 2 (Part C) uses
// the string "abcce"; the body's shape is API.md §10's.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';

import {
  STEPS, checkSummary, columnLabel, columnsOf, inputProblem, readiness, stepVerdict,
  stepsBody, suggestedInput,
} from '../../web/step_logic.js';

const plain = { alphabet: 'abcde', strings: { examples: ['dd'] } };
const positional = { ...plain, W_P: [[1, 2, 3, 4, 5, 6]] };

describe('the steps', () => {
  it('are the handout order of Part C, by their names in the API', () => {
    assert.deepEqual(STEPS.map(([name]) => name),
      ['Q', 'K', 'V', 'scores', 'masked_scores', 'attention', 'output']);
  });

  it('have a column per letter for the query-by-key steps, n_q or n_v columns otherwise', () => {
    const cols = STEPS.map(([name]) => columnsOf(name, 5, 2, 3));
    assert.deepEqual(cols, [2, 2, 3, 5, 5, 5, 3]);
  });

  it('label columns by letter and position, or by component', () => {
    const chars = Array.from('abcce');
    assert.equal(columnLabel('attention', chars, 3), 'c at 4');
    assert.equal(columnLabel('Q', chars, 0), 'q 1');
    assert.equal(columnLabel('V', chars, 1), 'v 2');
    assert.equal(columnLabel('output', chars, 1), 'c 2');
  });
});

describe('the string suggested', () => {
  it('is the handout\'s "abcce", or "cbcce" when positions count', () => {
    assert.equal(suggestedInput(plain), 'abcce');
    assert.equal(suggestedInput(positional), 'cbcce');
  });

  it('is the first example, else three letters, when the alphabet lacks the handout\'s', () => {
    assert.equal(suggestedInput({ alphabet: 'xyz', strings: { examples: ['zy'] } }), 'zy');
    assert.equal(suggestedInput({ alphabet: 'wxyz', strings: { examples: [] } }), 'wxy');
  });
});

describe('what stops a check', () => {
  it('an empty string, a letter outside the alphabet, a string longer than W_P', () => {
    assert.equal(inputProblem(plain, []), 'Type a string of at least one letter.');
    assert.equal(inputProblem(plain, Array.from('abz')), 'Use only letters of "abcde".');
    assert.equal(inputProblem(positional, Array.from('abcdeab')),
      'At most 6 letters: W_P has a column per position.');
    assert.equal(inputProblem(positional, Array.from('abcdea')), '');
  });

  it('the matrices above first, then the entries typed wrong, then no step at all', () => {
    assert.equal(readiness({ weightsOk: false, bad: 2, given: 0 }),
      'Fill in your matrices above first.');
    assert.equal(readiness({ weightsOk: true, bad: 1, given: 1 }),
      '1 entry is empty or not a number (outlined); fill in the whole table or leave it all '
        + 'empty.');
    assert.match(readiness({ weightsOk: true, bad: 3, given: 2 }), /^3 entries are empty/);
    assert.equal(readiness({ weightsOk: true, bad: 0, given: 0 }), 'Type at least one step.');
    assert.equal(readiness({ weightsOk: true, bad: 0, given: 1 }), '');
  });
});

describe('the request', () => {
  it('is the JSON of API.md §10, with the numbers as typed and hidden entries as null', () => {
    const text = stepsBody({
      weightParts: ['"W_q": [[1, 1]]', '"W_k": [[0, 5]]'],
      input: 'ab',
      steps: [['Q', [['1', '.50']]], ['masked_scores', [['0', null], ['+2.', '3']]]],
      reveal: true,
    });
    assert.deepEqual(JSON.parse(text), {
      W_q: [[1, 1]],
      W_k: [[0, 5]],
      input: 'ab',
      steps: { Q: [[1, 0.5]], masked_scores: [[0, null], [2, 3]] },
      reveal: true,
    });
    assert.ok(text.includes('"Q": [[1, 0.50]]'), text);
  });

  it('leaves "reveal" out unless asked, and quotes the string as JSON', () => {
    const text = stepsBody({ weightParts: [], input: 'a"b', steps: [], reveal: false });
    assert.equal(text, '{, "input": "a\\"b", "steps": {}}');
  });
});

describe('the verdict in words', () => {
  it('a correct step, and wrong entries by row and column', () => {
    assert.equal(stepVerdict({ correct: true, wrong_entries: [] }), '✓ correct');
    assert.equal(stepVerdict({ correct: false, wrong_entries: [[2, 3]] }),
      '✗ 1 wrong entry: row 2, column 3');
    assert.equal(stepVerdict({ correct: false, wrong_entries: [[1, 1], [4, 2]] }),
      '✗ 2 wrong entries: row 1, column 1; row 4, column 2');
  });

  it('names the first slip, or says every step is right', () => {
    assert.equal(checkSummary('scores'),
      'Your first slip is in scores; the steps after it are judged against your own scores.');
    assert.equal(checkSummary(null), 'Every step you typed is right.');
  });
});
