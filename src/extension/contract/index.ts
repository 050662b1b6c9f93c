import * as vscode from 'vscode';
import type { Registry } from '../registry';
import { ContractCodeActions } from './codeActions';
import { ContractCodeLens, evaluateContractCommand, generateK6ScriptCommand, newLoadContractCommand } from './commands';
import { registerContractDiagnostics } from './diagnostics';
import { ContractFormProvider, CONTRACT_FORM_VIEW_TYPE, openAsFormCommand, openAsTextCommand, type ContractFormsApi } from './form/provider';
import type { RunSelection } from './form/runs';
import { ContractCompletion, ContractHover } from './hoverCompletion';
import { ContractService } from './service';

/** Contract files by name, in YAML or JSON. */
const SELECTOR: vscode.DocumentSelector = [
  { pattern: '**/*.loadcontract.{yaml,yml,json}' },
  { scheme: 'untitled', language: 'yaml' },
];

/** Everything the editor does for load contracts: diagnostics, hovers, completions, fixes, lenses, commands, the form. */
export function registerContractFeatures(registry: Registry, extensionUri: vscode.Uri, runs: RunSelection): ContractFormsApi {
  // The contract core runs on the service's worker thread, started with the first contract.
  const service = new ContractService(registry.log);
  registry.subscribe(service);
  registry.registerCommand('newLoadContract', newLoadContractCommand(service));
  registry.registerCommand('generateK6Script', generateK6ScriptCommand(service, registry.log));
  registry.registerCommand('evaluateContract', evaluateContractCommand(registry));
  registry.registerCommand('openContractForm', openAsFormCommand());
  registry.registerCommand('openContractText', openAsTextCommand());
  registerContractDiagnostics(service, registry);
  const forms = new ContractFormProvider(extensionUri, service, runs, registry);
  registry.subscribe(
    vscode.languages.registerCodeActionsProvider(SELECTOR, new ContractCodeActions(service), { providedCodeActionKinds: ContractCodeActions.kinds }),
    vscode.languages.registerHoverProvider(SELECTOR, new ContractHover(service)),
    vscode.languages.registerCompletionItemProvider(SELECTOR, new ContractCompletion(service), ':', ' '),
    vscode.languages.registerCodeLensProvider({ pattern: '**/*.loadcontract.{yaml,yml,json}' }, new ContractCodeLens(registry)),
    vscode.window.registerCustomEditorProvider(CONTRACT_FORM_VIEW_TYPE, forms, {
      webviewOptions: { retainContextWhenHidden: false },
      supportsMultipleEditorsPerDocument: true,
    }),
  );
  return forms.api();
}
