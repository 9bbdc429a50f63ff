// The student page (API.md §10) in headless Chromium against the real server binary tells the
// truth at every moment: a result the matrices no longer answer is marked out of date, errors
// go as soon as the matrix is edited, nothing is red before the student acts, numbers are read
// as copied, and the layout keeps the result in view on every screen.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import AxeBuilder from '@axe-core/playwright';
import {
  HANDOUT, enterMatrices, openPage, selectProblem, showSoftKeyResult, serverAndBrowser,
} from './harness.mjs';

const running = serverAndBrowser();

describe('the page tells the truth at every moment', () => {
  const axeTags = ['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa'];
  const violations = async (page) => (await new AxeBuilder({ page }).withTags(axeTags).analyze()).violations.map((v) => `${v.id}: ${v.nodes.map((n) => n.target).join(' ')}`);
  const focusedLabel = (page) => page.evaluate(() => document.activeElement.getAttribute('aria-label'));
  const values = (page, name) => page.$$eval(`#matrix-${name} tbody tr`, (rows) => rows.map((tr) => Array.from(tr.querySelectorAll('input'), (i) => i.value)));

  // Grades the handout's answer, then pastes a W_q of the wrong shape: {page, requests}.
  async function gradedThenBroken(beforeBreaking = async () => {}) {
    const opened = await openPage(running.browser.context, running.server.origin);
    const { page } = opened;
    await selectProblem(page, 'consonant-anywhere');
    await enterMatrices(page, HANDOUT['consonant-anywhere']);
    await page.click('#grade');
    await page.waitForSelector('#verdict');
    await beforeBreaking(page);
    await page.fill('#paste-W_q', '[[1, 1, 1]]');
    return opened;
  }

  test('a result the matrices no longer answer is marked out of date; a refused grading says why beside Grade and links to the box', async () => {
    const { page } = await gradedThenBroken(async (graded) => {
      assert.equal(await graded.isVisible('#result-stale'), false, 'not yet: the result answers what is on screen');
      assert.equal(await graded.textContent('#result-title'), '3. Result');
    });
    // Changed: the result is marked out of date at once, visibly and in its heading.
    const stale = await page.textContent('#result-stale');
    assert.equal(await page.isVisible('#result-stale'), true);
    assert.match(stale, /^Out of date/);
    assert.equal(await page.textContent('#result-title'), '3. Result (out of date)');
    const answered = page.waitForResponse((r) => r.url().endsWith('/grade'));
    await page.click('#grade');
    const refused = await answered;
    assert.equal(refused.status(), 400);
    const error = (await refused.json()).error;
    await page.waitForFunction(() => /^Not graded/.test(document.getElementById('grade-status').textContent));
    // Beside Grade: the server's message and a link to the matrix it names.
    assert.equal(await page.textContent('#grade-status'), `Not graded: ${error.message}. Go to W_q`);
    assert.equal(await page.textContent('#error-W_q'), error.message);
    assert.equal(await page.isVisible('#result-stale'), true, 'the old result stays marked out of date');
    assert.deepEqual(await violations(page), []);
    await page.click('#grade-status a');
    assert.equal(await focusedLabel(page), 'W_q row 1, vowel');
    assert.ok(await page.evaluate(() => {
      const box = document.activeElement.getBoundingClientRect();
      return box.top >= 0 && box.bottom <= window.innerHeight;
    }), 'the box is scrolled into view');
    // The matrices back as graded: the result answers them again.
    await page.fill('#paste-W_q', '[[1, 1]]');
    assert.equal(await page.isVisible('#result-stale'), false);
    assert.equal(await page.textContent('#result-title'), '3. Result');
    await page.close();
  });

  test("the server's error and red outline go as soon as the matrix is edited; the paste box follows the boxes", async () => {
    const { page } = await gradedThenBroken();
    await page.click('#grade');
    await page.waitForSelector('#error-W_q:not(:empty)');
    assert.match(await page.getAttribute('#matrix-W_q table', 'class'), /server-error/);
    // One box edited (a third column is still there): the server's verdict no longer holds.
    await page.fill('input[aria-label="W_q row 1, feature 3"]', '0');
    assert.equal(await page.textContent('#error-W_q'), '');
    assert.doesNotMatch(await page.getAttribute('#matrix-W_q table', 'class'), /server-error/);
    assert.doesNotMatch(await page.textContent('#grade-status'), /Not graded/);
    // The paste box shows what the boxes hold, whichever was edited last.
    assert.equal(await page.inputValue('#paste-W_q'), '[[1, 1, 0]]');
    await page.fill('input[aria-label="W_q row 1, vowel"]', '2');
    assert.equal(await page.inputValue('#paste-W_q'), '[[2, 1, 0]]');
    await page.fill('#paste-W_q', '[[1, 5]]');
    assert.deepEqual(await values(page, 'W_q'), [['1', '5']]);
    // A paste not understood leaves the boxes as they were and says so.
    await page.fill('#paste-W_q', '[[1, 5');
    assert.deepEqual(await values(page, 'W_q'), [['1', '5']]);
    assert.match(await page.textContent('#echo-W_q'), /^Not understood: .*The boxes above still hold your last W_q\.$/);
    await page.close();
  });

  test('no red before the first edit or Grade; Grade with empty boxes outlines them all', async () => {
    const { page, requests } = await openPage(running.browser.context, running.server.origin);
    await selectProblem(page, 'consonant-anywhere');
    assert.equal(await page.$$eval('#matrices input.invalid', (inputs) => inputs.length), 0);
    assert.equal(await page.textContent('#grade-status'), 'Fill in the 8 boxes to grade.');
    await page.fill('input[aria-label="W_q row 1, vowel"]', '1');
    assert.equal(await page.$$eval('#matrices input.invalid', (inputs) => inputs.length), 0, 'boxes not yet reached are not red');
    await page.click('#grade');
    assert.equal(await page.$$eval('#matrices input.invalid', (inputs) => inputs.length), 7);
    assert.equal(requests.filter((r) => r.url.endsWith('/grade')).length, 0);
    assert.equal(await page.evaluate(() => document.activeElement.textContent), 'Go to the first');
    await page.keyboard.press('Enter');
    assert.equal(await focusedLabel(page), 'W_q row 1, consonant');
    await page.close();
  });

  test('numbers as copied: Unicode minus, fractions and LaTeX bmatrix', async () => {
    const { page, requests } = await openPage(running.browser.context, running.server.origin);
    await selectProblem(page, 'consonant-anywhere');
    await page.fill('#paste-W_q', '\\begin{bmatrix} 1 & 1 \\end{bmatrix}');
    assert.deepEqual(await values(page, 'W_q'), [['1', '1']]);
    assert.match(await page.textContent('#echo-W_q'), /^Read as LaTeX: 1 × 2/);
    // "−5/5" as from a PDF: a Unicode minus and a fraction, kept as typed in its box.
    await page.fill('#paste-W_k', '[[\u22125/5, 10/2]]');
    assert.deepEqual(await values(page, 'W_k'), [['\u22125/5', '10/2']]);
    assert.equal(await page.textContent('#echo-W_k'), 'Read as JSON: 1 × 2, [[-1, 5]]');
    await page.fill('#paste-W_V', '[1 0; 0 1]');
    await page.fill('input[aria-label="W_V row 2, consonant"]', '\u22121');
    assert.equal(await page.$$eval('#matrices input.invalid', (inputs) => inputs.length), 0);
    const answered = page.waitForResponse((r) => r.url().endsWith('/grade'));
    await page.click('#grade');
    assert.equal((await answered).status(), 200);
    const sent = JSON.parse(requests.find((r) => r.url.endsWith('/grade')).body);
    assert.deepEqual([sent.W_q, sent.W_k, sent.W_V], [[[1, 1]], [[-1, 5]], [[1, 0], [0, -1]]]);
    await page.close();
  });

  test('a phone shows a cue where a table is wider than the screen, a desktop none', async () => {
    const { page } = await openPage(running.browser.context, running.server.origin);
    await page.setViewportSize({ width: 390, height: 844 });
    await showSoftKeyResult(page);
    const cues = () => page.$$eval('.scroll-cue', (notes) => notes.filter((n) => n.getClientRects().length > 0).map((n) => {
      const box = n.nextElementSibling;
      return { text: n.textContent, wide: box.scrollWidth > box.clientWidth };
    }));
    const narrow = await cues();
    assert.ok(narrow.length > 0, 'the output is wider than a phone');
    assert.ok(narrow.every((c) => c.wide && /scroll sideways/.test(c.text)), JSON.stringify(narrow));
    assert.ok(await page.evaluate(() => {
      const compare = document.getElementById('compare').closest('.scroll');
      return compare.scrollWidth <= compare.clientWidth || compare.previousElementSibling.classList.contains('scroll-cue');
    }));
    await page.setViewportSize({ width: 1600, height: 900 });
    await page.waitForFunction(() => Array.from(document.querySelectorAll('.scroll')).every((box) => box.scrollWidth <= box.clientWidth + 1 || box.previousElementSibling?.classList.contains('scroll-cue')));
    const wide = await cues();
    assert.ok(wide.length < narrow.length, `${wide.length} cues on a desktop, ${narrow.length} on a phone`);
    await page.close();
  });

  test('on a wide screen the result is beside the matrices and in view with Grade and the last box', async () => {
    const { page } = await openPage(running.browser.context, running.server.origin);
    await page.setViewportSize({ width: 1280, height: 800 });
    await showSoftKeyResult(page);
    const layout = await page.evaluate(() => {
      document.getElementById('grade').scrollIntoView({ block: 'center' });
      const rect = (id) => document.getElementById(id).getBoundingClientRect();
      const inView = (r) => r.top >= 0 && r.bottom <= window.innerHeight && r.left >= 0 && r.right <= window.innerWidth;
      return {
        side: rect('result-section').left >= rect('matrices').right,
        grade: inView(rect('grade')),
        verdict: inView(rect('verdict')),
        boxes: inView(Array.from(document.querySelectorAll('#matrices input')).pop().getBoundingClientRect()),
      };
    });
    assert.deepEqual(layout, { side: true, grade: true, verdict: true, boxes: true });
    assert.deepEqual(await violations(page), []);
    // A phone: one column, the result under the matrices.
    await page.setViewportSize({ width: 390, height: 844 });
    assert.ok(await page.evaluate(() => document.getElementById('result-section').getBoundingClientRect().top >= document.getElementById('grade').getBoundingClientRect().bottom));
    await page.close();
  });
});
