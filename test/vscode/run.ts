// `npm run test:vscode`: the Phasewise VS Code harness. Provisions (or reuses) Node 24 + code-server,
// installs the freshly built VSIX and the test-runner extension into a throwaway profile, starts the VS
// Code server on 127.0.0.1 with a fixture workspace, opens the workbench in headless Chromium, waits for
// the integration suite (run inside the extension host) to write its results, then runs the e2e checks
// through the workbench UI. Screenshots and logs go to test/vscode/.artifacts/. Exits non-zero on any
// failure or timeout, and stops every process it started, by PID, in every case.
import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import { chromium, type Browser, type Page } from 'playwright-core';
import { runE2e, type E2eOutcome } from './e2e/scenarios';
import { stillRunning, stopAll } from './harness/processes';
import { provision } from './harness/provision';
import { startChromium, startServer } from './harness/server';
import { installExtensions, packageRunnerExtension, PHASEWISE_VSIX } from './harness/vsix';
import { prepareWorkspace, REPO_ROOT, writeUserSettings } from './harness/workspace';
import type { SuiteResults } from './suite/index';

const ARTIFACTS = path.join(REPO_ROOT, 'test', 'vscode', '.artifacts');
const SCREENSHOTS_FOR_README = path.join(REPO_ROOT, 'media', 'screenshots');
// Counted from the end of provisioning, which has its own timeout per install.
const TOTAL_TIMEOUT_MS = Number(process.env.PHASEWISE_HARNESS_TIMEOUT_MS ?? 20 * 60 * 1000);
const SUITE_TIMEOUT_MS = Number(process.env.PHASEWISE_SUITE_TIMEOUT_MS ?? 6 * 60 * 1000);

function log(message: string): void {
  process.stderr.write(`[harness] ${message}\n`);
}

async function waitForResults(file: string, timeoutMs: number, serverExited: () => boolean): Promise<SuiteResults> {
  const deadline = Date.now() + timeoutMs;
  while (!fs.existsSync(file)) {
    if (serverExited()) throw new Error('the VS Code server exited before the suite wrote its results');
    if (Date.now() > deadline) throw new Error(`no suite results in ${file} after ${timeoutMs} ms`);
    await new Promise((r) => setTimeout(r, 500));
  }
  return JSON.parse(fs.readFileSync(file, 'utf8')) as SuiteResults;
}

function printSuite(results: SuiteResults): void {
  for (const t of results.tests) {
    const mark = t.state === 'passed' ? 'ok  ' : t.state === 'pending' ? 'skip' : 'FAIL';
    process.stdout.write(`  ${mark} ${t.title}${t.durationMs !== null && t.durationMs !== undefined ? ` (${t.durationMs} ms)` : ''}\n`);
    if (t.error !== undefined) process.stdout.write(`       ${t.error.split('\n').slice(0, 6).join('\n       ')}\n`);
  }
  const m = results.metrics ?? {};
  process.stdout.write(`  VS Code ${results.vscodeVersion ?? '?'}; Phasewise activation: ${String(m.activationMs ?? 'not measured')} ms`);
  process.stdout.write(m.activationNote !== undefined ? ` (${String(m.activationNote)})\n` : '\n');
  if (typeof m.activationMs === 'number' && m.activationMs > 50) {
    process.stdout.write(`  warning: activation ${m.activationMs} ms is over the 50 ms target of docs/performance.md\n`);
  }
}

/** Copies the VS Code logs (extension host, server) from the throwaway profile into the artifacts. */
function copyLogs(dirs: readonly string[]): void {
  for (const dir of dirs) {
    for (const candidate of [path.join(dir, 'logs'), path.join(dir, 'data', 'logs')]) {
      if (fs.existsSync(candidate)) fs.cpSync(candidate, path.join(ARTIFACTS, 'logs', path.basename(dir)), { recursive: true });
    }
  }
}

async function main(): Promise<number> {
  const updateScreenshots = process.argv.includes('--update-screenshots') || process.env.PHASEWISE_UPDATE_SCREENSHOTS === '1';
  const keep = process.env.PHASEWISE_KEEP === '1';
  const started = Date.now();
  fs.rmSync(ARTIFACTS, { recursive: true, force: true });
  fs.mkdirSync(ARTIFACTS, { recursive: true });

  const tc = await provision();
  armWatchdog();
  if (!fs.existsSync(PHASEWISE_VSIX)) throw new Error(`${PHASEWISE_VSIX} not found: run npm run package first`);
  const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'phasewise-vscode-'));
  const dirs = {
    userDataDir: path.join(tmp, 'user-data'),
    serverDataDir: path.join(tmp, 'server-data'),
    extensionsDir: path.join(tmp, 'extensions'),
  };
  const workspace = prepareWorkspace(path.join(tmp, 'workspace'));
  writeUserSettings(dirs.userDataDir);
  const runnerVsix = packageRunnerExtension(path.join(tmp, 'vsix'));
  installExtensions(tc, dirs, [PHASEWISE_VSIX, runnerVsix]);

  const resultsFile = path.join(ARTIFACTS, 'suite-results.json');
  let browser: Browser | undefined;
  let suite: SuiteResults | undefined;
  let e2e: E2eOutcome[] = [];
  const failures: string[] = [];
  try {
    const server = await startServer(tc, dirs, workspace, {
      logFile: path.join(ARTIFACTS, 'server.log'),
      env: {
        PHASEWISE_TEST_SUITE: path.join(REPO_ROOT, 'out', 'test', 'vscode', 'suite', 'index.js'),
        PHASEWISE_TEST_RESULTS: resultsFile,
        PHASEWISE_NODE: tc.nodeBin,
      },
    });
    let serverExited = false;
    void server.proc.exited.then(() => {
      serverExited = true;
    });
    log(`VS Code server on ${server.url}`);
    const chrome = await startChromium(path.join(tmp, 'chromium-profile'));
    browser = await chromium.connectOverCDP(chrome.wsEndpoint);
    const context = browser.contexts()[0] ?? (await browser.newContext());
    // Copy buttons write through the browser's clipboard (the web workbench's env.clipboard): a person
    // grants it once; the test profile grants it up front, reading included.
    await context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: new URL(server.url).origin }).catch((err: unknown) => log(`clipboard permission not granted: ${String(err)}`));
    const page: Page = context.pages()[0] ?? (await context.newPage());
    await page.setViewportSize({ width: 1400, height: 900 });
    const consoleLog = fs.createWriteStream(path.join(ARTIFACTS, 'browser-console.log'));
    page.on('console', (msg) => consoleLog.write(`[${msg.type()}] ${msg.text()}\n`));
    const t0 = Date.now();
    await page.goto(server.url);
    log('workbench page loaded; waiting for the integration suite in the extension host');

    suite = await waitForResults(resultsFile, SUITE_TIMEOUT_MS, () => serverExited);
    log(`suite finished ${Date.now() - t0} ms after opening the workbench`);
    process.stdout.write('VS Code integration suite (inside the extension host):\n');
    printSuite(suite);
    if (!suite.ok) failures.push(`integration suite: ${suite.failures} failed, ${suite.passes} passed`);

    e2e = await runE2e(page, { workspace, artifacts: ARTIFACTS, suite });
    process.stdout.write('e2e through the workbench UI:\n');
    for (const o of e2e) {
      process.stdout.write(`  ${o.ok ? 'ok  ' : 'FAIL'} ${o.name}${o.screenshot !== undefined ? ` → ${path.relative(REPO_ROOT, o.screenshot)}` : ''}\n`);
      if (!o.ok) {
        process.stdout.write(`       ${o.error ?? ''}\n`);
        failures.push(`e2e: ${o.name}`);
      }
    }
    if (updateScreenshots) {
      fs.mkdirSync(SCREENSHOTS_FOR_README, { recursive: true });
      for (const o of e2e.filter((x) => x.ok && x.readmeScreenshot !== undefined && x.screenshot !== undefined)) {
        fs.copyFileSync(o.screenshot as string, path.join(SCREENSHOTS_FOR_README, o.readmeScreenshot as string));
        log(`updated media/screenshots/${o.readmeScreenshot as string}`);
      }
    }
  } catch (err) {
    failures.push(err instanceof Error ? err.message : String(err));
  } finally {
    await browser?.close().catch(() => undefined);
    await stopAll();
    const left = stillRunning();
    if (left.length > 0) failures.push(`processes still running: ${left.join(', ')}`);
    copyLogs([dirs.userDataDir, dirs.serverDataDir]);
    if (!keep) fs.rmSync(tmp, { recursive: true, force: true });
    else log(`kept ${tmp}`);
  }
  const summary = { ok: failures.length === 0, failures, durationMs: Date.now() - started, suite, e2e };
  fs.writeFileSync(path.join(ARTIFACTS, 'results.json'), JSON.stringify(summary, null, 2));
  for (const f of failures) process.stdout.write(`FAILED: ${f}\n`);
  process.stdout.write(`${failures.length === 0 ? 'PASS' : 'FAIL'} (${Math.round((Date.now() - started) / 1000)} s; artifacts in test/vscode/.artifacts)\n`);
  return failures.length === 0 ? 0 : 1;
}

let watchdog: NodeJS.Timeout | undefined;
function armWatchdog(): void {
  watchdog = setTimeout(() => {
    process.stdout.write(`FAILED: harness timeout after ${TOTAL_TIMEOUT_MS} ms\n`);
    void stopAll().finally(() => process.exit(1));
  }, TOTAL_TIMEOUT_MS);
}

for (const sig of ['SIGINT', 'SIGTERM'] as const) {
  process.once(sig, () => {
    void stopAll().finally(() => process.exit(130));
  });
}

main()
  .then((code) => {
    clearTimeout(watchdog);
    process.exit(code);
  })
  .catch(async (err: unknown) => {
    clearTimeout(watchdog);
    process.stdout.write(`FAILED: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`);
    await stopAll();
    process.exit(1);
  });
