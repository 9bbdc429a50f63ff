// The student page (API.md §8, §11) launched from an LMS in headless Chromium: a refused
// attempt (429) says when to try again, and the matrices and the last result stay.
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import AxeBuilder from '@axe-core/playwright';
import {
  HANDOUT, enterMatrices, freePort, shown, startBrowser, startPlatform, startServer,
} from './harness.mjs';

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
  [browser, limited] = await Promise.all([startBrowser(), startLimitedTool()]);
});
after(async () => {
  await browser?.stop();
  await limited?.stop();
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
