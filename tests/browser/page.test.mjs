// The student page (API.md §10) in headless Chromium against the real server binary: what a
// student sees is what the server answered, nothing leaves the origin, bad input costs no
// attempt, a refused attempt (429) says when to try again, the keyboard alone works, and axe
// finds no WCAG 2 A/AA violation.
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import AxeBuilder from '@axe-core/playwright';
import {
  HANDOUT, SOFT_KEY, apiPost, comparePngs, enterMatrices, freePort, openPage, repo, resultPanelShot, selectProblem, showSoftKeyResult, shown, startBrowser, startPlatform, startServer,
} from './harness.mjs';

let server;
let browser;
let limited;

// API.md §8: --rate-limit counts the gradings of a student, and the page names one only when
// launched from an LMS (§11). So the attempt-limit test uses a second server, an LTI tool of the
// LTI suite's independent platform, with a store and --rate-limit 1/2m (a wait of about 120 s,
// which the page's fallback of 60 s when Retry-After is missing cannot pass for): {origin,
// login, stop()}.
async function startLimitedTool() {
  const port = await freePort();
  const lms = await startPlatform(`http://127.0.0.1:${port}`);
  const store = mkdtempSync(join(tmpdir(), 'headgrader-limit-'));
  const tool = await startServer(['--lti', lms.config, '--lti-allow-http', '--store', `sqlite:${join(store, 'r.db')}`, '--rate-limit', '1/2m'], { port });
  return {
    origin: tool.origin,
    login: lms.login,
    async stop() {
      await tool.stop();
      await lms.stop();
      rmSync(store, { recursive: true, force: true });
    },
  };
}

before(async () => {
  // Started side by side: the platform's keys take a second to make.
  [server, browser, limited] = await Promise.all([startServer(), startBrowser(), startLimitedTool()]);
});
after(async () => {
  await browser?.stop();
  await server?.stop();
  await limited?.stop();
});

const parseMatrix = (text) => JSON.parse(text.replace(/np\.array\((.*)\)/, '$1').replace(/^\[([^[].*)\]$/, (_, body) => `[${body.split(';').map((row) => `[${row.trim().split(/\s+/).join(',')}]`).join(',')}]`));

async function cellTexts(page, selector) {
  return page.$$eval(`${selector} tbody tr`, (rows) => rows.map((tr) => Array.from(tr.querySelectorAll('td')).map((td) => td.textContent)));
}

describe('serving', () => {
  test('the page, its files and unknown files answer with their types and caching headers', async () => {
    const page = await fetch(`${server.origin}/`);
    assert.equal(page.status, 200);
    assert.equal(page.headers.get('content-type'), 'text/html; charset=utf-8');
    assert.equal(page.headers.get('cache-control'), 'no-cache');
    assert.match(page.headers.get('content-security-policy'), /default-src 'self'/);
    const etag = page.headers.get('etag');
    assert.match(etag, /^"[0-9a-f]{16}"$/);
    const again = await fetch(`${server.origin}/`, { headers: { 'If-None-Match': etag } });
    assert.equal(again.status, 304);
    const script = await fetch(`${server.origin}/static/app.js`);
    assert.equal(script.headers.get('content-type'), 'text/javascript; charset=utf-8');
    assert.equal(script.headers.get('x-content-type-options'), 'nosniff');
    const style = await fetch(`${server.origin}/static/style.css`);
    assert.equal(style.headers.get('content-type'), 'text/css; charset=utf-8');
    const missing = await fetch(`${server.origin}/static/nothing.js`);
    assert.equal(missing.status, 404);
    assert.equal((await missing.json()).error.code, 'not_found');
    const post = await fetch(`${server.origin}/`, { method: 'POST' });
    assert.equal(post.status, 405);
    assert.equal(post.headers.get('allow'), 'GET, HEAD');
  });
});

describe('grading from the page', () => {
  for (const [problem, matrices] of Object.entries(HANDOUT)) {
    test(`the handout's answer to ${problem} passes and the page shows the server's numbers`, async () => {
      const { page, foreign, errors, requests } = await openPage(browser.context, server.origin);
      await selectProblem(page, problem);
      await enterMatrices(page, matrices);
      await page.click('#grade');
      await page.waitForSelector('#verdict');
      const body = Object.fromEntries(Object.entries(matrices).map(([k, v]) => [k, parseMatrix(v)]));
      const answer = (await apiPost(server.origin, `/v1/problems/${problem}/grade`, body)).body;
      assert.equal(answer.passed, true);
      assert.equal(await page.textContent('#verdict'), `${answer.tests.passed} of ${answer.tests.total} tested strings pass`);
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
      assert.ok(requests.every((r) => r.url.startsWith(server.origin)));
      await page.close();
    });
  }

  test('a key too soft fails on "ab": heatmap 2 × 2, upper cell masked, rows summing to 1, named mistake key_too_soft', async () => {
    const { page, foreign, errors } = await openPage(browser.context, server.origin);
    await showSoftKeyResult(page);
    const answer = (await apiPost(server.origin, '/v1/problems/consonant-anywhere/grade', { W_q: [[1, 1]], W_k: [[0, 2]], W_V: [[1, 0], [0, 1]] })).body;
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
    // each is shown with the server's own message and hint.
    assert.ok(answer.diagnosis.some((d) => d.mistake === 'key_too_soft'), JSON.stringify(answer.diagnosis));
    const mistakes = await page.$$eval('#diagnosis li', (items) => items.map((li) => ({
      mistake: li.querySelector('strong').textContent,
      hint: li.querySelector('.hint')?.textContent,
      text: li.textContent,
      visible: li.getClientRects().length > 0,
    })));
    assert.equal(mistakes.length, answer.diagnosis.length);
    answer.diagnosis.forEach((d, k) => {
      assert.deepEqual(mistakes[k], { mistake: `${d.mistake}: `, hint: ` Hint: ${d.hint}`, text: `${d.mistake}: ${d.message} Hint: ${d.hint}`, visible: true });
    });
    assert.ok(await page.isVisible('#diagnosis-title'));
    assert.deepEqual(foreign, []);
    assert.deepEqual(errors, []);
    await page.close();
  });

  test('an empty or non-numeric entry disables Grade and sends nothing', async () => {
    const { page, requests } = await openPage(browser.context, server.origin);
    await selectProblem(page, 'consonant-anywhere');
    await enterMatrices(page, HANDOUT['consonant-anywhere']);
    assert.equal(await page.isDisabled('#grade'), false);
    await page.fill('input[aria-label="W_k row 1, feature 2"]', '5x');
    assert.equal(await page.isDisabled('#grade'), true);
    assert.match(await page.getAttribute('input[aria-label="W_k row 1, feature 2"]', 'class'), /invalid/);
    assert.match(await page.textContent('#grade-status'), /1 entry is empty or not a number/);
    await page.fill('input[aria-label="W_k row 1, feature 2"]', '');
    assert.equal(await page.isDisabled('#grade'), true);
    await page.click('#grade', { force: true });
    await page.waitForTimeout(200);
    assert.equal(requests.filter((r) => r.url.includes('/grade')).length, 0);
    await page.close();
  });

  test("the server's error is shown next to the matrix it names", async () => {
    const { page } = await openPage(browser.context, server.origin);
    await selectProblem(page, 'consonant-anywhere');
    await enterMatrices(page, { ...HANDOUT['consonant-anywhere'], W_q: '[[1, 1, 1]]' });
    await page.click('#grade');
    await page.waitForSelector('#error-W_q:not(:empty)');
    assert.equal(await page.textContent('#error-W_q'), 'W_q must have 2 columns (one per embedding feature, n_e = 2); it has 3');
    assert.equal(await page.textContent('#error-W_k'), '');
    await page.close();
  });

  test('a launch token in the page goes with the grading as a bearer token', async () => {
    const { page, requests } = await openPage(browser.context, server.origin);
    // What an LTI launch page carries (API.md §11); the open server grades with or without it.
    await page.evaluate(() => {
      const meta = document.createElement('meta');
      meta.name = 'headgrader-token';
      meta.content = 'launch-token-1';
      document.head.append(meta);
    });
    await selectProblem(page, 'consonant-anywhere');
    await enterMatrices(page, HANDOUT['consonant-anywhere']);
    // A token this server never issued is refused (401): what is checked here is that the
    // page sent it, not the grade.
    const answered = page.waitForResponse((r) => r.url().endsWith('/grade'));
    await page.click('#grade');
    await answered;
    const gradings = requests.filter((r) => r.url.endsWith('/grade'));
    assert.equal(gradings.length, 1);
    assert.equal(gradings[0].headers.authorization, 'Bearer launch-token-1');
    assert.equal(requests.filter((r) => r.url.endsWith('/v1/problems')).every((r) => !r.headers.authorization), true);
    await page.close();
  });

  test('the last matrices survive a reload', async () => {
    const { page } = await openPage(browser.context, server.origin);
    await selectProblem(page, 'first-position');
    await enterMatrices(page, HANDOUT['first-position']);
    await page.reload();
    await page.waitForSelector('body[data-ready="true"]');
    assert.equal(await page.inputValue('#problem-select'), 'first-position');
    assert.equal(await page.inputValue('input[aria-label="W_k row 1, feature 3"]'), '5');
    await page.close();
  });
});

describe('made for people', () => {
  test('the keyboard alone: one tab stop per grid, arrows inside, Enter selects a query row', async () => {
    const { page } = await openPage(browser.context, server.origin);
    await selectProblem(page, 'consonant-anywhere');
    // W_E is one tab stop: from its cell, Tab goes on to W_q's first box.
    await page.focus('#table-W_E td[tabindex="0"]');
    await page.keyboard.press('ArrowRight');
    assert.equal(await page.evaluate(() => document.activeElement.getAttribute('aria-label')), 'W_E, feature 1, b: 0');
    await page.keyboard.press('Tab');
    assert.equal(await page.evaluate(() => document.activeElement.getAttribute('aria-label')), 'W_q row 1, feature 1');
    await page.keyboard.type('1');
    await page.keyboard.press('ArrowRight');
    assert.equal(await page.evaluate(() => document.activeElement.getAttribute('aria-label')), 'W_q row 1, feature 2');
    await page.keyboard.type('1');
    // Tab leaves the grid: the next stop is the first row button, not another box.
    await page.keyboard.press('Tab');
    assert.equal(await page.evaluate(() => document.activeElement.textContent), 'Add a row');
    await page.keyboard.press('Shift+Tab');
    assert.equal(await page.evaluate(() => document.activeElement.getAttribute('aria-label')), 'W_q row 1, feature 2');
    await enterMatrices(page, { W_k: SOFT_KEY.W_k, W_V: SOFT_KEY.W_V });
    await page.focus('#grade');
    await page.keyboard.press('Enter');
    await page.waitForSelector('#heatmap');
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
    const { page } = await openPage(browser.context, server.origin);
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
    const { page } = await openPage(browser.context, server.origin);
    await page.setViewportSize({ width: 360, height: 740 });
    await showSoftKeyResult(page);
    assert.ok(await page.evaluate(() => document.documentElement.scrollWidth <= 360));
    await page.close();
  });
});

describe('attempt limits', () => {
  test('past --rate-limit a launched student sees when to grade again; matrices and result stay', async () => {
    const page = await browser.context.newPage();
    try {
      // The page's own clock (Date, setInterval), to pass the minute without waiting it.
      await page.clock.install();
      // Chromium follows /lti/login to the platform and posts its form back (the launch).
      await page.goto(`${limited.origin}/lti/login?${limited.login}`);
      await Promise.all([page.waitForURL(`${limited.origin}/lti/launch`), page.evaluate(() => document.forms[0].submit())]);
      await page.waitForSelector('body[data-ready="true"]');
      const errors = [];
      page.on('console', (message) => { if (message.type() === 'error') errors.push(message.text()); });
      page.on('pageerror', (error) => errors.push(String(error)));
      assert.equal(await page.inputValue('#problem-select'), 'consonant-anywhere');
      await enterMatrices(page, HANDOUT['consonant-anywhere']);
      let answered = page.waitForResponse((r) => r.url().endsWith('/grade'));
      await page.click('#grade');
      const first = await (await answered).json();
      assert.ok(first.passed && first.submission_id, 'the first grading passes and is kept');
      await page.waitForSelector('#verdict');
      const verdict = await page.textContent('#verdict');
      assert.equal(verdict, `${first.tests.passed} of ${first.tests.total} tested strings pass`);
      const before = await page.$$eval('#matrices input', (inputs) => inputs.map((i) => i.value));

      answered = page.waitForResponse((r) => r.url().endsWith('/grade'));
      await page.click('#grade');
      const refused = await answered;
      const answeredAt = Date.now();
      assert.equal(refused.status(), 429);
      const error = (await refused.json()).error;
      assert.equal(error.code, 'rate_limited');
      const wait = Number(refused.headers()['retry-after']);
      assert.ok(wait > 100 && wait <= 120, `Retry-After ${wait}`);
      assert.match(error.message, new RegExp(`in ${wait} seconds$`));
      await page.waitForFunction(() => /^Not graded/.test(document.getElementById('grade-status').textContent));
      const status = await page.textContent('#grade-status');
      const m = /^Not graded: (.*)\. You may grade again at (\d{1,2}):(\d\d):(\d\d)\s([AP]M)\.$/.exec(status);
      assert.ok(m, status);
      assert.equal(m[1], error.message);
      // The time shown is Retry-After from the answer (the browser runs in UTC, en-US), give or
      // take the moments between the answer and the page's reading of it on a busy machine.
      const shownAt = ((Number(m[2]) % 12) + (m[5] === 'PM' ? 12 : 0)) * 3600 + Number(m[3]) * 60 + Number(m[4]);
      const due = new Date(answeredAt + wait * 1000);
      const dueAt = due.getUTCHours() * 3600 + due.getUTCMinutes() * 60 + due.getUTCSeconds();
      assert.ok(Math.abs(((shownAt - dueAt + 129600) % 86400) - 43200) <= 5, `${status} against ${due.toISOString()}`);
      const countdown = await page.textContent('#grade-countdown');
      const left = Number(/^Grade is available again in (\d+) s\.$/.exec(countdown)?.[1]);
      assert.ok(left > wait - 10 && left <= wait, countdown);
      assert.equal(await page.isDisabled('#grade'), true);
      // Nothing of the student's is lost: the same matrices, the first result as it was.
      assert.deepEqual(await page.$$eval('#matrices input', (inputs) => inputs.map((i) => i.value)), before);
      assert.equal(await page.textContent('#verdict'), verdict);
      assert.equal(await page.isVisible('#examples'), true);
      // axe on what changed (the entry section; the result panel is checked in 'made for people').
      const axe = await new AxeBuilder({ page }).include('#entry-section').withTags(['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa']).analyze();
      assert.deepEqual(axe.violations.map((v) => `${v.id}: ${v.nodes.map((n) => n.target).join(' ')}`), []);

      // After the wait, Grade is back (the server would grade again then).
      await page.clock.fastForward((wait + 1) * 1000);
      await page.waitForFunction(() => document.getElementById('grade-status').textContent === 'You may grade again.');
      assert.equal(await page.isDisabled('#grade'), false);
      assert.equal(await page.textContent('#grade-countdown'), '');
      // The only console error is Chromium's own line about the 429.
      assert.deepEqual(errors.filter((e) => !/status of 429/.test(e)), []);
    } finally {
      await page.close();
    }
  });
});

describe('check my steps', () => {
  test('a planted wrong entry in K is found and the later steps are judged against it', async () => {
    const { page } = await openPage(browser.context, server.origin);
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
    await type('attention', [['1', '0', '0'], ['0.0180', '0.9820', '0'], ['0.0049', '0.2676', '0.7275']]);
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

describe('looks', () => {
  test('the result panel matches the committed screenshot within a small pixel tolerance', async () => {
    const { page } = await openPage(browser.context, server.origin);
    await showSoftKeyResult(page);
    const now = await resultPanelShot(page);
    const baseline = readFileSync(join(repo, 'tests/browser/baseline/result-panel.png'));
    const diff = await comparePngs(browser.context, baseline, now);
    assert.ok(Math.abs(diff.width - diff.other[0]) <= 2 && Math.abs(diff.height - diff.other[1]) <= 2,
      `the panel is ${diff.other.join(' × ')}, the baseline ${diff.width} × ${diff.height}; rerun make-baseline.mjs if that is meant`);
    assert.ok(diff.differing <= diff.width * diff.height * 0.005, `${diff.differing} of ${diff.width * diff.height} pixels differ`);
    await page.close();
  });
});
