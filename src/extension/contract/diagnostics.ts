import * as vscode from 'vscode';
import type { ContractDiagnostic } from '../../core/contract';
import { SOURCE, toRange } from './documents';
import type { Registry } from '../registry';
import type { ContractService } from './service';

const SEVERITY: Record<ContractDiagnostic['severity'], vscode.DiagnosticSeverity> = {
  error: vscode.DiagnosticSeverity.Error,
  warning: vscode.DiagnosticSeverity.Warning,
  information: vscode.DiagnosticSeverity.Information,
  hint: vscode.DiagnosticSeverity.Hint,
};

export function toDiagnostic(doc: vscode.TextDocument, d: ContractDiagnostic): vscode.Diagnostic {
  const diag = new vscode.Diagnostic(toRange(doc, d.range), d.message, SEVERITY[d.severity]);
  diag.code = d.code;
  diag.source = SOURCE;
  return diag;
}

/**
 * Keeps one DiagnosticCollection in step with the service's validations (each for the document version
 * it was computed from) and clears a document's entry when it closes.
 */
export function registerContractDiagnostics(service: ContractService, registry: Registry): vscode.DiagnosticCollection {
  const collection = vscode.languages.createDiagnosticCollection('phasewise-contract');
  registry.subscribe(
    collection,
    service.onDidValidate((r) => {
      const doc = vscode.workspace.textDocuments.find((d) => d.uri.toString() === r.uri);
      if (doc && doc.version === r.version) collection.set(doc.uri, r.diagnostics.map((d) => toDiagnostic(doc, d)));
    }),
    service.onDidClose((uri) => collection.delete(vscode.Uri.parse(uri))),
  );
  return collection;
}
