// Renders media/icon.svg to the 128×128 media/icon.png the Marketplace needs, with the same headless
// Chromium the harness uses (run: node out/test/vscode/render-icon.js).
import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import { chromium } from 'playwright-core';
import { stopAll } from './harness/processes';
import { startChromium } from './harness/server';
import { REPO_ROOT } from './harness/workspace';

async function main(): Promise<void> {
  const profile = fs.mkdtempSync(path.join(os.tmpdir(), 'phasewise-icon-'));
  try {
    const chrome = await startChromium(profile);
    const browser = await chromium.connectOverCDP(chrome.wsEndpoint);
    const page = browser.contexts()[0].pages()[0] ?? (await browser.contexts()[0].newPage());
    await page.setViewportSize({ width: 128, height: 128 });
    const svg = fs.readFileSync(path.join(REPO_ROOT, 'media', 'icon.svg'), 'utf8');
    await page.setContent(`<html><body style="margin:0;background:transparent">${svg}</body></html>`);
    await page.locator('svg').screenshot({ path: path.join(REPO_ROOT, 'media', 'icon.png'), omitBackground: true });
    await browser.close();
  } finally {
    await stopAll();
    fs.rmSync(profile, { recursive: true, force: true });
  }
}

main().catch((err: unknown) => {
  process.stderr.write(`${err instanceof Error ? err.message : String(err)}\n`);
  process.exit(1);
});
