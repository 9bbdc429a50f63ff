// The student page (API.md §10) in headless Chromium against the real server binary, made for
// people: the keyboard alone works, axe finds no WCAG 2 A/AA violation, a 360 px screen needs
// no sideways scrolling, and the result panel looks as its committed screenshot.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, test } from 'node:test';
import AxeBuilder from '@axe-core/playwright';
import {
  SOFT_KEY, comparePngs, enterMatrices, openPage, repo, resultPanelShot, selectProblem, showSoftKeyResult, shown, serverAndBrowser,
} from './harness.mjs';

const running = serverAndBrowser();

describe('made for people', () => {
  test('the keyboard alone: Tab box to box, Enter grades, one tab stop per result table, Enter selects a query row', async () => {
    const { page, requests } = await openPage(running.browser.context, running.server.origin);
    await selectProblem(page, 'consonant-anywhere');
    const focused = () => page.evaluate(() => document.activeElement.getAttribute('aria-label'));
    // W_E is one tab stop: from its cell, Tab goes on to W_q's first box.
    await page.focus('#table-W_E td[tabindex="0"]');
    await page.keyboard.press('ArrowRight');
    assert.equal(await focused(), 'W_E, vowel, b: 0');
    await page.keyboard.press('Tab');
    assert.equal(await focused(), 'W_q row 1, vowel');
    // As in a spreadsheet: 1, Tab, 1 fills both boxes; Shift+Tab goes back one box.
    await page.keyboard.type('1');
    await page.keyboard.press('Tab');
    assert.equal(await focused(), 'W_q row 1, consonant');
    await page.keyboard.type('1');
    assert.deepEqual(await page.$$eval('#matrix-W_q input', (inputs) => inputs.map((i) => i.value)), ['1', '1']);
    await page.keyboard.press('Shift+Tab');
    assert.equal(await focused(), 'W_q row 1, vowel');
    await page.keyboard.press('ArrowRight');
    assert.equal(await focused(), 'W_q row 1, consonant');
    // After the last box of a matrix, its row buttons.
    await page.keyboard.press('Tab');
    assert.equal(await page.evaluate(() => document.activeElement.textContent), 'Add a row');
    await enterMatrices(page, { W_k: SOFT_KEY.W_k, W_V: SOFT_KEY.W_V });
    // Enter in a box grades.
    await page.focus('input[aria-label="W_V row 2, consonant"]');
    await page.keyboard.press('Enter');
    await page.waitForSelector('#heatmap');
    assert.equal(requests.filter((r) => r.url.endsWith('/grade')).length, 1);
    await page.focus('#heatmap td[tabindex="0"]');
    await page.keyboard.press('ArrowDown');
    assert.equal(await page.evaluate(() => document.activeElement.getAttribute('aria-label')).then((l) => l.startsWith('query b at 2, key a at 1')), true);
    await page.keyboard.press('Enter');
    const selected = await page.$$eval('#failure-detail tr.selected', (rows) => rows.map((r) => r.closest('table').id));
    for (const id of ['heatmap', 'stage-Q', 'stage-K', 'stage-attention', 'stage-output', 'compare']) assert.ok(selected.includes(id), id);
    assert.equal(await page.textContent('#row-note'), 'Query b at 2 is highlighted in every table.');
    await page.close();
  });

  test('axe finds no WCAG 2 A or AA violation, before and after a failing grade (its named mistakes shown)', async () => {
    const { page } = await openPage(running.browser.context, running.server.origin);
    const tags = ['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa'];
    let result = await new AxeBuilder({ page }).withTags(tags).analyze();
    assert.deepEqual(result.violations.map((v) => `${v.id}: ${v.nodes.map((n) => n.target).join(' ')}`), []);
    await showSoftKeyResult(page);
    assert.ok(await page.isVisible('#diagnosis'), 'the soft key is diagnosed (API.md §13), so axe sees that panel too');
    result = await new AxeBuilder({ page }).withTags(tags).analyze();
    assert.deepEqual(result.violations.map((v) => `${v.id}: ${v.nodes.map((n) => n.target).join(' ')}`), []);
    await page.close();
  });

  test('readable at 360 px: the page itself never scrolls sideways', async () => {
    const { page } = await openPage(running.browser.context, running.server.origin);
    await page.setViewportSize({ width: 360, height: 740 });
    await showSoftKeyResult(page);
    assert.ok(await page.evaluate(() => document.documentElement.scrollWidth <= 360));
    await page.close();
  });
});

describe('looks', () => {
  test('the result panel matches the committed screenshot within a small pixel tolerance', async () => {
    const { page } = await openPage(running.browser.context, running.server.origin);
    await showSoftKeyResult(page);
    const now = await resultPanelShot(page);
    const baseline = readFileSync(join(repo, 'tests/browser/baseline/result-panel.png'));
    const diff = await comparePngs(running.browser.context, baseline, now);
    assert.ok(Math.abs(diff.width - diff.other[0]) <= 2 && Math.abs(diff.height - diff.other[1]) <= 2,
      `the panel is ${diff.other.join(' × ')}, the baseline ${diff.width} × ${diff.height}; rerun make-baseline.mjs if that is meant`);
    assert.ok(diff.differing <= diff.width * diff.height * 0.005, `${diff.differing} of ${diff.width * diff.height} pixels differ`);
    await page.close();
  });
});
