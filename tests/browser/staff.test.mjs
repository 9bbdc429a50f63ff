// The staff's page (API.md §16) in headless Chromium against the real server binary, started
// with --keys and a problems folder of its own: the key is asked for and kept for the tab
// only, never in a URL or the page; the folder's status and problems are shown; the editor;
// the class of a graded problem (stats, integrity, a grading opened, both CSVs, a regrade
// after a dry run); axe finds no WCAG 2 A/AA violation in any state; the keyboard alone works.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { copyFileSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
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
  const secret = join(workdir, 'variant-secret');
  writeFileSync(secret, 'the staff page test secret, 32 bytes or more');
  [server, browser] = await Promise.all([
    startServer(['--problems', problems, '--keys', keys, '--store', `sqlite:${join(workdir, 'record.db')}`,
      '--variant-secret', secret]),
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

  test('the preview shows the variant a named student will be given, the one served once saved', async () => {
    const { page, foreign, errors } = await signIn();
    await page.waitForSelector('body[data-folder]');
    const file = JSON.parse(readFileSync(join(repo, 'problems', 'consonant-anywhere.json'), 'utf8'));
    Object.assign(file, {
      id: 'varied',
      statement: 'Output [0, 1] once a consonant has occurred, else [1, 0].',
      feature_names: ['vowel', 'consonant'],
      variants: { permute_features: true, permute_outputs: true },
    });
    const text = JSON.stringify(file, null, 2);
    // A student whose rows come swapped (f1.0: their row 0 is the file's row 1).
    let student = null;
    let variant = null;
    for (let i = 0; i < 40 && student === null; i += 1) {
      const answer = await (await fetch(`${server.origin}/v1/problems/validate?student=s${i}`, { method: 'POST', headers: { Authorization: `Bearer ${staffKey}`, 'Content-Type': 'application/json' }, body: text })).json();
      if (answer.problem.variant.startsWith('f1.0')) [student, variant] = [`s${i}`, answer.problem.variant];
    }
    assert.ok(student, 'no student of 40 has the rows swapped');
    await typeDraft(page, text);
    const before = Number(await page.getAttribute('body', 'data-validated'));
    await page.fill('#preview-student', student);
    await page.waitForFunction((n) => Number(document.body.dataset.validated || 0) > n, before);
    await page.click('#preview');
    const frame = page.frameLocator('#preview-frame');
    await frame.locator('body[data-problem="varied"]').waitFor();
    await page.waitForFunction((v) => document.getElementById('preview-title').textContent.endsWith(`(variant ${v})`), variant);
    // The student's columns of W_q are named in their order: the consonant first.
    const labels = (await frame.locator('table[aria-label="W_q"] th[scope="col"]').allTextContents()).filter((t) => t !== '');
    assert.deepEqual(labels, ['consonant', 'vowel']);
    assert.deepEqual(await axeViolations(page), []);

    await page.click('#save');
    await page.waitForFunction(() => document.getElementById('editor-status').textContent.startsWith('Saved'));
    const served = await (await fetch(`${server.origin}/v1/problems/varied?student=${student}`, { headers: { Authorization: `Bearer ${lmsKey}` } })).json();
    assert.equal(served.variant, variant);
    assert.deepEqual(served.feature_names, ['consonant', 'vowel']);
    // Graded once, the student shows in the class's variants (stats by variant, API.md §15).
    const graded = await fetch(`${server.origin}/v1/problems/varied/grade`, { method: 'POST', headers: { Authorization: `Bearer ${lmsKey}`, 'Content-Type': 'application/json' }, body: JSON.stringify({ ...file.reference, student }) });
    assert.equal((await graded.json()).variant, variant);
    await page.selectOption('#class-problem', 'varied');
    await page.click('#class-form button[type="submit"]');
    await page.waitForSelector('#class-variants');
    const rows = await page.$$eval('#class-variants tbody tr', (trs) => trs.map((r) => [r.querySelector('th').textContent, r.querySelectorAll('td')[0].textContent]));
    assert.deepEqual(rows, [[variant, '1']]);
    assert.deepEqual(await axeViolations(page), []);
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

// RFC 4180 as the CSVs write it: quoted cells may hold commas, quotes (doubled) and line ends.
function parseCsv(text) {
  const rows = [];
  let row = [];
  let cell = '';
  let quoted = false;
  for (let k = 0; k < text.length; k += 1) {
    const c = text[k];
    if (quoted) {
      if (c === '"' && text[k + 1] === '"') { cell += '"'; k += 1; } else if (c === '"') quoted = false; else cell += c;
    } else if (c === '"') quoted = true;
    else if (c === ',') { row.push(cell); cell = ''; } else if (c === '\n') { row.push(cell.replace(/\r$/, '')); rows.push(row); row = []; cell = ''; } else cell += c;
  }
  if (cell !== '' || row.length) rows.push([...row, cell]);
  const [header, ...body] = rows;
  return body.map((r) => Object.fromEntries(header.map((h, i) => [h, r[i]])));
}

describe('the class', () => {
  test('an instructor sees the class of a graded problem, its named mistake, opens a grading, downloads the CSVs and regrades after a dry run', async () => {
    const auth = { Authorization: `Bearer ${staffKey}` };
    const openapi = await (await fetch(`${server.origin}/v1/openapi.json`)).json();
    const serverDryRun = Boolean(openapi.paths['/v1/problems/{id}/regrade'].post.parameters?.some((p) => p.name === 'dry_run'));
    const serverStudentsCsv = Boolean(openapi.paths['/v1/students.csv']);
    const serverIntegrity = Boolean(openapi.paths['/v1/problems/{id}/integrity']);
    // A problem of the class's own (a copy of a bundled one), so the regrade touches no other test.
    const file = JSON.parse(readFileSync(join(repo, 'problems', 'consonant-anywhere.json'), 'utf8'));
    file.id = 'class-demo';
    const put = await fetch(`${server.origin}/v1/problems/class-demo`, { method: 'PUT', headers: { ...auth, 'Content-Type': 'application/json' }, body: JSON.stringify(file) });
    assert.ok(put.status === 200 || put.status === 201, await put.text());
    // ann sends the reference; bob and "=cmd" (a name a spreadsheet would run) the same soft key.
    const soft = { W_q: [[1, 1]], W_k: [[0, 2]], W_V: [[1, 0], [0, 1]] };
    const sent = [['ann', file.reference], ['bob', soft], ['=cmd', soft]];
    const answers = {};
    for (const [student, head] of sent) {
      const graded = await fetch(`${server.origin}/v1/problems/class-demo/grade`, { method: 'POST', headers: { Authorization: `Bearer ${lmsKey}`, 'Content-Type': 'application/json' }, body: JSON.stringify({ ...head, student }) });
      assert.equal(graded.status, 200);
      answers[student] = await graded.json();
    }
    assert.equal(answers.ann.passed, true);
    assert.ok(answers.bob.diagnosis.some((d) => d.mistake === 'key_too_soft'), JSON.stringify(answers.bob.diagnosis));

    const { page, requests, foreign, errors } = await signIn();
    await page.waitForSelector('body[data-folder]');
    await page.selectOption('#class-problem', 'class-demo');
    await page.click('#class-form button[type="submit"]');
    await page.waitForSelector('body[data-class-shown]');
    assert.equal(await page.textContent('#class-summary'), '3 students (3 gradings); 1 passed; first-try pass rate 33.3 %.');
    // The histogram, labelled, against the scores the grade route answered.
    const bins = Array(10).fill(0);
    for (const a of Object.values(answers)) bins[Math.min(9, Math.floor(a.score * 10))] += 1;
    const histogram = await page.$$eval('#class-histogram tbody tr', (rows) => rows.map((r) => [r.querySelector('th').textContent, Number(r.querySelector('td').textContent)]));
    assert.deepEqual(histogram, bins.map((n, k) => [`${k * 10}–${(k + 1) * 10} %`, n]));
    // The common failing strings: each failing string shown to bob (and to =cmd), 2 students.
    const failing = await page.$$eval('#class-failures tbody tr', (rows) => rows.map((r) => [r.querySelector('th').textContent, Number(r.querySelector('td').textContent)]));
    assert.ok(failing.length > 0);
    for (const [input, students] of failing) {
      assert.ok(answers.bob.failures.some((f) => `"${f.input}"` === input), input);
      assert.equal(students, 2);
    }
    const stats = await (await fetch(`${server.origin}/v1/problems/class-demo/stats`, { headers: auth })).json();
    if (stats.mistakes) {
      // The named mistake a teacher acts on: two students' latest gradings were too soft a key.
      const mistakes = await page.$$eval('#class-mistakes tbody tr', (rows) => rows.map((r) => [r.querySelector('th').textContent, Number(r.querySelector('td').textContent)]));
      const expected = {};
      for (const a of Object.values(answers)) for (const d of a.diagnosis) expected[d.mistake] = (expected[d.mistake] || 0) + 1;
      assert.deepEqual(Object.fromEntries(mistakes), expected);
      assert.equal(expected.key_too_soft, 2);
    }
    if (serverIntegrity) {
      const group = await page.textContent('#integrity-findings li[data-kind="identical"]');
      assert.match(group, /2 students sent the same matrices: /);
      assert.ok(group.includes('bob') && group.includes('=cmd'), group);
      assert.equal(await page.locator('#integrity-kinds li').count(), 3);
    }
    assert.deepEqual(await axeViolations(page), []);

    // The gradings, newest first; bob's opened is drawn as his page drew it.
    const students = await page.$$eval('#submissions-table tbody th', (cells) => cells.map((c) => c.textContent));
    assert.deepEqual(students, ['=cmd', 'bob', 'ann']);
    await page.click('#submissions-table tbody tr:nth-child(2) button');
    await page.waitForSelector(`body[data-opened="${answers.bob.submission_id}"]`);
    assert.equal(await page.textContent('#submission-result #verdict'), `${answers.bob.tests.passed} of ${answers.bob.tests.total} tested strings pass`);
    const shownFailures = await page.$$eval('#submission-result #failures button', (buttons) => buttons.map((b) => b.textContent));
    assert.deepEqual(shownFailures, answers.bob.failures.map((f) => `"${f.input}" (position${f.failing_positions.length > 1 ? 's' : ''} ${f.failing_positions.join(', ')})`));
    assert.equal(await page.evaluate(() => document.activeElement.id), 'submission-title');
    assert.deepEqual(await axeViolations(page), []);

    // Downloads: fetched with the key in a header, saved from a Blob, never a URL with the key.
    const [all] = await Promise.all([page.waitForEvent('download'), page.click('#download-submissions')]);
    const allText = readFileSync(await all.path(), 'utf8');
    assert.equal(allText, await (await fetch(`${server.origin}/v1/submissions.csv?problem=class-demo`, { headers: auth })).text());
    assert.deepEqual(parseCsv(allText).map((r) => r.id).sort(), Object.values(answers).map((a) => a.submission_id).sort());
    assert.equal(await page.isVisible('#download-students'), serverStudentsCsv);
    if (serverStudentsCsv) {
      const [per] = await Promise.all([page.waitForEvent('download'), page.click('#download-students')]);
      const rows = parseCsv(readFileSync(await per.path(), 'utf8'));
      // A name a spreadsheet would run as a formula comes back prefixed with '.
      assert.deepEqual(rows.map((r) => r.student).sort(), ["'=cmd", 'ann', 'bob']);
      const bob = rows.find((r) => r.student === 'bob');
      assert.equal(bob.attempts, '1');
      assert.equal(bob.passed, 'false');
      assert.ok(bob.latest_mistakes.split(' ').includes('key_too_soft'), bob.latest_mistakes);
      assert.equal(rows.find((r) => r.student === 'ann').passed, 'true');
    }

    // Regrade: the dry run is offered only by a server that documents it (an older one would
    // regrade for real), and the real regrade only after a dry run answered.
    assert.equal(await page.isVisible('#regrade-preview'), serverDryRun);
    assert.equal(await page.isVisible('#regrade-unavailable'), !serverDryRun);
    if (serverDryRun) {
      assert.ok(await page.isDisabled('#regrade'));
      // The problem changes: the outputs swapped, so ann's head (the old reference) now fails.
      const swapped = { ...file, expected: 'any(consonant) ? [1, 0] : [0, 1]', reference: { ...file.reference, W_V: [[0, 1], [1, 0]] } };
      const changed = await fetch(`${server.origin}/v1/problems/class-demo`, { method: 'PUT', headers: { ...auth, 'Content-Type': 'application/json' }, body: JSON.stringify(swapped) });
      assert.equal(changed.status, 200, await changed.text());
      const count = async () => (await (await fetch(`${server.origin}/v1/submissions?problem=class-demo`, { headers: auth })).json()).submissions.length;
      await page.click('#regrade-preview');
      await page.waitForSelector('#regrade-summary');
      assert.match(await page.textContent('#regrade-summary'), /^Dry run: 3 students would be regraded; \d+ would change\. Nothing was written\.$/);
      assert.equal(await count(), 3);
      const preview = await page.$$eval('#regrade-changes tbody tr', (rows) => rows.map((r) => [r.querySelector('th').textContent, r.querySelector('td').textContent]));
      const annAfter = preview.find(([s]) => s === 'ann');
      assert.ok(annAfter && annAfter[1].startsWith('passed 1.00 → failed'), JSON.stringify(preview));
      assert.deepEqual(await axeViolations(page), []);
      assert.ok(await page.isEnabled('#regrade'));
      await page.click('#regrade');
      await page.waitForFunction(() => (document.getElementById('regrade-summary') || {}).textContent?.startsWith('Regraded'));
      assert.equal(await count(), 6);
      const done = await page.$$eval('#regrade-changes tbody tr', (rows) => rows.map((r) => [r.querySelector('th').textContent, r.querySelector('td').textContent]));
      assert.deepEqual(done, preview);
      assert.ok(await page.isDisabled('#regrade'));
    }
    for (const r of requests) assert.ok(!r.url.includes(staffKey), r.url);
    assert.deepEqual(foreign, []);
    assert.deepEqual(errors, []);
    await page.close();
  });
});
