/**
 * Hovers and completions as plain data, computed on the contract worker (the schema and the parser
 * live there) and turned into VS Code objects by hoverCompletion.ts. No vscode import.
 */
import { schemaAt } from '../../../core/contract/rules/schemaCheck';
import type { JsonSchema } from '../../../core/contract/rules/schema';
import { parseSource } from '../../../core/contract/parse/sourceMap';
import { keyAt, parentPointerByIndent, valueAt } from '../schemaNav';

/** What a hover or a completion's documentation shows about a key. */
export interface KeyDoc {
  /** Dotted path (hover) or the key itself (completion), e.g. `workload.max_in_flight`. */
  name: string;
  description: string;
  enumValues: string[];
  examples: string[];
}

export interface CompletionData {
  label: string;
  kind: 'property' | 'enum';
  insertText?: string;
  detail?: string;
  doc?: KeyDoc;
}

function keyDoc(schema: JsonSchema, name: string): KeyDoc {
  return {
    name,
    description: String(schema.description ?? ''),
    enumValues: Array.isArray(schema.enum) ? (schema.enum as unknown[]).map((v) => String(v)) : [],
    examples: ((schema.examples as unknown[] | undefined) ?? []).map((e) => (typeof e === 'string' ? e : JSON.stringify(e))),
  };
}

/** The schema text of the key (or value) at `offset`. */
export function hoverAt(text: string, fileName: string, offset: number): KeyDoc | null {
  const source = parseSource(text, fileName);
  const ptr = keyAt(source, offset) ?? valueAt(source, offset);
  if (ptr === undefined || ptr === '') return null;
  const schema = schemaAt(ptr);
  if (!schema?.description) return null;
  return keyDoc(schema, ptr.slice(1).replace(/\//g, '.'));
}

/** Keys already present at the same indentation in the surrounding block (before and after the cursor). */
function siblingKeys(lines: readonly string[], line: number, column: number): string[] {
  const keys: string[] = [];
  const scan = (from: number, step: number): void => {
    for (let i = from; i >= 0 && i < lines.length; i += step) {
      const text = lines[i];
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

/** Keys allowed at the cursor's level that are not there yet, or enum values after `key:` (`lines`: the whole document). */
export function completionsAt(lines: readonly string[], line: number, character: number): CompletionData[] {
  const lineText = (lines[line] ?? '').slice(0, character);
  const above = lines.slice(0, line);
  const valueMatch = /^(\s*)(- +)?([A-Za-z0-9_]+)\s*:\s*(\S*)$/.exec(lineText);
  if (valueMatch) {
    const column = valueMatch[1].length + (valueMatch[2]?.length ?? 0);
    const parent = parentPointerByIndent(above, line, column);
    const schema = schemaAt(`${parent}/${valueMatch[3]}`);
    const values = [...((schema?.enum as unknown[] | undefined) ?? []), ...(typeof schema?.type === 'string' && schema.type === 'boolean' ? [true, false] : [])];
    return values.map((v) => ({ label: String(v), kind: 'enum', ...(schema ? { doc: keyDoc(schema, valueMatch[3]) } : {}) }));
  }
  const keyMatch = /^(\s*)(- +)?([A-Za-z0-9_]*)$/.exec(lineText);
  if (!keyMatch) return [];
  const column = keyMatch[1].length + (keyMatch[2]?.length ?? 0);
  const parent = parentPointerByIndent(above, line, column);
  const props = (schemaAt(parent)?.properties as Record<string, JsonSchema> | undefined) ?? {};
  const present = new Set(siblingKeys(lines, line, column));
  return Object.entries(props)
    .filter(([k]) => !present.has(k))
    .map(([k, s]): CompletionData => {
      const isBlock = s.type === 'object' || s.type === 'array';
      const detail = Array.isArray(s.examples) && s.examples.length > 0 && !isBlock ? `e.g. ${JSON.stringify(s.examples[0])}` : undefined;
      return { label: k, kind: 'property', insertText: isBlock ? `${k}:\n${' '.repeat(column + 2)}` : `${k}: `, doc: keyDoc(s, k), ...(detail ? { detail } : {}) };
    });
}
