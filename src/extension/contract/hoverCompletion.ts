import * as vscode from 'vscode';
import type { KeyDoc } from './worker/assist';
import { isContractDocument } from './documents';
import type { ContractService } from './service';

function markdown(info: KeyDoc): vscode.MarkdownString {
  const md = new vscode.MarkdownString(`**${info.name}**\n\n${info.description}`);
  if (info.enumValues.length > 0) md.appendMarkdown(`\n\nOne of: ${info.enumValues.map((v) => `\`${v}\``).join(', ')}`);
  if (info.examples.length > 0) md.appendMarkdown(`\n\nExample: \`${info.examples.join('`, `')}\``);
  return md;
}

/** Hovers: the schema description and examples of the key (or value) under the cursor, found by the worker's parse. */
export class ContractHover implements vscode.HoverProvider {
  constructor(private readonly service: ContractService) {}

  async provideHover(doc: vscode.TextDocument, pos: vscode.Position): Promise<vscode.Hover | undefined> {
    if (!isContractDocument(doc)) return undefined;
    const { hover } = await this.service.request('hover', { text: doc.getText(), fileName: doc.fileName, offset: doc.offsetAt(pos) });
    return hover ? new vscode.Hover(markdown(hover)) : undefined;
  }
}

/** Completions: keys allowed at the cursor's level that are not there yet, and enum values after `key:`. */
export class ContractCompletion implements vscode.CompletionItemProvider {
  constructor(private readonly service: ContractService) {}

  async provideCompletionItems(doc: vscode.TextDocument, pos: vscode.Position): Promise<vscode.CompletionItem[]> {
    if (!isContractDocument(doc) || doc.languageId === 'json') return [];
    const lines = Array.from({ length: doc.lineCount }, (_, i) => doc.lineAt(i).text);
    const { items } = await this.service.request('complete', { lines, line: pos.line, character: pos.character });
    return items.map((c) => {
      const item = new vscode.CompletionItem(c.label, c.kind === 'enum' ? vscode.CompletionItemKind.EnumMember : vscode.CompletionItemKind.Property);
      if (c.insertText !== undefined) item.insertText = c.insertText;
      if (c.detail !== undefined) item.detail = c.detail;
      if (c.doc) item.documentation = markdown(c.doc);
      return item;
    });
  }
}
