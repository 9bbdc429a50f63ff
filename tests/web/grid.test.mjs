// web/grid.js's one pure function: the precision the page shows numbers at.
import assert from 'node:assert/strict';
import { it } from 'node:test';

import { formatNumber } from '../../web/grid.js';

it('shows whole numbers as they are, others to 4 decimals, a hidden entry as a dash', () => {
  assert.equal(formatNumber(3), '3');
  assert.equal(formatNumber(-12), '-12');
  assert.equal(formatNumber(0.5), '0.5000');
  assert.equal(formatNumber(2 / 3), '0.6667');
  assert.equal(formatNumber(null), '–');
  assert.equal(formatNumber(undefined), '–');
});

it('never shows "-0.0000" for a tiny negative number', () => {
  assert.equal(formatNumber(-0.00001), '0.0000');
  assert.equal(formatNumber(-0.00005), '-0.0001');
});
