/** Text helpers of the contract's source map (sourceMap.ts): JSON pointers, indents, insertion points. */

/** Escapes one JSON pointer segment (RFC 6901), the form ajv uses in `instancePath`. */
export function pointerSegment(key: string): string {
  // Most keys have neither `~` nor `/`: skip the two regex replacements for them.
  if (key.indexOf('~') === -1 && key.indexOf('/') === -1) return key;
  return key.replace(/~/g, '~0').replace(/\//g, '~1');
}

export function childPointer(parent: string, key: string | number): string {
  return typeof key === 'number' ? `${parent}/${key}` : `${parent}/${pointerSegment(key)}`;
}

/** Column (0-based) of `offset` within its line. */
export function lineIndent(text: string, offset: number): number {
  const lineStart = text.lastIndexOf('\n', offset - 1) + 1;
  return offset - lineStart;
}

/** Offset just after the end of the line containing `offset - 1` (block collections end past their newline). */
export function blockInsertPoint(text: string, end: number): number {
  // A block collection's range ends after trailing newlines/comments; back up to the last content char.
  let i = end;
  while (i > 0 && /\s/.test(text[i - 1])) i--;
  const nl = text.indexOf('\n', i);
  return nl === -1 ? text.length : nl + 1;
}
