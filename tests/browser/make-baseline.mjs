// Writes the screenshot baseline of the result panel (tests/browser/baseline/result-panel.png)
// and the README's picture (docs/student-page.png), both of the failing "soft key"
// submission. Run it after a deliberate change to the page's look, check the pictures by eye,
// and commit them:  node tests/browser/make-baseline.mjs   (HEADGRADER_SERVER_BIN to choose
// the server binary; build/server/headgrader-server by default).
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { openPage, repo, resultPanelShot, showSoftKeyResult, startBrowser, startServer } from './harness.mjs';

const server = await startServer();
const browser = await startBrowser();
try {
  const { page } = await openPage(browser.context, server.origin);
  await showSoftKeyResult(page);
  // The README's picture: the panel as on a laptop beside the handout.
  await page.setViewportSize({ width: 860, height: 900 });
  writeFileSync(join(repo, 'docs/student-page.png'), await page.locator('#result-section').screenshot({ animations: 'disabled' }));
  // The baseline: at the suite's viewport (tests/browser/harness.mjs, startBrowser).
  await page.setViewportSize({ width: 1100, height: 900 });
  writeFileSync(join(repo, 'tests/browser/baseline/result-panel.png'), await resultPanelShot(page));
  console.log('wrote tests/browser/baseline/result-panel.png and docs/student-page.png');
} finally {
  await browser.stop();
  await server.stop();
}
