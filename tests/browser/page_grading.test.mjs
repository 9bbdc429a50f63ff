// The student page (API.md §10) in headless Chromium against the real server binary, serving and
// grading: the page and its files answer with their types and caching headers, what a student
// sees is what the server answered, nothing leaves the origin, bad input costs no attempt and a
// refused one says why next to the matrix it names.
import assert from 'node:assert/strict';
import { copyFileSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, test } from 'node:test';
import {
  HANDOUT, apiPost, cellTexts, enterMatrices, openPage, repo, selectProblem, showSoftKeyResult, shown,
  serverAndBrowser, startServer,
} from './harness.mjs';

const running = serverAndBrowser();

const parseMatrix = (text) => JSON.parse(text.replace(/np\.array\((.*)\)/, '$1').replace(/^\[([^[].*)\]$/, (_, body) => `[${body.split(';').map((row) => `[${row.trim().split(/\s+/).join(',')}]`).join(',')}]`));

describe('serving', () => {
  test('the page, its files and unknown files answer with their types and caching headers', async () => {
    const page = await fetch(`${running.server.origin}/`);
    assert.equal(page.status, 200);
    assert.equal(page.headers.get('content-type'), 'text/html; charset=utf-8');
    assert.equal(page.headers.get('cache-control'), 'no-cache');
    assert.match(page.headers.get('content-security-policy'), /default-src 'self'/);
    const etag = page.headers.get('etag');
    assert.match(etag, /^"[0-9a-f]{16}"$/);
    const again = await fetch(`${running.server.origin}/`, { headers: { 'If-None-Match': etag } });
    assert.equal(again.status, 304);
    const script = await fetch(`${running.server.origin}/static/app.js`);
    assert.equal(script.headers.get('content-type'), 'text/javascript; charset=utf-8');
    assert.equal(script.headers.get('x-content-type-options'), 'nosniff');
    const style = await fetch(`${running.server.origin}/static/style.css`);
    assert.equal(style.headers.get('content-type'), 'text/css; charset=utf-8');
    const missing = await fetch(`${running.server.origin}/static/nothing.js`);
    assert.equal(missing.status, 404);
    assert.equal((await missing.json()).error.code, 'not_found');
    const post = await fetch(`${running.server.origin}/`, { method: 'POST' });
    assert.equal(post.status, 405);
    assert.equal(post.headers.get('allow'), 'GET, HEAD');
  });
});

describe('grading from the page', () => {
  for (const [problem, matrices] of Object.entries(HANDOUT)) {
    test(`the handout's answer to ${problem} passes and the page shows the server's numbers`, async () => {
      const { page, foreign, errors, requests } = await openPage(running.browser.context, running.server.origin);
      await selectProblem(page, problem);
      await enterMatrices(page, matrices);
      await page.click('#grade');
      await page.waitForSelector('#verdict');
      const body = Object.fromEntries(Object.entries(matrices).map(([k, v]) => [k, parseMatrix(v)]));
      const answer = (await apiPost(running.server.origin, `/v1/problems/${problem}/grade`, body)).body;
      assert.equal(answer.passed, true);
      assert.equal(await page.textContent('#verdict'), `${answer.tests.passed} of ${answer.tests.total} tested strings pass`);
      // The verdict itself is announced (a live region), and the keyboard is on the result.
      assert.equal(await page.getAttribute('#grade-status', 'role'), 'status');
      assert.equal(await page.textContent('#grade-status'), `Graded: ${answer.tests.passed} of ${answer.tests.total} tested strings pass. Your head passes this problem.`);
      assert.equal(await page.evaluate(() => document.activeElement.id), 'result-title');
      const examples = await cellTexts(page, '#examples');
      answer.examples.forEach((example, r) => {
        Array.from(example.input).forEach((ch, i) => assert.equal(examples[r][i], `${ch} ✓`));
      });
      assert.equal(await page.$('#failures'), null);
      // The margin in words, with the server's numbers (an object: API.md §13).
      const shown = await page.$('#margin');
      assert.ok(shown, `a passing head's margin is shown; the answer has ${JSON.stringify(answer.margin)}`);
      const four = (x) => (Number.isInteger(x) ? String(x) : x.toFixed(4));
      const { worst_error: worst, slack, tolerance, score_gap: gap } = answer.margin;
      assert.equal(await shown.textContent(),
        `Margin: your worst position is off by ${four(worst)}, ${four(slack)} inside the tolerance ${String(tolerance)}.` +
        (gap === undefined ? '' : ` Each query's highest score leads its next by at least ${four(gap)}.`));
      assert.deepEqual(foreign, []);
      assert.deepEqual(errors, []);
      assert.ok(requests.every((r) => r.url.startsWith(running.server.origin)));
      await page.close();
    });
  }

  test('a key too soft fails on "ab": heatmap 2 × 2, upper cell masked, rows summing to 1, named mistake key_too_soft', async () => {
    const { page, foreign, errors } = await openPage(running.browser.context, running.server.origin);
    await showSoftKeyResult(page);
    const answer = (await apiPost(running.server.origin, '/v1/problems/consonant-anywhere/grade', { W_q: [[1, 1]], W_k: [[0, 2]], W_V: [[1, 0], [0, 1]] })).body;
    const failure = answer.failures[0];
    assert.equal(failure.input, 'ab');
    assert.equal(await page.textContent('#verdict'), `${answer.tests.passed} of ${answer.tests.total} tested strings pass`);
    const heat = await cellTexts(page, '#heatmap');
    assert.equal(heat.length, 2);
    assert.ok(heat.every((row) => row.length === 2));
    assert.equal(heat[0][1], '–');
    assert.equal(await page.getAttribute('#heatmap tbody tr:nth-child(1) td:nth-of-type(2)', 'class'), 'masked');
    assert.deepEqual(heat, failure.trace.attention.map((row, i) => row.map((x, j) => (failure.trace.masked_scores[i][j] === null ? '–' : shown(x)))));
    for (const row of heat) {
      const sum = row.filter((t) => t !== '–').reduce((s, t) => s + Number(t), 0);
      assert.ok(Math.abs(sum - 1) <= 1e-4, `row sums to ${sum}`);
    }
    assert.equal(await page.getAttribute('#heatmap tbody tr:nth-child(2) td:nth-of-type(1)', 'aria-label'), `query b at 2, key a at 1: ${shown(failure.trace.attention[1][0])}`);
    // Expected against output, the wrong entry marked; every stage of the strip as answered.
    const compare = await cellTexts(page, '#compare');
    assert.deepEqual(compare[1], [shown(failure.expected[1][0]), shown(failure.output[1][0]), shown(failure.expected[1][1]), shown(failure.output[1][1])]);
    assert.equal(await page.getAttribute('#compare tbody tr:nth-child(2) td:nth-of-type(2)', 'class'), 'wrong');
    for (const key of ['embeddings', 'Q', 'K', 'V', 'scores', 'masked_scores', 'attention', 'output']) {
      assert.deepEqual(await cellTexts(page, `#stage-${key}`), failure.trace[key].map((row, i) => row.map((x, j) => (key === 'attention' && failure.trace.masked_scores[i][j] === null ? '–' : shown(x)))), key);
    }
    assert.match(await page.textContent('#stage-Q caption'), /\(2 × 1\)/);
    // The examples: ✓/✗ per position as the answer's numbers say.
    const examples = await cellTexts(page, '#examples');
    answer.examples.forEach((example, r) => {
      Array.from(example.input).forEach((ch, i) => {
        const ok = example.expected[i].every((x, c) => Math.abs(example.output[i][c] - x) <= 0.1);
        assert.equal(examples[r][i], `${ch} ${ok ? '✓' : '✗'}`);
      });
    });
    // The named mistakes (API.md §13): a key that only needs to be larger is proved too soft;
    // each is shown under a plain title with the server's own message, and its hint on a line
    // of its own; the code is kept for the staff in data-mistake, not shown.
    assert.ok(answer.diagnosis.some((d) => d.mistake === 'key_too_soft'), JSON.stringify(answer.diagnosis));
    const mistakes = await page.$$eval('#diagnosis li', (items) => items.map((li) => ({
      code: li.dataset.mistake,
      title: li.querySelector('.mistake-title').textContent,
      message: li.querySelector('.mistake-message').textContent,
      hint: li.querySelector('.hint')?.textContent,
      hintOwnLine: li.querySelector('.hint').getBoundingClientRect().top >= li.querySelector('.mistake-message').getBoundingClientRect().bottom - 1,
      visible: li.getClientRects().length > 0,
      showsCode: li.innerText.includes(li.dataset.mistake),
    })));
    assert.equal(mistakes.length, answer.diagnosis.length);
    answer.diagnosis.forEach((d, k) => {
      assert.deepEqual(mistakes[k], {
        code: d.mistake, title: mistakes[k].title, message: d.message, hint: `Hint: ${d.hint}`, hintOwnLine: true, visible: true, showsCode: false,
      });
    });
    const soft = mistakes.find((m) => m.code === 'key_too_soft');
    assert.equal(soft.title, 'Your key is too soft');
    assert.ok(await page.isVisible('#diagnosis-title'));
    assert.deepEqual(foreign, []);
    assert.deepEqual(errors, []);
    await page.close();
  });

  test('an empty or non-numeric entry is outlined and Grade sends nothing, pointing to it', async () => {
    const { page, requests } = await openPage(running.browser.context, running.server.origin);
    await selectProblem(page, 'consonant-anywhere');
    await enterMatrices(page, HANDOUT['consonant-anywhere']);
    const box = 'input[aria-label="W_k row 1, consonant"]';
    await page.fill(box, '5x');
    assert.match(await page.getAttribute(box, 'class'), /invalid/);
    assert.match(await page.textContent('#grade-status'), /^1 entry is empty or not a number/);
    await page.fill(box, '');
    assert.match(await page.getAttribute(box, 'class'), /invalid/, 'a box emptied by an edit is outlined');
    await page.click('#grade');
    await page.waitForTimeout(200);
    assert.equal(requests.filter((r) => r.url.includes('/grade')).length, 0);
    assert.match(await page.textContent('#grade-status'), /^Not graded: 1 entry is empty or not a number \(outlined in red\); fix it to grade\. Go to the first$/);
    // The summary's link is where the keyboard is; following it lands on the box.
    assert.equal(await page.evaluate(() => document.activeElement.textContent), 'Go to the first');
    await page.keyboard.press('Enter');
    assert.equal(await page.evaluate(() => document.activeElement.getAttribute('aria-label')), 'W_k row 1, consonant');
    await page.close();
  });

  test("the server's error is shown next to the matrix it names", async () => {
    const { page } = await openPage(running.browser.context, running.server.origin);
    await selectProblem(page, 'consonant-anywhere');
    await enterMatrices(page, { ...HANDOUT['consonant-anywhere'], W_q: '[[1, 1, 1]]' });
    await page.click('#grade');
    await page.waitForSelector('#error-W_q:not(:empty)');
    assert.equal(await page.textContent('#error-W_q'), 'W_q must have 2 columns (one per embedding feature, n_e = 2); it has 3');
    assert.equal(await page.textContent('#error-W_k'), '');
    await page.close();
  });

  test('a launch token in the page goes with the grading and the problem as a bearer token', async () => {
    const { page, requests } = await openPage(running.browser.context, running.server.origin);
    await selectProblem(page, 'consonant-anywhere');
    await enterMatrices(page, HANDOUT['consonant-anywhere']);
    // What an LTI launch page carries (API.md §11); the open server grades with or without it.
    await page.evaluate(() => {
      const meta = document.createElement('meta');
      meta.name = 'headgrader-token';
      meta.content = 'launch-token-1';
      document.head.append(meta);
    });
    // A token this server never issued is refused (401): what is checked here is that the
    // page sent it, not the grade.
    const answered = page.waitForResponse((r) => r.url().endsWith('/grade'));
    await page.click('#grade');
    await answered;
    const gradings = requests.filter((r) => r.url.endsWith('/grade'));
    assert.equal(gradings.length, 1);
    assert.equal(gradings[0].headers.authorization, 'Bearer launch-token-1');
    // The problem is asked for with the token too: the server shows a launched student their
    // own variant (API.md §15), and refuses a token it does not know rather than show the
    // problem in other coordinates than the grading's.
    const loaded = page.waitForResponse((r) => r.url().endsWith('/v1/problems/consonant-proportion'));
    await page.selectOption('#problem-select', 'consonant-proportion');
    assert.equal((await loaded).status(), 401);
    const asked = requests.filter((r) => r.url.endsWith('/v1/problems/consonant-proportion'));
    assert.equal(asked[0].headers.authorization, 'Bearer launch-token-1');
    await page.waitForFunction(() => document.getElementById('problem-info').textContent.startsWith('This problem could not be loaded'));
    assert.equal(requests.filter((r) => r.url.endsWith('/v1/problems')).every((r) => !r.headers.authorization), true);
    await page.close();
  });

  test('the last matrices survive a reload', async () => {
    const { page } = await openPage(running.browser.context, running.server.origin);
    await selectProblem(page, 'first-position');
    await enterMatrices(page, HANDOUT['first-position']);
    await page.reload();
    await page.waitForSelector('body[data-ready="true"]');
    assert.equal(await page.inputValue('#problem-select'), 'first-position');
    assert.equal(await page.inputValue('input[aria-label="W_k row 1, feature 3"]'), '5');
    // Restored boxes are the matrix; the paste box says the same.
    assert.equal(await page.inputValue('#paste-W_k'), '[[0, 0, 5]]');
    await page.close();
  });
});

describe('a pool on the page', () => {
  test("choosing a pool without its student takes the last problem's matrices, result and steps away, grades nothing and draws no late answer", async () => {
    // Two bundled problems and a pool of both (API.md §15), served without a variant secret.
    const workdir = mkdtempSync(join(tmpdir(), 'headgrader-pool-page-'));
    const problems = join(workdir, 'problems');
    mkdirSync(problems);
    const members = ['consonant-anywhere', 'consonant-proportion'];
    for (const id of members) copyFileSync(join(repo, 'problems', `${id}.json`), join(problems, `${id}.json`));
    writeFileSync(join(problems, 'consonant-pool.json'),
      JSON.stringify({ id: 'consonant-pool', title: 'A consonant, one of two', pool: members }));
    const server = await startServer(['--problems', problems]);
    try {
      const { page, requests, errors } = await openPage(running.browser.context, server.origin);
      await selectProblem(page, 'consonant-anywhere');
      await enterMatrices(page, HANDOUT['consonant-anywhere']);
      await page.click('#grade');
      await page.waitForSelector('#verdict');
      assert.ok(await page.locator('#steps input').count() > 0);

      await selectProblem(page, 'consonant-pool');
      assert.equal(await page.textContent('#problem-info'),
        'This is a pool: each student is given one of its 2 problems. Open it from your course to see yours.');
      assert.equal(await page.locator('#matrices input, #matrices textarea').count(), 0);
      assert.equal(await page.locator('#result *').count(), 0, 'the last problem\'s result is gone');
      assert.equal(await page.locator('#steps *').count(), 0);
      assert.equal(await page.isDisabled('#grade'), true);
      assert.equal(await page.isVisible('#result-stale'), false);
      // Enter where the boxes were grades nothing either.
      await page.keyboard.press('Enter');
      assert.equal(requests.filter((r) => r.url.endsWith('/grade')).length, 1);

      // Chosen again, the problem comes back with the matrices the student left.
      await selectProblem(page, 'consonant-anywhere');
      assert.equal(await page.inputValue('#paste-W_k'), '[[0, 5]]');
      assert.equal(await page.isDisabled('#grade'), false);

      // An answer that comes after the pool was chosen is not drawn over it.
      let release;
      const held = new Promise((resolve) => { release = resolve; });
      await page.route('**/grade', async (route) => { await held; await route.continue(); });
      await page.click('#grade');
      await selectProblem(page, 'consonant-pool');
      const answered = page.waitForResponse((r) => r.url().endsWith('/grade'));
      release();
      assert.equal((await answered).status(), 200);
      await page.evaluate(() => new Promise((done) => {
        requestAnimationFrame(() => requestAnimationFrame(done));
      }));
      assert.equal(await page.locator('#result *').count(), 0);
      assert.equal(await page.isDisabled('#grade'), true);
      assert.deepEqual(errors, []);
      await page.close();
    } finally {
      await server.stop();
      rmSync(workdir, { recursive: true, force: true });
    }
  });
});
