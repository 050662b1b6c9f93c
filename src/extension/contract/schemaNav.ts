/**
 * Finds where the cursor is in a contract's structure, for hovers and completions. Works on the parsed
 * source map when the text parses, and falls back to indentation for half-typed lines.
 */
import type { ParsedSource } from '../../core/contract';

/** The JSON pointer of the key whose key range contains `offset`, if any. */
export function keyAt(source: ParsedSource, offset: number): string | undefined {
  let best: { ptr: string; len: number } | undefined;
  for (const [ptr, e] of source.entries) {
    if (e.key && offset >= e.key.start && offset <= e.key.end) {
      const len = e.key.end - e.key.start;
      if (!best || len < best.len) best = { ptr, len };
    }
  }
  return best?.ptr;
}

/** The innermost entry (by value range) containing `offset`: the value under the cursor. */
export function valueAt(source: ParsedSource, offset: number): string | undefined {
  let best: { ptr: string; len: number } | undefined;
  for (const [ptr, e] of source.entries) {
    if (offset >= e.value.start && offset <= e.value.end) {
      const len = e.value.end - e.value.start;
      if (!best || len <= best.len) best = { ptr, len };
    }
  }
  return best?.ptr;
}

/**
 * The pointer of the block map a new key at (`line`, `column`) would belong to, from indentation alone
 * (half-typed lines do not parse): walk up to less-indented `key:` lines and `- ` sequence items.
 * Sequence items become index 0, which is all the schema lookup needs.
 */
export function parentPointerByIndent(lines: readonly string[], line: number, column: number): string {
  const segments: string[] = [];
  let indent = column;
  for (let i = line - 1; i >= 0 && indent > 0; i--) {
    const m = /^(\s*)(- +)?([A-Za-z0-9_.-]+)\s*:\s*(\S.*)?$/.exec(lines[i]);
    if (!m || lines[i].trimStart().startsWith('#')) continue;
    const dash = m[1].length;
    const keyColumn = dash + (m[2]?.length ?? 0);
    const opensBlock = m[4] === undefined || m[4].startsWith('#');
    if (m[2] && keyColumn === indent) {
      // Sibling of the first key of a sequence item: we are inside item 0 of the sequence above.
      segments.unshift('0');
      indent = dash;
    } else if (keyColumn < indent && opensBlock) {
      segments.unshift(m[3]);
      if (m[2]) segments.unshift('0');
      indent = m[2] ? dash : keyColumn;
    }
  }
  return segments.length === 0 ? '' : `/${segments.join('/')}`;
}
