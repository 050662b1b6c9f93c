import { performance } from 'perf_hooks';
import * as vscode from 'vscode';
import { analyzeRunCommand } from './commands/analyzeRun';
import { registerContractFeatures } from './contract/index';
import type { ContractFormsApi } from './contract/form/provider';
import { createProbeFeatures } from './probe/index';
import { Registry } from './registry';

/** When this module's own code started to run (after its small imports). */
const moduleStart = performance.now();

/** What activate() returns to other extensions and tests (`extension.exports`). */
export interface PhasewiseApi {
  /** Milliseconds spent in activate() itself (DESIGN §6: ≤ 50 ms). */
  readonly activationMs: number;
  /**
   * Milliseconds from this module's evaluation to the start of activate(): the extension host's own
   * work between loading the module and calling it (context, storage), not Phasewise's code.
   */
  readonly hostGapMs: number;
  /** Open contract forms: what they show, and edits as their webview asks for them. */
  readonly contractForms: ContractFormsApi;
}

/**
 * Activation registers commands and providers and nothing else: the core (and DuckDB's native module)
 * loads inside the first command or document that needs it, so activation stays cheap.
 */
export function activate(context: vscode.ExtensionContext): PhasewiseApi {
  const started = performance.now();
  const log = vscode.window.createOutputChannel('Phasewise', { log: true });
  context.subscriptions.push(log);
  const registry = new Registry(context, log);
  registry.registerCommand('analyzeRun', analyzeRunCommand(log));
  const contractForms = registerContractFeatures(registry, context.extensionUri);
  const probe = createProbeFeatures(context, log);
  registry.registerCommand('setApiToken', probe.setApiToken);
  registry.registerCommand('validateTraceparent', probe.validateTraceparent);
  registry.registerCommand('startTraceReceiver', probe.startReceiver);
  registry.registerCommand('stopTraceReceiver', probe.stopReceiver);
  registry.registerCommand('sendProbeRequest', probe.sendProbe);
  registry.registerCommand('runProbeSeries', probe.runSeries);
  const activationMs = performance.now() - started;
  const hostGapMs = started - moduleStart;
  log.info(`activated in ${activationMs.toFixed(1)} ms (${hostGapMs.toFixed(1)} ms between module load and activate)`);
  return { activationMs, hostGapMs, contractForms };
}

export function deactivate(): void {}
