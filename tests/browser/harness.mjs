// Shared by the browser suite: the real server binary on a loopback port, and Debian's
// Chromium driven by playwright-core, each started fresh and stopped at the end.
import { spawn, spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { after, before } from 'node:test';
import { fileURLToPath } from 'node:url';
import { chromium } from 'playwright-core';

const here = dirname(fileURLToPath(import.meta.url));
export const repo = resolve(here, '../..');
// Resolved against the folder the suite was started from: the server runs in a temporary one.
export const serverBin = process.env.HEADGRADER_SERVER_BIN
  ? resolve(process.env.HEADGRADER_SERVER_BIN)
  : join(repo, 'build/server/headgrader-server');
export const chromiumBin = process.env.HEADGRADER_CHROMIUM || '/usr/bin/chromium';

const help = spawnSync(serverBin, ['--help'], { encoding: 'utf8' });
const helpText = `${help.stdout || ''}${help.stderr || ''}`;
export const serverHas = (flag) => helpText.includes(flag);

// Starts the server; resolves to {origin, stop()}. `extra`: more flags; `port`: a
// port chosen beforehand (an LTI tool's configuration names its own URL), else a free one.
export async function startServer(extra = [], { port = 0 } = {}) {
  const workdir = mkdtempSync(join(tmpdir(), 'headgrader-browser-'));
  const args = ['--address', '127.0.0.1', '--port', String(port), '--threads', '2', ...extra];
  if (serverHas('--store') && !extra.includes('--store')) args.push('--store', 'none');
  const child = spawn(serverBin, args, { cwd: workdir, stdio: ['ignore', 'pipe', 'pipe'] });
  let stderr = '';
  child.stderr.on('data', (chunk) => { stderr += chunk; });
  const origin = await new Promise((resolveOrigin, reject) => {
    let out = '';
    const timer = setTimeout(() => reject(new Error(`server did not start: ${stderr}`)), 20000);
    child.stdout.on('data', (chunk) => {
      out += chunk;
      const m = /listening on http:\/\/([\d.]+):(\d+)/.exec(out);
      if (m) {
        clearTimeout(timer);
        resolveOrigin(`http://127.0.0.1:${m[2]}`);
      }
    });
    child.on('exit', (code) => reject(new Error(`server exited ${code}: ${stderr}`)));
  });
  return {
    origin,
    async stop() {
      const exited = new Promise((r) => child.on('exit', r));
      child.kill('SIGTERM');
      await exited;
      rmSync(workdir, { recursive: true, force: true });
    },
  };
}

// A loopback port free now (for a server whose configuration must name it before it starts).
export function freePort() {
  return new Promise((resolvePort, reject) => {
    const probe = createServer();
    probe.on('error', reject);
    probe.listen(0, '127.0.0.1', () => {
      const { port } = probe.address();
      probe.close(() => resolvePort(port));
    });
  });
}

// The LTI suite's independent platform (tests/lti/platform.py via lti_platform.py) for a tool
// at `base`: resolves to {config (the --lti file), login (the /lti/login query), stop()}.
export async function startPlatform(base) {
  const workdir = mkdtempSync(join(tmpdir(), 'headgrader-lms-'));
  const child = spawn('/usr/bin/python3', [join(here, 'lti_platform.py'), workdir, base], { stdio: ['pipe', 'pipe', 'pipe'] });
  let stderr = '';
  child.stderr.on('data', (chunk) => { stderr += chunk; });
  const info = await new Promise((resolveInfo, reject) => {
    let out = '';
    const timer = setTimeout(() => reject(new Error(`the platform did not start: ${stderr}`)), 20000);
    child.stdout.on('data', (chunk) => {
      out += chunk;
      if (out.includes('\n')) {
        clearTimeout(timer);
        resolveInfo(JSON.parse(out.slice(0, out.indexOf('\n'))));
      }
    });
    child.on('exit', (code) => reject(new Error(`the platform exited ${code}: ${stderr}`)));
  });
  const { config, ...login } = info;
  return {
    config,
    login: new URLSearchParams({ ...login, target_link_uri: `${base}/lti/launch` }).toString(),
    async stop() {
      const exited = new Promise((r) => child.on('exit', r));
      child.stdin.end();
      await exited;
      rmSync(workdir, { recursive: true, force: true });
    },
  };
}

// A fresh Chromium profile each time; the flags keep it from calling anywhere by itself.
export async function startBrowser() {
  const profile = mkdtempSync(join(tmpdir(), 'headgrader-chromium-'));
  const context = await chromium.launchPersistentContext(profile, {
    executablePath: chromiumBin,
    headless: true,
    viewport: { width: 1100, height: 900 },
    deviceScaleFactor: 1,
    locale: 'en-US',
    timezoneId: 'UTC',
    args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run',
      '--disable-background-networking', '--disable-component-update', '--disable-sync',
      '--font-render-hinting=none', '--force-color-profile=srgb', '--hide-scrollbars'],
  });
  return {
    context,
    async stop() {
      await context.close();
      rmSync(profile, { recursive: true, force: true });
    },
  };
}

// One server (the bundled problems) and one browser for a test file: started before its tests,
// stopped after them. Their handles are the fields `server` and `browser` of what it returns.
export function serverAndBrowser() {
  const running = {};
  before(async () => {
    [running.server, running.browser] = await Promise.all([startServer(), startBrowser()]);
  });
  after(async () => {
    await running.browser?.stop();
    await running.server?.stop();
  });
  return running;
}

// A page on `origin` that records every request and console error. Requests to any other
// origin are refused (and recorded), so a page that tried one fails the test that checks.
export async function openPage(context, origin, path = '/') {
  const page = await context.newPage();
  const requests = [];
  const foreign = [];
  const errors = [];
  await page.route('**/*', (route) => {
    const url = route.request().url();
    requests.push({ url, method: route.request().method(), body: route.request().postData(), headers: route.request().headers() });
    if (!url.startsWith(`${origin}/`) && !url.startsWith('data:')) {
      foreign.push(url);
      return route.abort();
    }
    return route.continue();
  });
  page.on('console', (message) => {
    if (message.type() === 'error') errors.push(message.text());
  });
  page.on('pageerror', (error) => errors.push(String(error)));
  // Each test starts with nothing remembered from another (the profile is shared).
  await page.goto(`${origin}/healthz`);
  await page.evaluate(() => localStorage.clear());
  await page.goto(`${origin}${path}`);
  await page.waitForSelector('body[data-ready="true"]');
  return { page, requests, foreign, errors };
}

// The same answer straight from the API, to compare the page's cells with.
export async function apiPost(origin, path, body) {
  const response = await fetch(`${origin}${path}`, { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify(body) });
  return { status: response.status, body: await response.json(), headers: response.headers };
}

// The page's shown precision (web/grid.js formatNumber), written again here from its rule.
export function shown(x) {
  if (x === null) return '–';
  if (Number.isInteger(x)) return String(x);
  const text = x.toFixed(4);
  return /^-0\.0+$/.test(text) ? text.slice(1) : text;
}

// The texts of the cells of a result table (`selector`), row by row, the row labels left out.
export async function cellTexts(page, selector) {
  return page.$$eval(`${selector} tbody tr`, (rows) => rows.map((tr) => Array.from(tr.querySelectorAll('td')).map((td) => td.textContent)));
}

// Shows problem `id` and waits until its grids are there.
export async function selectProblem(page, id) {
  await page.selectOption('#problem-select', id);
  await page.waitForSelector(`body[data-problem="${id}"]`);
}

// Enters a submission through the paste boxes (one form each, as a student would paste).
export async function enterMatrices(page, matrices) {
  for (const [name, text] of Object.entries(matrices)) {
    await page.fill(`#paste-${name}`, text);
  }
}

// How many pixels of two PNGs differ (any channel by more than 40 of 255), computed by
// drawing both on canvases in a blank page: {width, height, other: [w, h], differing}.
export async function comparePngs(context, a, b) {
  const page = await context.newPage();
  try {
    return await page.evaluate(async ([first, second]) => {
      const load = (base64) => new Promise((ok, fail) => {
        const image = new Image();
        image.onload = () => ok(image);
        image.onerror = fail;
        image.src = `data:image/png;base64,${base64}`;
      });
      const [x, y] = await Promise.all([load(first), load(second)]);
      const pixels = (image) => {
        const canvas = document.createElement('canvas');
        canvas.width = image.width;
        canvas.height = image.height;
        const g = canvas.getContext('2d');
        g.drawImage(image, 0, 0);
        return g.getImageData(0, 0, image.width, image.height).data;
      };
      // The overlap is compared; what only one of them covers counts as differing (an element
      // at a fractional position may come out a pixel taller or shorter).
      const w = Math.min(x.width, y.width);
      const h = Math.min(x.height, y.height);
      const p = pixels(x);
      const q = pixels(y);
      let differing = x.width * x.height - w * h;
      for (let row = 0; row < h; row += 1) {
        for (let col = 0; col < w; col += 1) {
          const i = 4 * (row * x.width + col);
          const j = 4 * (row * y.width + col);
          if (Math.abs(p[i] - q[j]) > 40 || Math.abs(p[i + 1] - q[j + 1]) > 40 || Math.abs(p[i + 2] - q[j + 2]) > 40) differing += 1;
        }
      }
      return { width: x.width, height: x.height, other: [y.width, y.height], differing };
    }, [a.toString('base64'), b.toString('base64')]);
  } finally {
    await page.close();
  }
}

// The handout's answers, and a key too soft to pass (API.md §5's README example).
export const HANDOUT = {
  'consonant-anywhere': { W_q: '[[1, 1]]', W_k: 'np.array([[0, 5]])', W_V: '[1 0; 0 1]' },
  'consonant-proportion': { W_q: '[[1, 1]]', W_k: '[[1, 1]]', W_V: '[[1, 0], [0, 1]]' },
  'first-position': { W_q: '[[1, 1, 0]]', W_k: '[[0, 0, 5]]', W_V: '[0 1 0; 0 0 0]' },
};
export const SOFT_KEY = { W_q: '[[1, 1]]', W_k: '[[0, 2]]', W_V: '[[1, 0], [0, 1]]' };

// The failing submission's result panel, as the screenshot test and its baseline script see it.
export async function showSoftKeyResult(page) {
  await selectProblem(page, 'consonant-anywhere');
  await enterMatrices(page, SOFT_KEY);
  await page.click('#grade');
  await page.waitForSelector('#heatmap');
}

// The result panel alone, the sections around it hidden, so that it is drawn at the same
// whole-pixel position whatever the rest of the page holds (text at a fractional offset is
// antialiased differently everywhere).
export async function resultPanelShot(page) {
  await page.evaluate(() => {
    for (const id of ['problem-section', 'entry-section', 'steps-section']) document.getElementById(id).style.display = 'none';
    // One column, the panel at its full height (on a wide screen it is a column of its own
    // that scrolls inside the window).
    document.querySelector('main').style.display = 'block';
    Object.assign(document.getElementById('result-section').style, { position: 'static', maxHeight: 'none', overflow: 'visible', padding: '0' });
    document.querySelector('header').style.display = 'none';
    document.querySelector('.skip').style.display = 'none';
    window.scrollTo(0, 0);
  });
  return page.locator('#result-section').screenshot({ animations: 'disabled' });
}
