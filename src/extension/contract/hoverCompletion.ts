import * as vscode from 'vscode';
import type { JsonSchema } from '../../core/contract';
import { contractCore } from './lazyCore';
import { isContractDocument } from './documents';
import { keyAt, parentPointerByIndent, valueAt } from './schemaNav';

function describe(schema: JsonSchema, name: string): vscode.MarkdownString {
  const md = new vscode.MarkdownString(`**${name}**\n\n${String(schema.description ?? '')}`);
  const examples = (schema.examples as unknown[] | undefined) ?? [];
  if (Array.isArray(schema.enum)) md.appendMarkdown(`\n\nOne of: ${(schema.enum as unknown[]).map((v) => `\`${String(v)}\``).join(', ')}`);
  if (examples.length > 0) md.appendMarkdown(`\n\nExample: \`${examples.map((e) => (typeof e === 'string' ? e : JSON.stringify(e))).join('`, `')}\``);
  return md;
}

/** Hovers: the schema description and examples of the key (or value) under the cursor. */
export class ContractHover implements vscode.HoverProvider {
  provideHover(doc: vscode.TextDocument, pos: vscode.Position): vscode.Hover | undefined {
    if (!isContractDocument(doc)) return undefined;
    const { parseSource, schemaAt } = contractCore();
    const source = parseSource(doc.getText(), doc.fileName);
    const offset = doc.offsetAt(pos);
    const ptr = keyAt(source, offset) ?? valueAt(source, offset);
    if (ptr === undefined || ptr === '') return undefined;
    const schema = schemaAt(ptr);
    if (!schema?.description) return undefined;
    const name = ptr.slice(1).replace(/\//g, '.');
    return new vscode.Hover(describe(schema, name));
  }
}

/** Completions: keys allowed at the cursor's level that are not there yet, and enum values after `key:`. */
export class ContractCompletion implements vscode.CompletionItemProvider {
  provideCompletionItems(doc: vscode.TextDocument, pos: vscode.Position): vscode.CompletionItem[] {
    if (!isContractDocument(doc) || doc.languageId === 'json') return [];
    const { schemaAt } = contractCore();
    const lineText = doc.lineAt(pos.line).text.slice(0, pos.character);
    const lines = Array.from({ length: pos.line }, (_, i) => doc.lineAt(i).text);
    const valueMatch = /^(\s*)(- +)?([A-Za-z0-9_]+)\s*:\s*(\S*)$/.exec(lineText);
    if (valueMatch) {
      const column = valueMatch[1].length + (valueMatch[2]?.length ?? 0);
      const parent = parentPointerByIndent(lines, pos.line, column);
      const schema = schemaAt(`${parent}/${valueMatch[3]}`);
      const values = [...((schema?.enum as unknown[] | undefined) ?? []), ...(typeof schema?.type === 'string' && schema.type === 'boolean' ? [true, false] : [])];
      return values.map((v) => {
        const item = new vscode.CompletionItem(String(v), vscode.CompletionItemKind.EnumMember);
        item.documentation = schema ? describe(schema, valueMatch[3]) : undefined;
        return item;
      });
    }
    const keyMatch = /^(\s*)(- +)?([A-Za-z0-9_]*)$/.exec(lineText);
    if (!keyMatch) return [];
    const column = keyMatch[1].length + (keyMatch[2]?.length ?? 0);
    const parent = parentPointerByIndent(lines, pos.line, column);
    const schema = schemaAt(parent);
    const props = (schema?.properties as Record<string, JsonSchema> | undefined) ?? {};
    const present = new Set(siblingKeys(doc, pos.line, column));
    return Object.entries(props)
      .filter(([k]) => !present.has(k))
      .map(([k, s]) => {
        const item = new vscode.CompletionItem(k, vscode.CompletionItemKind.Property);
        const isBlock = s.type === 'object' || s.type === 'array';
        item.insertText = isBlock ? `${k}:\n${' '.repeat(column + 2)}` : `${k}: `;
        item.documentation = describe(s, k);
        item.detail = Array.isArray(s.examples) && s.examples.length > 0 && !isBlock ? `e.g. ${JSON.stringify(s.examples[0])}` : undefined;
        return item;
      });
  }
}

/** Keys already present at the same indentation in the surrounding block (before and after the cursor). */
function siblingKeys(doc: vscode.TextDocument, line: number, column: number): string[] {
  const keys: string[] = [];
  const scan = (from: number, step: number): void => {
    for (let i = from; i >= 0 && i < doc.lineCount; i += step) {
      const text = doc.lineAt(i).text;
      if (text.trim() === '' || text.trimStart().startsWith('#')) continue;
      const m = /^(\s*)(- +)?([A-Za-z0-9_]+)\s*:/.exec(text);
      const col = m ? m[1].length + (m[2]?.length ?? 0) : text.length - text.trimStart().length;
      if (col < column) return;
      if (m && col === column) keys.push(m[3]);
      if (m?.[2] && col === column && step < 0) return; // reached the start of this sequence item
    }
  };
  scan(line - 1, -1);
  scan(line + 1, 1);
  return keys;
}
