import * as assert from 'assert';
import { execFile } from 'child_process';
import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import { promisify } from 'util';
import type { Page } from 'playwright-core';
import { jsonForScript } from '../../src/core/report/html/page';
import type { EmbeddedPage } from '../../src/core/report/view/types';
import { repoRoot } from '../helpers/paths';
import { ARTIFACTS, browser, closeBrowser } from './harness';
import { SAMPLE_CONTRACT, SAMPLE_RUN } from './models';

const run = promisify(execFile);
const CLI = path.join(repoRoot, 'dist', 'cli.js');

/** Opens a file:// page, recording every request that is not the file itself and every CSP violation or error. */
async function openFile(file: string, colorScheme: 'light' | 'dark' = 'dark'): Promise<{ page: Page; problems: string[] }> {
  const b = await browser();
  const page = await b.newPage({ viewport: { width: 1400, height: 900 }, colorScheme });
  const problems: string[] = [];
  page.on('request', (r) => {
    if (r.url() !== `file://${file}` && !r.url().startsWith('blob:')) problems.push(`request ${r.url()}`);
  });
  page.on('pageerror', (e) => problems.push(`pageerror ${e.message}`));
  page.on('console', (m) => {
    if (m.type() === 'error' || m.type() === 'warning') problems.push(`console ${m.text()}`);
  });
  await page.addInitScript(() => {
    const g = globalThis as unknown as { __csp: string[]; document: { addEventListener(t: string, f: (e: { violatedDirective: string }) => void): void } };
    g.__csp = [];
    g.document.addEventListener('securitypolicyviolation', (e) => g.__csp.push(e.violatedDirective));
  });
  await page.goto(`file://${file}`);
  return { page, problems };
}

async function csp(page: Page): Promise<string[]> {
  return page.evaluate(() => (globalThis as unknown as { __csp: string[] }).__csp);
}

function embedded(html: string): EmbeddedPage {
  const m = /<script type="application\/json" id="phasewise-data">([\s\S]*?)<\/script>/.exec(html);
  assert.ok(m, 'the data block');
  return JSON.parse(m[1]) as EmbeddedPage;
}

describe('exported HTML files (analyze / reconcile --format html) in headless Chromium', function () {
  this.timeout(120_000);
  let dir: string;
  before(() => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'phasewise-html-'));
  });
  after(async () => {
    fs.rmSync(dir, { recursive: true, force: true });
    await closeBrowser();
  });

  it('escapes data for a <script> block so no text from a file can close it or stand raw in the file', () => {
    const hostile = { name: '</script><script>alert(1)</script><!-- \u2028 & >', span: '\u001b]0;PWNED\u0007 \u009b2J \u202eevil\u202c \u200b \ufeff \ud800' };
    const text = jsonForScript(hostile);
    assert.ok(!/[<>&\u0000-\u001f\u007f-\u009f\u2028\u2029\u202a-\u202e\u200b\ufeff\ud800]/.test(text), text);
    assert.deepStrictEqual(JSON.parse(text), hostile);
  });

  it('the report file: only inlined scripts (by hash), no request, the waterfall of every slow trace, and it works offline', async () => {
    const out = path.join(dir, 'report.html');
    await run(process.execPath, [CLI, 'analyze', '--run', SAMPLE_RUN[0], '--spans', SAMPLE_RUN[1], '--contract', SAMPLE_CONTRACT, '--format', 'html', '--out', out, '--quiet']);
    const html = fs.readFileSync(out, 'utf8');
    const policy = /http-equiv="Content-Security-Policy" content="([^"]+)"/.exec(html)?.[1] ?? '';
    assert.match(policy, /^default-src 'none'; script-src 'sha256-[A-Za-z0-9+/=]+' 'sha256-[A-Za-z0-9+/=]+'; style-src 'none';/);
    assert.ok(!/<script[^>]+src=/.test(html) && !/<link /.test(html) && !/ on[a-z]+=/.test(html), 'no external script, stylesheet or inline handler');
    const data = embedded(html);
    assert.strictEqual(data.kind, 'report');
    if (data.kind !== 'report') return;
    const slow = data.model.report.slow_traces.map((t) => t.trace_id);
    assert.strictEqual(slow.length, 10);
    assert.deepStrictEqual(Object.keys(data.model.embedded?.waterfalls ?? {}).sort(), [...slow].sort());

    const { page, problems } = await openFile(out);
    try {
      await page.waitForSelector('[data-testid="verdict"]');
      assert.ok(((await page.locator('[data-testid="verdict"]').textContent()) ?? '').startsWith('PASS'));
      await page.screenshot({ path: path.join(ARTIFACTS, 'html-report-dark.png') });
      // A window's traces come from the file itself.
      await page.locator('[data-testid="chart-window-counts"]').focus();
      await page.keyboard.press('Enter');
      await page.waitForSelector('[data-testid="selected-traces"]');
      assert.ok((await page.locator('[data-testid="selected-traces"] tbody tr').count()) > 0);
      // A slow trace opens its waterfall; the reconciliation is the CLI's.
      await page.locator(`[data-testid="slow-traces"] button[data-trace="${slow[1]}"]`).click();
      await page.waitForSelector(`[data-loaded-trace="${slow[1]}"]`);
      assert.ok(await page.locator('#phasewise-waterfall').isVisible());
      assert.ok(!(await page.locator('#phasewise-report').isVisible()));
      const cli = await run(process.execPath, [CLI, 'reconcile', '--trace', slow[1], '--run', SAMPLE_RUN[0], '--spans', SAMPLE_RUN[1], '--contract', SAMPLE_CONTRACT]);
      const lines = cli.stdout.split('\n');
      const recon = lines.slice(0, lines.indexOf(''));
      assert.strictEqual(await page.locator('[data-testid="reconciliation"]').textContent(), recon.join('\n'));
      await page.click('[data-testid="compare"]');
      await page.waitForSelector('[data-testid="compare-phases"]');
      await page.screenshot({ path: path.join(ARTIFACTS, 'html-report-waterfall-dark.png') });
      await page.click('text=← Report');
      await page.waitForTimeout(100);
      assert.ok(await page.locator('#phasewise-report').isVisible());
      // A trace whose waterfall is not in the file says so, and how to get it.
      await page.evaluate(() => {
        (globalThis as unknown as { location: { hash: string } }).location.hash = '#trace=0123456789abcdef0123456789abcdef';
      });
      await page.waitForSelector('.pw-error-banner');
      assert.match((await page.locator('.pw-error-banner').textContent()) ?? '', /is not in this file.*phasewise reconcile --trace 0123456789abcdef0123456789abcdef/);
      assert.deepStrictEqual(await csp(page), []);
      assert.deepStrictEqual(problems, []);
    } finally {
      await page.close();
    }
  });

  it('the trace file: one waterfall with its comparison, light theme from the system preference', async () => {
    const out = path.join(dir, 'trace.html');
    const id = '625c8ea7dc4511325469b3fb4956b9e1';
    await run(process.execPath, [CLI, 'reconcile', '--trace', id, '--run', SAMPLE_RUN[0], '--spans', SAMPLE_RUN[1], '--format', 'html', '--out', out]);
    const html = fs.readFileSync(out, 'utf8');
    assert.match(/content="([^"]+)"/.exec(html)?.[1] ?? '', /script-src 'sha256-[^']+';/);
    const data = embedded(html);
    assert.strictEqual(data.kind, 'trace');
    const { page, problems } = await openFile(out, 'light');
    try {
      await page.waitForSelector(`[data-loaded-trace="${id}"]`);
      assert.ok(await page.evaluate(() => (globalThis as unknown as { document: { body: { className: string } } }).document.body.className.includes('vscode-light')));
      assert.strictEqual(await page.locator('.wf-row').count() > 0, true);
      await page.click('[data-testid="compare"]');
      await page.waitForSelector('[data-testid="compare-phases"]');
      await page.screenshot({ path: path.join(ARTIFACTS, 'html-trace-light.png') });
      assert.deepStrictEqual(await csp(page), []);
      assert.deepStrictEqual(problems, []);
    } finally {
      await page.close();
    }
  });
});
