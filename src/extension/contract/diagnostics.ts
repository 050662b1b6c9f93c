import * as vscode from 'vscode';
import type { Registry } from '../registry';
import { contractCore } from './lazyCore';
import type { ContractDiagnostic } from '../../core/contract';
import { isContractDocument, SOURCE, toRange } from './documents';

const SEVERITY: Record<ContractDiagnostic['severity'], vscode.DiagnosticSeverity> = {
  error: vscode.DiagnosticSeverity.Error,
  warning: vscode.DiagnosticSeverity.Warning,
  information: vscode.DiagnosticSeverity.Information,
  hint: vscode.DiagnosticSeverity.Hint,
};

/** Typing pauses shorter than this do not re-validate; validation itself is a few ms. */
const DEBOUNCE_MS = 150;

/**
 * Keeps one DiagnosticCollection in step with open contracts: validated on open, on change (debounced)
 * and cleared on close. The core does the work; this only maps offsets to positions.
 */
export function registerContractDiagnostics(registry: Registry): vscode.DiagnosticCollection {
  const log = registry.log;
  const collection = vscode.languages.createDiagnosticCollection('phasewise-contract');
  const timers = new Map<string, NodeJS.Timeout>();

  const validate = (doc: vscode.TextDocument): void => {
    if (!isContractDocument(doc)) return;
    const started = performance.now();
    const { diagnostics } = contractCore().parseContract(doc.getText(), doc.fileName);
    collection.set(
      doc.uri,
      diagnostics.map((d) => {
        const diag = new vscode.Diagnostic(toRange(doc, d.range), d.message, SEVERITY[d.severity]);
        diag.code = d.code;
        diag.source = SOURCE;
        return diag;
      }),
    );
    log.trace(`contract: validated ${doc.fileName} in ${(performance.now() - started).toFixed(1)} ms (${diagnostics.length} findings)`);
  };

  const schedule = (doc: vscode.TextDocument): void => {
    if (!isContractDocument(doc)) return;
    const key = doc.uri.toString();
    clearTimeout(timers.get(key));
    timers.set(key, setTimeout(() => {
      timers.delete(key);
      validate(doc);
    }, DEBOUNCE_MS));
  };

  registry.subscribe(
    collection,
    vscode.workspace.onDidOpenTextDocument(validate),
    vscode.workspace.onDidChangeTextDocument((e) => schedule(e.document)),
    vscode.workspace.onDidCloseTextDocument((doc) => {
      clearTimeout(timers.get(doc.uri.toString()));
      collection.delete(doc.uri);
    }),
    { dispose: () => timers.forEach((t) => clearTimeout(t)) },
  );
  // Contracts already open are validated after activation returns: the first validation loads the core
  // bundle (yaml + ajv), which must not count against activation (DESIGN §6: ≤ 50 ms).
  const initial = setTimeout(() => vscode.workspace.textDocuments.forEach(validate), 0);
  registry.subscribe({ dispose: () => clearTimeout(initial) });
  return collection;
}
