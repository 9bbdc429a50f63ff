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
    const { page, requests } = await openPage(browser.context, server.origin);
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
    const { page } = await openPage(browser.context, server.origin);
    await selectProblem(page, 'consonant-anywhere');
    await enterMatrices(page, { ...HANDOUT['consonant-anywhere'], W_q: '[[1, 1, 1]]' });
    await page.click('#grade');
    await page.waitForSelector('#error-W_q:not(:empty)');
    assert.equal(await page.textContent('#error-W_q'), 'W_q must have 2 columns (one per embedding feature, n_e = 2); it has 3');
    assert.equal(await page.textContent('#error-W_k'), '');
    await page.close();
  });

  test('a launch token in the page goes with the grading and the problem as a bearer token', async () => {
    const { page, requests } = await openPage(browser.context, server.origin);
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
    const { page } = await openPage(browser.context, server.origin);
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

describe('made for people', () => {
  test('the keyboard alone: Tab box to box, Enter grades, one tab stop per result table, Enter selects a query row', async () => {
    const { page, requests } = await openPage(browser.context, server.origin);
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
    const { page } = await openPage(browser.context, server.origin);
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

describe('the page tells the truth at every moment', () => {
  const axeTags = ['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa'];
  const violations = async (page) => (await new AxeBuilder({ page }).withTags(axeTags).analyze()).violations.map((v) => `${v.id}: ${v.nodes.map((n) => n.target).join(' ')}`);
  const focusedLabel = (page) => page.evaluate(() => document.activeElement.getAttribute('aria-label'));
  const values = (page, name) => page.$$eval(`#matrix-${name} tbody tr`, (rows) => rows.map((tr) => Array.from(tr.querySelectorAll('input'), (i) => i.value)));

  // Grades the handout's answer, then pastes a W_q of the wrong shape: {page, requests}.
  async function gradedThenBroken(beforeBreaking = async () => {}) {
    const opened = await openPage(browser.context, server.origin);
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
    const { page, requests } = await openPage(browser.context, server.origin);
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
    const { page, requests } = await openPage(browser.context, server.origin);
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
    const { page } = await openPage(browser.context, server.origin);
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
    const { page } = await openPage(browser.context, server.origin);
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
