// web/colors.js: the result tables' scales. The contrast is computed here again from WCAG 2's
// definitions (relative luminance, contrast ratio), not taken from the module.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';

import {
  diverging, divergingGradient, sequential, sequentialGradient,
} from '../../web/colors.js';

function channel(hexPair) {
  const c = parseInt(hexPair, 16) / 255;
  return c <= 0.03928 ? c / 12.92 : ((c + 0.055) / 1.055) ** 2.4;
}
function relativeLuminance(css) {
  const [r, g, b] = [1, 3, 5].map((i) => channel(css.slice(i, i + 2)));
  return 0.2126 * r + 0.7152 * g + 0.0722 * b;
}
function contrast(a, b) {
  const [hi, lo] = [relativeLuminance(a), relativeLuminance(b)].sort((x, y) => y - x);
  return (hi + 0.05) / (lo + 0.05);
}

describe('the sequential scale (attention weights)', () => {
  it('runs from cividis dark blue at 0 to its yellow at 1, through its grey at 0.5', () => {
    assert.equal(sequential(0).background, '#00224e');
    assert.equal(sequential(0.5).background, '#707173');
    assert.equal(sequential(1).background, '#fee838');
  });

  it('clamps weights outside 0..1', () => {
    assert.deepEqual(sequential(-3), sequential(0));
    assert.deepEqual(sequential(7), sequential(1));
  });

  it('mixes linearly between samples: 1/16 is halfway from the first to the second', () => {
    // (0x00 + 0x12) / 2 = 0x09, (0x22 + 0x35) / 2 = 0x2b.5 -> 0x2c, (0x4e + 0x70) / 2 = 0x5f.
    assert.equal(sequential(1 / 16).background, '#092c5f');
  });
});

describe('the diverging scale (signed matrices)', () => {
  it('is near-white at 0, blue at -extent and orange at +extent', () => {
    assert.equal(diverging(0, 4).background, '#f7f7f7');
    assert.equal(diverging(-4, 4).background, '#2166ac');
    assert.equal(diverging(4, 4).background, '#b35806');
    assert.equal(diverging(-40, 4).background, '#2166ac');
  });

  it('treats every number as 0 when the matrix is all zeros (extent 0)', () => {
    assert.equal(diverging(3, 0).background, '#f7f7f7');
  });
});

describe('text on a cell', () => {
  const samples = [];
  for (let i = 0; i <= 100; i += 1) {
    samples.push(sequential(i / 100), diverging(i - 50, 50));
  }

  it('is black or white, whichever contrasts more', () => {
    for (const { background, color } of samples) {
      const other = color === '#000000' ? '#ffffff' : '#000000';
      assert.ok(contrast(background, color) >= contrast(background, other), background);
    }
  });

  it('contrasts at least 4.5:1 on every colour of both scales', () => {
    for (const { background, color } of samples) {
      assert.ok(contrast(background, color) >= 4.5, `${color} on ${background}`);
    }
  });
});

describe('the legends', () => {
  it('show every sample of the sequential scale at its place', () => {
    const gradient = sequentialGradient();
    assert.ok(gradient.startsWith('linear-gradient(to right, #00224e 0%, #123570 12.5%'));
    assert.ok(gradient.endsWith('#fee838 100%)'));
  });

  it('show the diverging scale as blue, white, orange', () => {
    assert.equal(divergingGradient(), 'linear-gradient(to right, #2166ac, #f7f7f7, #b35806)');
  });
});
