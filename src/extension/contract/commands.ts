import * as path from 'path';
import * as vscode from 'vscode';
import type { Registry } from '../registry';
import type { ContractService } from './service';

async function contractDocument(uri?: vscode.Uri): Promise<vscode.TextDocument | undefined> {
  if (uri instanceof vscode.Uri) return vscode.workspace.openTextDocument(uri);
  return vscode.window.activeTextEditor?.document;
}

/**
 * "Phasewise: New Load Contract": save the template where the user says, or open it untitled. A caller
 * (another extension, a task, the integration suite) may pass the target file and skip the dialog.
 */
export function newLoadContractCommand(service: ContractService): (given?: vscode.Uri) => Promise<vscode.Uri | undefined> {
  return (given) => newLoadContract(service, given);
}

async function newLoadContract(service: ContractService, given?: vscode.Uri): Promise<vscode.Uri | undefined> {
  const folder = vscode.workspace.workspaceFolders?.[0]?.uri;
  const target = given instanceof vscode.Uri ? given : await vscode.window.showSaveDialog({
    defaultUri: folder ? vscode.Uri.joinPath(folder, 'new.loadcontract.yaml') : undefined,
    filters: { 'Load contract': ['yaml', 'yml', 'json'] },
    title: 'Phasewise: save the new load contract (name must end in .loadcontract.yaml)',
  });
  const { text: template } = await service.request('template', {});
  if (!target) {
    const doc = await vscode.workspace.openTextDocument({ content: template, language: 'yaml' });
    await vscode.window.showTextDocument(doc);
    return undefined;
  }
  await vscode.workspace.fs.writeFile(target, Buffer.from(template, 'utf8'));
  await vscode.window.showTextDocument(await vscode.workspace.openTextDocument(target));
  return target;
}

/** "Generate k6 script": the script opens beside the contract as an unsaved JavaScript document. */
export function generateK6ScriptCommand(service: ContractService, log: vscode.LogOutputChannel): (uri?: vscode.Uri) => Promise<string | undefined> {
  return async (uri) => {
    const doc = await contractDocument(uri);
    if (!doc) {
      void vscode.window.showErrorMessage('Phasewise: open a load contract first');
      return undefined;
    }
    const preview = await service.request('k6', { text: doc.getText(), fileName: doc.fileName, contractPath: path.basename(doc.fileName) });
    if (preview.kind === 'error') {
      void vscode.window.showErrorMessage(`Phasewise: ${preview.message}`);
      return undefined;
    }
    const out = await vscode.workspace.openTextDocument({ content: preview.text, language: 'javascript' });
    await vscode.window.showTextDocument(out, { viewColumn: vscode.ViewColumn.Beside });
    log.info(`k6: generated a script from ${doc.fileName}`);
    return preview.text;
  };
}

/** "Evaluate against a run…": asks for the run and span files and hands them to Analyze Run with this contract. */
export function evaluateContractCommand(registry: Registry): (uri?: vscode.Uri) => Promise<unknown> {
  return async (uri) => {
    const doc = await contractDocument(uri);
    if (!doc || doc.isUntitled) {
      void vscode.window.showErrorMessage('Phasewise: save the load contract first, then evaluate it against a run');
      return undefined;
    }
    if (doc.isDirty) await doc.save();
    const run = await vscode.window.showOpenDialog({ canSelectMany: true, openLabel: 'Use as run files', title: 'Phasewise: the run to evaluate (k6 JSON/CSV, per-request records)' });
    if (!run) return undefined;
    const spans = await vscode.window.showOpenDialog({ canSelectMany: true, openLabel: 'Use as span files', title: 'Phasewise: span exports (OTLP, Jaeger or Zipkin JSON)' });
    return vscode.commands.executeCommand(registry.commandId('analyzeRun'), { run: run.map((u) => u.fsPath), spans: (spans ?? []).map((u) => u.fsPath), contract: doc.uri.fsPath });
  };
}

/** The two lenses at the top of every contract. */
export class ContractCodeLens implements vscode.CodeLensProvider {
  constructor(private readonly registry: Registry) {}

  provideCodeLenses(doc: vscode.TextDocument): vscode.CodeLens[] {
    const top = new vscode.Range(0, 0, 0, 0);
    return [
      new vscode.CodeLens(top, { title: 'Evaluate against a run…', command: this.registry.commandId('evaluateContract'), arguments: [doc.uri] }),
      new vscode.CodeLens(top, { title: 'Generate k6 script', command: this.registry.commandId('generateK6Script'), arguments: [doc.uri] }),
    ];
  }
}
