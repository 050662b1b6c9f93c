// Test-runner extension, installed next to Phasewise only by the harness (never shipped). VS Code's server
// rejects --extensionTestsPath, so this extension plays that role: when $PHASEWISE_TEST_SUITE names the
// compiled suite (the server passes its environment to the extension host), it loads it after start-up,
// runs it and writes the results JSON the driver is waiting for. It does not await anything in activate().
import * as fs from 'fs';
import * as path from 'path';

interface SuiteModule {
  runSuite(): Promise<unknown>;
  writeResults(results: unknown, file: string): void;
}

function writeCrash(file: string, err: unknown): void {
  const message = err instanceof Error ? (err.stack ?? err.message) : String(err);
  fs.mkdirSync(path.dirname(file), { recursive: true });
  const body = { ok: false, passes: 0, failures: 1, pending: 0, tests: [{ title: 'load suite', state: 'failed', error: message }] };
  fs.writeFileSync(`${file}.tmp`, JSON.stringify(body, null, 2));
  fs.renameSync(`${file}.tmp`, file);
}

export function activate(): void {
  const suite = process.env.PHASEWISE_TEST_SUITE;
  const results = process.env.PHASEWISE_TEST_RESULTS;
  if (suite === undefined || suite === '' || results === undefined || results === '') return;
  // The e2e checks reload the window, which starts a new extension host: the suite ran once already.
  if (fs.existsSync(results)) return;
  setTimeout(() => {
    void (async (): Promise<void> => {
      try {
        const mod = require(suite) as SuiteModule;
        mod.writeResults(await mod.runSuite(), results);
      } catch (err) {
        writeCrash(results, err);
      }
    })();
  }, 0);
}

export function deactivate(): void {}
