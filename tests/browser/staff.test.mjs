// The staff's page (API.md §16) in headless Chromium against the real server binary, started
// with --keys and a problems folder of its own: the key is asked for and kept for the tab
// only, never in a URL or the page; the folder's status and problems are shown; axe finds no
// WCAG 2 A/AA violation in any state; the keyboard alone works.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { copyFileSync, mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import AxeBuilder from '@axe-core/playwright';
import { openPage, repo, serverBin, startBrowser, startServer } from './harness.mjs';

const cliBin = process.env.HEADGRADER_CLI_BIN || join(dirname(dirname(serverBin)), 'cli/headgrader');
const BUNDLED = ['consonant-anywhere', 'consonant-proportion', 'first-position'];
const TAGS = ['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa'];

let server;
let browser;
let workdir;
let staffKey;
let lmsKey;

function newKey(keys, name, role) {
  const made = spawnSync(cliBin, ['keys', 'add', '--keys', keys, '--name', name, '--role', role], { encoding: 'utf8' });
  assert.equal(made.status, 0, made.stderr);
  return made.stdout.trim();
}

before(async () => {
  workdir = mkdtempSync(join(tmpdir(), 'headgrader-staff-page-'));
  const problems = join(workdir, 'problems');
  mkdirSync(problems);
  for (const id of BUNDLED) copyFileSync(join(repo, 'problems', `${id}.json`), join(problems, `${id}.json`));
  const keys = join(workdir, 'keys.json');
  staffKey = newKey(keys, 'ta', 'staff');
  lmsKey = newKey(keys, 'canvas', 'lms');
  [server, browser] = await Promise.all([
    startServer(['--problems', problems, '--keys', keys, '--store', `sqlite:${join(workdir, 'record.db')}`]),
    startBrowser(),
  ]);
});
after(async () => {
  await browser?.stop();
  await server?.stop();
  if (workdir) rmSync(workdir, { recursive: true, force: true });
});

async function axeViolations(page) {
  const result = await new AxeBuilder({ page }).withTags(TAGS).analyze();
  return result.violations.map((v) => `${v.id}: ${v.nodes.map((n) => n.target).join(' ')}`);
}

// Opens /staff and signs in with `key` by the keyboard alone: Tab to the box, type, Enter.
async function signIn(key = staffKey) {
  const opened = await openPage(browser.context, server.origin, '/staff');
  const { page } = opened;
  await page.keyboard.press('Tab');  // the skip link
  await page.keyboard.press('Tab');
  assert.equal(await page.evaluate(() => document.activeElement.id), 'staff-key');
  await page.keyboard.type(key);
  await page.keyboard.press('Enter');
  await page.waitForSelector('body[data-signed-in]');
  return opened;
}

describe('serving', () => {
  test('/staff is HTML that no other site may frame, with no key in it', async () => {
    const answer = await fetch(`${server.origin}/staff`);
    assert.equal(answer.status, 200);
    assert.equal(answer.headers.get('content-type'), 'text/html; charset=utf-8');
    const policy = answer.headers.get('content-security-policy');
    assert.match(policy, /default-src 'self'/);
    assert.match(policy, /frame-ancestors 'none'/);
    assert.equal(answer.headers.get('x-frame-options'), 'DENY');
    assert.equal(answer.headers.get('referrer-policy'), 'no-referrer');
    const html = await answer.text();
    assert.ok(!html.includes(staffKey));
    assert.match(html, /<script type="module" src="\/static\/staff.js">/);
    // The student page may still be framed (an LMS shows it), the staff's page may not.
    assert.doesNotMatch((await fetch(`${server.origin}/`)).headers.get('content-security-policy'), /frame-ancestors/);
  });

  test('a page of another origin that frames /staff is refused by the browser', async () => {
    const page = await browser.context.newPage();
    // about:blank is another origin than the server's: its frame must stay empty.
    await page.setContent(`<iframe id="f" src="${server.origin}/staff"></iframe>`);
    await page.waitForTimeout(500);
    const frame = page.frames().find((f) => f.url().startsWith(server.origin));
    const loaded = frame ? await frame.evaluate(() => Boolean(document.getElementById('key-form'))).catch(() => false) : false;
    assert.equal(loaded, false);
    await page.close();
  });
});

describe('the key', () => {
  test('an unknown key and an lms key are refused, in words, and nothing is kept', async () => {
    for (const key of ['not-a-key-at-all', lmsKey]) {
      const { page } = await signIn(key);
      assert.equal(await page.getAttribute('body', 'data-signed-in'), 'false');
      assert.ok(await page.isHidden('#folder-section'));
      assert.match(await page.textContent('#key-status'), key === lmsKey ? /staff key/ : /does not know that key/);
      assert.equal(await page.evaluate(() => sessionStorage.length), 0);
      await page.close();
    }
  });

  test('kept for the tab only: in sessionStorage, never in localStorage, a URL, a cookie or the page', async () => {
    const { page, requests } = await signIn();
    assert.equal(await page.getAttribute('body', 'data-signed-in'), 'true');
    assert.equal(await page.evaluate(() => sessionStorage.getItem('headgrader:staff-key')), staffKey);
    assert.equal(await page.evaluate(() => localStorage.length), 0);
    assert.equal(await page.evaluate(() => document.cookie), '');
    assert.ok(!(await page.content()).includes(staffKey));
    assert.equal(await page.inputValue('#staff-key'), '');
    await page.reload();
    await page.waitForSelector('body[data-signed-in="true"]');
    for (const r of requests) assert.ok(!r.url.includes(staffKey), r.url);
    const sent = requests.filter((r) => r.url.includes('/v1/'));
    assert.ok(sent.length > 0);
    for (const r of sent) assert.equal(r.headers.authorization, `Bearer ${staffKey}`);
    await page.click('#forget-key');
    assert.equal(await page.evaluate(() => sessionStorage.length), 0);
    assert.ok(await page.isHidden('#folder-section'));
    // Another tab has its own session storage: it asks for the key again.
    const other = await openPage(browser.context, server.origin, '/staff');
    assert.ok(await other.page.isVisible('#key-form'));
    await other.page.close();
    await page.close();
  });
});

describe('the folder', () => {
  test('the status and every problem served, as the API lists them; axe finds nothing before or after', async () => {
    const { page, foreign, errors } = await openPage(browser.context, server.origin, '/staff');
    assert.deepEqual(await axeViolations(page), []);
    await page.fill('#staff-key', staffKey);
    await page.click('#key-form button[type="submit"]');
    await page.waitForSelector('body[data-folder]');
    const status = await (await fetch(`${server.origin}/v1/problems/status`, { headers: { Authorization: `Bearer ${staffKey}` } })).json();
    assert.equal(await page.textContent('#folder-status'),
      `3 problems served, loaded at ${status.loaded_at}. The folder has no defects.`);
    const ids = await page.$$eval('#problems-table tbody th', (cells) => cells.map((c) => c.textContent));
    assert.deepEqual(ids, BUNDLED);
    assert.deepEqual(await axeViolations(page), []);
    assert.deepEqual(foreign, []);
    assert.deepEqual(errors, []);
    await page.close();
  });
});

// A draft of the author's own: two letters, a consonant feature, no reference yet.
function draftText({ id = 'authored', expected = 'any(consonant) ? [0, 1] : [1, 0]' } = {}) {
  return `{
  "id": "${id}",
  "title": "Has a b occurred?",
  "statement": "Output [0, 1] once a b has occurred, else [1, 0].",
  "alphabet": "ab",
  "classes": {"vowel": "a", "consonant": "b"},
  "W_E": [[1, 0], [0, 1]],
  "submit": ["W_q", "W_k", "W_V"],
  "expected": "${expected}",
  "tolerance": 0.1,
  "strings": {"max_length": 6, "examples": ["ab", "aab"]}
}
`;
}

// Replaces the editor's text as typing would (an input event), and waits for the answer to it.
async function typeDraft(page, text) {
  const before = Number(await page.getAttribute('body', 'data-validated') || 0);
  await page.fill('#problem-text', text);
  await page.waitForFunction((n) => Number(document.body.dataset.validated || 0) > n, before);
}

describe('the editor', () => {
  test('an author writes a problem with a defect, sees the caret, fixes it, solves, previews, saves, and it is served', async () => {
    const { page, foreign, errors } = await signIn();
    await page.waitForSelector('body[data-folder]');
    await typeDraft(page, draftText({ expected: 'any(consonant ? [0, 1] : [1, 0]' }));
    const defect = page.locator('#defects li', { hasText: 'expected' }).first();
    const caret = await defect.locator('pre.caret').textContent();
    const [line, mark] = caret.split('\n');
    assert.equal(mark.trim(), '^');
    assert.ok(line.includes('any(consonant ? [0, 1] : [1, 0]'), line);
    // The caret stands under the place the parser names, as the API's message has it.
    const direct = await (await fetch(`${server.origin}/v1/problems/validate`, { method: 'POST', headers: { Authorization: `Bearer ${staffKey}`, 'Content-Type': 'application/json' }, body: draftText({ expected: 'any(consonant ? [0, 1] : [1, 0]' }) })).json();
    const message = direct.defects.find((d) => d.field === 'expected').message;
    assert.ok(message.endsWith(caret), `${message} / ${caret}`);
    assert.deepEqual(await axeViolations(page), []);

    await typeDraft(page, draftText());
    assert.equal(await page.textContent('#validation-summary'), 'Not valid: 1 defect.');
    assert.equal(await page.textContent('#defects li strong'), 'reference');

    await page.click('#solve');
    await page.waitForFunction(() => document.getElementById('editor-status').textContent.startsWith('Solved'));
    await page.waitForFunction(() => document.getElementById('validation-summary').textContent.startsWith('Valid:'));
    const solved = JSON.parse(await page.inputValue('#problem-text'));
    assert.deepEqual(Object.keys(solved.reference).sort(), ['W_V', 'W_k', 'W_q']);

    await page.click('#preview');
    const frame = page.frameLocator('#preview-frame');
    await frame.locator('body[data-problem="authored"]').waitFor();
    assert.equal(await frame.locator('#problem-info h3').textContent(), 'Has a b occurred?');
    assert.ok(await frame.locator('#grade').isDisabled());
    assert.deepEqual(await axeViolations(page), []);

    await page.click('#save');
    await page.waitForFunction(() => document.getElementById('editor-status').textContent.startsWith('Saved'));
    assert.equal(await page.textContent('#editor-status'), 'Saved: authored is served to students now (a new problem).');
    const served = await fetch(`${server.origin}/v1/problems/authored`);
    assert.equal(served.status, 200);
    assert.equal((await served.json()).title, 'Has a b occurred?');
    await page.waitForFunction(() => Array.from(document.querySelectorAll('#problems-table tbody th')).some((c) => c.textContent === 'authored'));
    // A student grading the saved problem with the head the editor found passes.
    const graded = await fetch(`${server.origin}/v1/problems/authored/grade`, { method: 'POST', headers: { Authorization: `Bearer ${lmsKey}`, 'Content-Type': 'application/json' }, body: JSON.stringify(solved.reference) });
    assert.equal((await graded.json()).passed, true);
    assert.deepEqual(foreign, []);
    assert.deepEqual(errors, []);
    await page.close();
  });

  test('benchmark: validate-as-you-type round trip on loopback for the bundled problems', async (t) => {
    const { page } = await signIn();
    await page.waitForSelector('body[data-folder]');
    const times = {};
    page.on('requestfinished', (request) => {
      if (!request.url().endsWith('/v1/problems/validate')) return;
      const id = JSON.parse(request.postData()).id;
      (times[id] ||= []).push(request.timing().responseEnd);
    });
    for (const id of BUNDLED) {
      const text = readFileSync(join(repo, 'problems', `${id}.json`), 'utf8');
      for (let k = 0; k < 7; k += 1) await typeDraft(page, `${text}${' '.repeat(k)}`);
    }
    for (const id of BUNDLED) {
      const sorted = times[id].sort((a, b) => a - b);
      const line = `validate round trip ${id}: median ${sorted[Math.floor(sorted.length / 2)].toFixed(1)} ms, max ${sorted[sorted.length - 1].toFixed(1)} ms over ${sorted.length}`;
      t.diagnostic(line);
      console.log(line);
    }
    await page.close();
  });
});
