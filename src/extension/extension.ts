import * as vscode from 'vscode';
import { analyzeRunCommand } from './commands/analyzeRun';
import { registerContractFeatures } from './contract/index';
import { Registry } from './registry';

/**
 * Activation registers commands and providers and nothing else: the core (and DuckDB's native module)
 * loads inside the first command or document that needs it, so activation stays cheap.
 */
export function activate(context: vscode.ExtensionContext): void {
  const log = vscode.window.createOutputChannel('Phasewise', { log: true });
  context.subscriptions.push(log);
  const registry = new Registry(context, log);

  registry.registerCommand('analyzeRun', analyzeRunCommand(log));
  registerContractFeatures(context, log);
}

export function deactivate(): void {}
