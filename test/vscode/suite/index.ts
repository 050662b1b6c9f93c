// Entry point of the integration suite inside a VS Code extension host. `run()` is the contract of
// @vscode/test-electron (resolve = pass, reject = failure); the harness's runner extension calls
// `runSuite()` and gets the structured results, which are also written to $PHASEWISE_TEST_RESULTS.
import * as fs from 'fs';
import Mocha from 'mocha';
import * as path from 'path';
import * as vscode from 'vscode';
import { metrics, uiExpectations } from './context';

export interface TestOutcome {
  title: string;
  state: 'passed' | 'failed' | 'pending';
  durationMs: number | null;
  error?: string;
}

export interface SuiteResults {
  ok: boolean;
  passes: number;
  failures: number;
  pending: number;
  durationMs: number;
  vscodeVersion: string;
  tests: TestOutcome[];
  metrics: typeof metrics;
  uiExpectations: typeof uiExpectations;
}

/** Order matters: activation must be observed before any other file touches the extension. */
const FIRST = ['activation.test.js', 'commands.test.js'];

function suiteFiles(): string[] {
  const all = fs.readdirSync(__dirname).filter((f) => f.endsWith('.test.js'));
  const rest = all.filter((f) => !FIRST.includes(f)).sort();
  return [...FIRST.filter((f) => all.includes(f)), ...rest].map((f) => path.join(__dirname, f));
}

export function runSuite(): Promise<SuiteResults> {
  const mocha = new Mocha({ ui: 'tdd', timeout: 60_000, color: false, reporter: 'spec' });
  const grep = process.env.PHASEWISE_TEST_GREP;
  if (grep !== undefined && grep !== '') mocha.grep(grep);
  for (const f of suiteFiles()) mocha.addFile(f);
  const tests: TestOutcome[] = [];
  const started = Date.now();
  return new Promise((resolve) => {
    const runner = mocha.run(() => {
      const passes = tests.filter((t) => t.state === 'passed').length;
      const failures = tests.filter((t) => t.state === 'failed').length;
      resolve({
        ok: failures === 0 && passes > 0,
        passes,
        failures,
        pending: tests.filter((t) => t.state === 'pending').length,
        durationMs: Date.now() - started,
        vscodeVersion: vscode.version,
        tests,
        metrics,
        uiExpectations,
      });
    });
    runner.on('pass', (t: Mocha.Test) => tests.push({ title: t.fullTitle(), state: 'passed', durationMs: t.duration ?? null }));
    runner.on('pending', (t: Mocha.Test) => tests.push({ title: t.fullTitle(), state: 'pending', durationMs: null }));
    runner.on('fail', (t: Mocha.Runnable, err: Error) =>
      tests.push({ title: t.fullTitle(), state: 'failed', durationMs: t.duration ?? null, error: err.stack ?? err.message }),
    );
  });
}

export function writeResults(results: SuiteResults, file: string): void {
  fs.mkdirSync(path.dirname(file), { recursive: true });
  // Write then rename: the driver polls for the file and must never read half of it.
  fs.writeFileSync(`${file}.tmp`, JSON.stringify(results, null, 2));
  fs.renameSync(`${file}.tmp`, file);
}

/** @vscode/test-electron entry point. */
export async function run(): Promise<void> {
  const results = await runSuite();
  const out = process.env.PHASEWISE_TEST_RESULTS;
  if (out !== undefined && out !== '') writeResults(results, out);
  if (!results.ok) throw new Error(`${results.failures} of ${results.tests.length} integration tests failed`);
}
