// web/matrix_parse.js: the three paste formats a student copies from (JSON or Python, numpy,
// MATLAB), plain rows, and the sentences that say what is wrong. Run by `node --test tests/web`.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';

import { isNumberText, jsonLiteral, parseMatrixText } from '../../web/matrix_parse.js';

describe('parseMatrixText reads', () => {
  it('JSON and Python lists, trailing commas allowed', () => {
    assert.deepEqual(parseMatrixText('[[1, 1], [0, 5]]'),
      { rows: [['1', '1'], ['0', '5']], form: 'JSON' });
    assert.deepEqual(parseMatrixText('[[1, 1,], [0, 5],]'),
      { rows: [['1', '1'], ['0', '5']], form: 'JSON' });
  });

  it('numpy arrays, with or without a dtype, and the numpy prefix spelled out', () => {
    assert.deepEqual(parseMatrixText('np.array([[1, 1], [0, 5]])'),
      { rows: [['1', '1'], ['0', '5']], form: 'numpy' });
    assert.deepEqual(parseMatrixText('numpy.asarray([[0.5, -2]], dtype=float)'),
      { rows: [['0.5', '-2']], form: 'numpy' });
    assert.deepEqual(parseMatrixText('array([[1e-3, 2]])'),
      { rows: [['1e-3', '2']], form: 'numpy' });
  });

  it('MATLAB matrices, with or without commas and a closing semicolon', () => {
    assert.deepEqual(parseMatrixText('[1 1; 0 5]'),
      { rows: [['1', '1'], ['0', '5']], form: 'MATLAB' });
    assert.deepEqual(parseMatrixText('[1, 1; 0, 5];'),
      { rows: [['1', '1'], ['0', '5']], form: 'MATLAB' });
  });

  it('a flat list as one row, and bare lines of numbers', () => {
    assert.deepEqual(parseMatrixText('[0, 5]'), { rows: [['0', '5']], form: 'a list' });
    assert.deepEqual(parseMatrixText('1 1\n0 5\n'),
      { rows: [['1', '1'], ['0', '5']], form: 'rows of numbers' });
  });

  it('entries as typed, so that their decimals reach the server unchanged', () => {
    assert.deepEqual(parseMatrixText('[[.50, 1.000]]').rows, [['.50', '1.000']]);
  });
});

describe('parseMatrixText says what is wrong', () => {
  const errorOf = (text) => parseMatrixText(text).error;

  it('an empty box', () => assert.equal(errorOf('  \n'), 'the box is empty'));
  it('an unclosed call', () => {
    assert.equal(errorOf('np.array([[1, 1]]'), 'the np.array( … ) call is not closed with ")"');
  });
  it('an unclosed row and an unclosed matrix', () => {
    assert.equal(errorOf('[[1, 1], [0, 5'), 'row 2 is not closed with "]"');
    assert.equal(errorOf('[[1, 1]'), 'the matrix is not closed with "]"');
    assert.equal(errorOf('[1 1; 0 5'), 'the matrix is not closed with "]"');
  });
  it('text after the matrix, and lists deeper than rows', () => {
    assert.equal(errorOf('[[1]] x'), 'there is text after the closing "]"');
    assert.equal(errorOf('[[[1]]]'), 'a matrix has rows of numbers, not deeper lists');
  });
  it('rows of different lengths, counted in words', () => {
    assert.equal(errorOf('[1 1; 0]'),
      'row 2 has 1 number but row 1 has 2 numbers; every row needs the same count');
  });
  it('an entry that is not a number, by row and column from 1', () => {
    assert.equal(errorOf('[[1, 1], [0, five]]'), 'row 2, column 2 is "five", not a number');
  });
  it('brackets with nothing in them', () => assert.equal(errorOf('[]'), 'no numbers were found'));
});

describe('numbers as a person types them', () => {
  it('isNumberText takes signs, bare decimals and exponents, and nothing else', () => {
    for (const text of ['1', '-0.5', '+2', '.5', '5.', '1e-3', ' 7 ', '2E+4']) {
      assert.equal(isNumberText(text), true, text);
    }
    for (const text of ['', '.', '-', '1.2.3', 'e5', '0x10', 'NaN', 'Infinity', '1,5']) {
      assert.equal(isNumberText(text), false, text);
    }
  });

  it('jsonLiteral keeps the decimals typed and makes the rest valid JSON', () => {
    const cases = { '.50': '0.50', '+1.': '1', '007': '7', '-0.25': '-0.25', '1E+3': '1E3',
      '-.5e-2': '-0.5e-2', '0': '0' };
    for (const [typed, literal] of Object.entries(cases)) {
      assert.equal(jsonLiteral(typed), literal, typed);
      assert.equal(JSON.parse(literal), Number(typed), typed);
    }
  });
});

describe('numbers as copied from a PDF or a handout', () => {
  it('the Unicode minus sign (U+2212) is a minus', () => {
    assert.equal(isNumberText('\u22125'), true);
    assert.equal(jsonLiteral('\u22125'), '-5');
    assert.equal(jsonLiteral('\u22120.50'), '-0.50');
  });

  it('a simple fraction is the decimal it stands for, and a zero denominator is refused', () => {
    const cases = { '1/2': 0.5, '-1/4': -0.25, '\u22123/4': -0.75, '1/3': 1 / 3, '2.5/5': 0.5,
      '\\frac{1}{2}': 0.5, '-\\tfrac{3}{2}': -1.5 };
    for (const [typed, value] of Object.entries(cases)) {
      assert.equal(isNumberText(typed), true, typed);
      assert.equal(JSON.parse(jsonLiteral(typed)), value, typed);
    }
    for (const text of ['1/0', '1/', '/2', '1/2/3', 'a/b']) assert.equal(isNumberText(text), false, text);
  });

  it('pasted matrices may hold them, entries kept as typed', () => {
    assert.deepEqual(parseMatrixText('[[\u22125, 1/2]]'), { rows: [['\u22125', '1/2']], form: 'JSON' });
    assert.deepEqual(parseMatrixText('[1/2 \u22121; 0 5]').rows, [['1/2', '\u22121'], ['0', '5']]);
  });

  it("LaTeX's bmatrix and pmatrix, inside $…$ or \\[…\\] or bare", () => {
    assert.deepEqual(parseMatrixText('\\begin{bmatrix} 1 & 1 \\end{bmatrix}'),
      { rows: [['1', '1']], form: 'LaTeX' });
    assert.deepEqual(parseMatrixText('$\\begin{bmatrix} 1 & 0 \\\\ 0 & 1 \\end{bmatrix}$'),
      { rows: [['1', '0'], ['0', '1']], form: 'LaTeX' });
    assert.deepEqual(parseMatrixText('\\[\\begin{pmatrix}\n0 & -5 \\\\\n\\frac{1}{2} & 2 \\\\\n\\end{pmatrix}\\]'),
      { rows: [['0', '-5'], ['\\frac{1}{2}', '2']], form: 'LaTeX' });
  });

  it('says what is wrong with LaTeX', () => {
    assert.equal(parseMatrixText('\\begin{bmatrix} 1 & 1').error, 'the matrix is not closed with \\end{bmatrix}');
    assert.equal(parseMatrixText('\\begin{bmatrix} 1 & 1 \\\\ 0 \\end{bmatrix}').error,
      'row 2 has 1 number but row 1 has 2 numbers; every row needs the same count');
    assert.equal(parseMatrixText('\\begin{bmatrix} 1 & x \\end{bmatrix}').error, 'row 1, column 2 is "x", not a number');
  });
});
