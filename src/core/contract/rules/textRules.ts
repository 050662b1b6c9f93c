/**
 * A contract value holding control characters, line or paragraph separators, bidi controls or a
 * byte-order mark is a paste accident or an attack (a name that ends the comment of a generated
 * script, a route that reads differently from what it is). Phasewise escapes them wherever it prints
 * or generates code (escape.ts, k6Script.ts jsLiteral); the contract's author should still see them.
 */
import { escapeLine, hasUnsafeCharacters } from '../../escape';
import type { ContractContext } from './context';

/** At most this many findings per contract: one per value, the first ones in the file. */
const MAX_FINDINGS = 20;

export function checkCharacters(ctx: ContractContext): void {
  let found = 0;
  for (const [pointer, entry] of ctx.source.entries) {
    if (found >= MAX_FINDINGS) return;
    if (typeof entry.raw === 'string' && hasUnsafeCharacters(entry.raw)) {
      found++;
      ctx.at(pointer, 'value', 'unsafe-characters', 'warning', `This value holds control, line-separator or bidi characters (${shown(entry.raw)}); they are escaped wherever Phasewise prints it or writes it into a k6 script, but a contract value should not need them.`);
    }
    for (const key of entry.keys ?? []) {
      if (found >= MAX_FINDINGS) return;
      if (!hasUnsafeCharacters(key)) continue;
      found++;
      ctx.at(ctx.child(pointer, key), 'key', 'unsafe-characters', 'warning', `This key holds control, line-separator or bidi characters (${shown(key)}).`);
    }
  }
}

/** The value with its unsafe characters escaped, cut to a readable length. */
function shown(text: string): string {
  const escaped = escapeLine(text);
  return `"${escaped.length > 60 ? `${escaped.slice(0, 59)}…` : escaped}"`;
}
