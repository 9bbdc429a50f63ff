// The student page's "Check my steps" (API.md §10) in headless Chromium against the real server
// binary: a wrong entry is found and the later steps judged against it, masked cells are fixed,
// and a number is right when it is the true value rounded to its decimals, as the help says.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import AxeBuilder from '@axe-core/playwright';
import {
  HANDOUT, cellTexts, enterMatrices, openPage, selectProblem, serverAndBrowser,
} from './harness.mjs';

const running = serverAndBrowser();

describe('check my steps', () => {
  test('a planted wrong entry in K is found and the later steps are judged against it', async () => {
    const { page } = await openPage(running.browser.context, running.server.origin);
    await selectProblem(page, 'consonant-anywhere');
    await enterMatrices(page, HANDOUT['consonant-anywhere']);
    await page.fill('#steps-input', 'abc');
    const type = async (step, rows) => {
      for (const [r, row] of rows.entries()) {
        for (const [c, text] of row.entries()) {
          if (text !== null) await page.fill(`#step-${step} input[data-row="${r}"][data-col="${c}"]`, text);
        }
      }
    };
    // K's second entry typed 4 (it is 5); the scores follow from that K, the mask too.
    await type('Q', [['1'], ['1'], ['1']]);
    await type('K', [['0'], ['4'], ['5']]);
    await type('scores', [['0', '4', '5'], ['0', '4', '5'], ['0', '4', '5']]);
    await type('masked_scores', [['0', null, null], ['0', '4', null], ['0', '4', '5']]);
    // Softmax rows of [0], [0, 4], [0, 4, 5] (by hand: 1/(1+e^4) = 0.0180, …).
    await type('attention', [['1', null, null], ['0.0180', '0.9820', null], ['0.0049', '0.2676', '0.7275']]);
    await page.check('#steps-reveal');
    await page.click('#check-steps');
    await page.waitForFunction(() => /first slip/.test(document.getElementById('steps-status').textContent));
    assert.equal(await page.textContent('#steps-status'), 'Your first slip is in K; the steps after it are judged against your own K.');
    assert.match(await page.getAttribute('#step-K input[data-row="1"][data-col="0"]', 'class'), /wrong/);
    assert.doesNotMatch(await page.getAttribute('#step-K input[data-row="0"][data-col="0"]', 'class') || '', /wrong/);
    assert.equal(await page.textContent('#step-status-K'), '✗ 1 wrong entry: row 2, column 1');
    for (const step of ['Q', 'scores', 'masked_scores', 'attention']) assert.equal(await page.textContent(`#step-status-${step}`), '✓ correct', step);
    assert.deepEqual(await cellTexts(page, '#revealed-K'), [['0'], ['5'], ['5']]);
    const axe = await new AxeBuilder({ page }).withTags(['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa']).analyze();
    assert.deepEqual(axe.violations.map((v) => v.id), []);
    await page.close();
  });
});

describe('check my steps: the mask fixed, the rounding rule as the help says, no stale reason', () => {
  test('masked attention cells are 0 already; a number is right when it is the true value rounded to its decimals', async () => {
    const { page } = await openPage(running.browser.context, running.server.origin);
    await selectProblem(page, 'consonant-anywhere');
    await enterMatrices(page, HANDOUT['consonant-anywhere']);
    assert.equal(await page.inputValue('#steps-input'), 'abcce');
    // The mask hides keys after the query: 10 of the 25 cells for "abcce", fixed at 0.
    const fixed = await page.$$eval('#step-attention td.fixed', (cells) => cells.map((td) => td.textContent));
    assert.deepEqual(fixed, Array(10).fill('0'));
    assert.equal(await page.$$eval('#step-attention input', (inputs) => inputs.length), 15);
    assert.match(await page.textContent('#steps .help'), /rounded to the decimals you typed \(0\.3 for 0\.3326, 0 for 0\.0034\)/);
    // The attention of "abcce" computed here from the handout's W_q = [1 1], W_k = [0 5]:
    // the key is 5 on a consonant, 0 on a vowel, and a causal softmax of the query's scores.
    const keys = Array.from('abcce', (ch) => ('aeiou'.includes(ch) ? 0 : 5));
    const attention = keys.map((_, q) => {
      const e = keys.slice(0, q + 1).map((k) => Math.exp(k));
      const sum = e.reduce((a, b) => a + b, 0);
      return e.map((x) => x / sum);
    });
    assert.ok(Math.abs(attention[2][0] - 0.0034) < 5e-5, String(attention[2][0]));
    // Each typed rounded to a different number of decimals: 0 for the first column (so "0"
    // for 0.0034), 0 to 3 elsewhere.
    const typed = attention.map((row, r) => row.map((x, c) => x.toFixed(c === 0 ? 0 : (r + c) % 4)));
    assert.equal(typed[2][0], '0');
    for (const [r, row] of typed.entries()) {
      for (const [c, text] of row.entries()) {
        await page.fill(`#step-attention input[data-row="${r}"][data-col="${c}"]`, text);
        if (r === 0 && c === 0) {
          // One entry typed of fifteen: the button says why it waits.
          assert.match(await page.textContent('#steps-status'), /^14 entries are empty/);
        }
      }
    }
    // Every entry filled: the reason is gone with it.
    assert.equal(await page.textContent('#steps-status'), '');
    assert.equal(await page.isDisabled('#check-steps'), false);
    await page.click('#check-steps');
    await page.waitForFunction(() => /right|slip/.test(document.getElementById('steps-status').textContent));
    assert.equal(await page.textContent('#step-status-attention'), '✓ correct');
    assert.equal(await page.textContent('#steps-status'), 'Every step you typed is right.');
    // A rounding that is not the true value's is wrong: 1 for 0.0034.
    await page.fill('#step-attention input[data-row="2"][data-col="0"]', '1');
    await page.click('#check-steps');
    await page.waitForFunction(() => /slip/.test(document.getElementById('steps-status').textContent));
    assert.equal(await page.textContent('#step-status-attention'), '✗ 1 wrong entry: row 3, column 1');
    await page.close();
  });
});
