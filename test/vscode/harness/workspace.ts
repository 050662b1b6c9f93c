// The fixture workspace the integration suite runs in: a fresh copy of the repo's samples/ plus one
// malformed input, made at run time in a throwaway folder so that nothing the extension writes lands in
// the clone. The suite finds the files by these fixed relative paths (FIXTURE below).
import * as fs from 'fs';
import * as path from 'path';

export const REPO_ROOT = path.resolve(__dirname, '..', '..', '..', '..');

/** Relative paths inside the fixture workspace; shared by the drivers and the suite. */
export const FIXTURE = {
  samples: 'samples',
  malformedDir: 'malformed',
  /** Not any trace or run format: the sniffer must reject it at line 1 (the garbage is on line 1). */
  malformedSpans: 'malformed/not-a-trace.jsonl',
  malformedLine: 1,
  /** Load contracts for the editor features (copied from test/vscode/fixtures/contracts/). */
  contractsDir: 'contracts',
  /** Four known mistakes: plateau-too-short, duration-no-unit, unknown-key, budgets-exceed-slo. */
  mistakesContract: 'contracts/mistakes.loadcontract.yaml',
  /** A workload without executor/rate and an empty `model:`, for completions. */
  completionContract: 'contracts/completion.loadcontract.yaml',
  /** samples/steady.loadcontract.yaml under a comment: the contract form's tests edit it. */
  formContract: 'contracts/form.loadcontract.yaml',
  /** One mistake (plateau-too-short on line 11), opened only by the e2e check through the UI. */
  e2eContract: 'contracts/e2e.loadcontract.yaml',
  /** A real OpenTelemetry JS run (test/fixtures/shared-samples/joined-otel-js): the form's phase preview and Evaluate. */
  joinedDir: 'joined-otel-js',
  /** Declared phases and gates sized to joined-otel-js (contractFormRuns.test.ts). */
  joinedContract: 'contracts/joined.loadcontract.yaml',
} as const;

/** What the malformed file holds: one line of prose where a span export is expected. */
export const MALFORMED_SPANS_TEXT = 'this line is not OTLP, Jaeger or Zipkin JSON\n';

/** Creates `<dir>/samples` (copy of the repo's samples/), the malformed file, `contracts/` and `joined-otel-js/`; returns `dir`. */
export function prepareWorkspace(dir: string): string {
  fs.mkdirSync(dir, { recursive: true });
  const src = path.join(REPO_ROOT, 'samples');
  fs.cpSync(src, path.join(dir, FIXTURE.samples), { recursive: true });
  fs.mkdirSync(path.join(dir, FIXTURE.malformedDir), { recursive: true });
  fs.writeFileSync(path.join(dir, FIXTURE.malformedSpans), MALFORMED_SPANS_TEXT);
  fs.cpSync(path.join(REPO_ROOT, 'test', 'vscode', 'fixtures', 'contracts'), path.join(dir, FIXTURE.contractsDir), { recursive: true });
  fs.cpSync(path.join(REPO_ROOT, 'test', 'fixtures', 'shared-samples', 'joined-otel-js'), path.join(dir, FIXTURE.joinedDir), { recursive: true });
  return dir;
}

/** Writes the settings a test profile needs (no trust prompt, no welcome page, no telemetry). */
export function writeUserSettings(userDataDir: string, extra: Record<string, unknown> = {}): void {
  const settings = {
    'security.workspace.trust.enabled': false,
    'workbench.startupEditor': 'none',
    'workbench.tips.enabled': false,
    'telemetry.telemetryLevel': 'off',
    'extensions.autoCheckUpdates': false,
    'extensions.autoUpdate': false,
    'update.mode': 'none',
    // Chat/agent features start extra services and a side panel: slower start-up, noisier screenshots.
    'chat.disableAIFeatures': true,
    'workbench.secondarySideBar.defaultVisibility': 'hidden',
    'extensions.ignoreRecommendations': true,
    'workbench.enableExperiments': false,
    // The web workbench (code-server) defaults files.autoSave to "afterDelay" (desktop VS Code: "off"), so
    // every edit reached the disk a second later and no tab stayed dirty; the suite asserts dirty state,
    // save and revert as a desktop user sees them.
    'files.autoSave': 'off',
    ...extra,
  };
  const dir = path.join(userDataDir, 'User');
  fs.mkdirSync(dir, { recursive: true });
  fs.writeFileSync(path.join(dir, 'settings.json'), JSON.stringify(settings, null, 2));
}
