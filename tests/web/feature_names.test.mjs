// web/feature_names.js: the labels of the features, from the problem's feature_names, else
// from its classes, else numbered. Run by `node --test tests/web`.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { describe, it } from 'node:test';

import { featureNames } from '../../web/feature_names.js';

const problemFile = (id) => JSON.parse(readFileSync(new URL(`../../problems/${id}.json`, import.meta.url)));

describe('featureNames', () => {
  it("uses the problem's feature_names when there is one per row of W_E", () => {
    const problem = { ...problemFile('consonant-anywhere'), feature_names: ['is a vowel', 'is a consonant'] };
    assert.deepEqual(featureNames(problem), ['is a vowel', 'is a consonant']);
  });

  it('falls back to the class whose letters set the row, as in the bundled problems', () => {
    assert.deepEqual(featureNames(problemFile('consonant-anywhere')), ['vowel', 'consonant']);
    // Exercise 3's third row is set by no letter (W_P sets it): it stays numbered.
    const first = problemFile('first-position');
    assert.equal(featureNames(first).length, first.W_E.length);
    assert.equal(featureNames(first)[2], 'feature 3');
  });

  it('numbers a feature no class matches, and ignores feature_names of the wrong length', () => {
    const problem = {
      alphabet: 'abc', classes: { x: 'ab' }, W_E: [[1, 1, 0], [0, 1, 1]], feature_names: ['only one'],
    };
    assert.deepEqual(featureNames(problem), ['x', 'feature 2']);
  });

  it('tells apart two rows that the same class sets', () => {
    const problem = { alphabet: 'ab', classes: { v: 'a' }, W_E: [[1, 0], [2, 0]] };
    assert.deepEqual(featureNames(problem), ['v (feature 1)', 'v (feature 2)']);
  });
});
