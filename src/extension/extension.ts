import { performance } from 'perf_hooks';
import * as vscode from 'vscode';
import { registerContractFeatures } from './contract/index';
import type { ContractFormsApi } from './contract/form/provider';
import { RunManagerSelection } from './contract/form/runSelection';
import { createProbeFeatures } from './probe/index';
import { openProbeRun } from './probe/probeRun';
import { Registry } from './registry';
import { registerRunFeatures, type TestHooks } from './runs/index';
import type { RunService } from './runs/runManager';

/** When this module's own code started to run (after its small imports). */
const moduleStart = performance.now();

/** What activate() returns to other extensions and tests (`extension.exports`). */
export interface PhasewiseApi {
  /** Milliseconds spent in activate() itself (docs/performance.md: ≤ 50 ms). */
  readonly activationMs: number;
  /**
   * Milliseconds from this module's evaluation to the start of activate(): the extension host's own
   * work between loading the module and calling it (context, storage), not Phasewise's code.
   */
  readonly hostGapMs: number;
  /** Open contract forms: what they show, and edits as their webview asks for them. */
  readonly contractForms: ContractFormsApi;
  /** The selected run and its database (src/extension/README.md). */
  readonly runs: RunService;
  /** For the integration suite: what the panels received, the views' contents. */
  readonly testHooks: TestHooks;
}

/**
 * Activation registers commands, views and providers and nothing else: the core (and DuckDB's native
 * module) loads inside the first command, view or document that needs it, on worker threads for
 * everything that touches a run, so activation stays cheap.
 */
export function activate(context: vscode.ExtensionContext): PhasewiseApi {
  const started = performance.now();
  const log = vscode.window.createOutputChannel('Phasewise', { log: true });
  context.subscriptions.push(log);
  const registry = new Registry(context, log);

  // The receiver runs on the run worker and reports through it; the probe features are built after it.
  let receiverEvents: Parameters<typeof registerRunFeatures>[2] = () => undefined;
  const run = registerRunFeatures(registry, context, (e) => receiverEvents(e));
  const formRuns = new RunManagerSelection(run.runs);
  registry.subscribe(formRuns);
  const contractForms = registerContractFeatures(registry, context.extensionUri, formRuns);
  const probe = createProbeFeatures(context, log, run.runs, (result, files, contract) => openProbeRun(run, result, files, contract));
  receiverEvents = (e) => probe.receiver.onEvent(e);
  registry.registerCommand('setApiToken', probe.setApiToken);
  registry.registerCommand('validateTraceparent', probe.validateTraceparent);
  registry.registerCommand('startTraceReceiver', probe.startReceiver);
  registry.registerCommand('stopTraceReceiver', probe.stopReceiver);
  registry.registerCommand('sendProbeRequest', probe.sendProbe);
  registry.registerCommand('runProbeSeries', probe.runSeries);
  const activationMs = performance.now() - started;
  const hostGapMs = started - moduleStart;
  log.info(`activated in ${activationMs.toFixed(1)} ms (${hostGapMs.toFixed(1)} ms between module load and activate)`);
  return { activationMs, hostGapMs, contractForms, runs: run.runs, testHooks: run.testHooks };
}

export function deactivate(): void {}
