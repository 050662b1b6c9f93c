import * as vscode from 'vscode';
import type { Registry } from '../registry';
import { ContractCodeActions } from './codeActions';
import { ContractCodeLens, evaluateContractCommand, generateK6ScriptCommand, newLoadContract } from './commands';
import { registerContractDiagnostics } from './diagnostics';
import { ContractCompletion, ContractHover } from './hoverCompletion';

/** Contract files by name, in YAML or JSON. */
const SELECTOR: vscode.DocumentSelector = [
  { pattern: '**/*.loadcontract.{yaml,yml,json}' },
  { scheme: 'untitled', language: 'yaml' },
];

/** Everything the editor does for load contracts: diagnostics, hovers, completions, fixes, lenses, commands. */
export function registerContractFeatures(registry: Registry): void {
  registry.registerCommand('newLoadContract', newLoadContract);
  registry.registerCommand('generateK6Script', generateK6ScriptCommand(registry.log));
  registry.registerCommand('evaluateContract', evaluateContractCommand(registry));
  registerContractDiagnostics(registry);
  registry.subscribe(
    vscode.languages.registerCodeActionsProvider(SELECTOR, new ContractCodeActions(), { providedCodeActionKinds: ContractCodeActions.kinds }),
    vscode.languages.registerHoverProvider(SELECTOR, new ContractHover()),
    vscode.languages.registerCompletionItemProvider(SELECTOR, new ContractCompletion(), ':', ' '),
    vscode.languages.registerCodeLensProvider({ pattern: '**/*.loadcontract.{yaml,yml,json}' }, new ContractCodeLens(registry)),
  );
}
