import * as vscode from 'vscode';
import { isContractDocument, SOURCE, toRange } from './documents';
import type { ContractService } from './service';

/**
 * Quick fixes from the core's mechanical fixes, taken from the service's validation of exactly the
 * document version asked about, so the edits' offsets always match the text they apply to.
 */
export class ContractCodeActions implements vscode.CodeActionProvider {
  static readonly kinds = [vscode.CodeActionKind.QuickFix];

  constructor(private readonly service: ContractService) {}

  async provideCodeActions(doc: vscode.TextDocument, range: vscode.Range, context: vscode.CodeActionContext): Promise<vscode.CodeAction[]> {
    if (!isContractDocument(doc)) return [];
    const ours = context.diagnostics.filter((d) => d.source === SOURCE);
    if (ours.length === 0) return [];
    const version = doc.version;
    const result = await this.service.current(doc);
    if (!result || result.version !== version || doc.version !== version) return [];
    const actions: vscode.CodeAction[] = [];
    for (const d of result.diagnostics) {
      if (!d.fix) continue;
      const r = toRange(doc, d.range);
      if (!r.intersection(range) && !r.contains(range)) continue;
      const match = ours.find((v) => v.code === d.code && v.range.isEqual(r));
      const action = new vscode.CodeAction(d.fix.title, vscode.CodeActionKind.QuickFix);
      action.edit = new vscode.WorkspaceEdit();
      for (const e of d.fix.edits) action.edit.replace(doc.uri, toRange(doc, e), e.newText);
      if (match) action.diagnostics = [match];
      action.isPreferred = d.fix.edits.length === 1;
      actions.push(action);
    }
    return actions;
  }
}
