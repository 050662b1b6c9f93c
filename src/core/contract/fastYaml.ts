/**
 * Fast path of the contract parser for the YAML contracts are normally written in: space-indented
 * block maps and sequences, one-line plain or simple quoted scalars, one-line flow collections,
 * comments. It yields exactly the value and entries the `yaml` library's Document plus walk() would
 * (same ranges, same core-schema typing) at a tenth of the cost: the per-keystroke budget (DESIGN §6).
 *
 * Anything else (tabs, CR, anchors, aliases, tags, block or multi-line scalars, escapes, duplicate
 * keys, odd indentation, directives, any syntax error) makes it return `undefined` and the caller uses
 * the library, which also owns every error message. This parser never reports errors; it declines.
 */
import type { SourceEntry } from './sourceMap';
import { blockInsertPoint, childPointer, lineIndent } from './sourceText';
import type { OffsetRange } from './types';
import { isKeyChar, isKeyStart, KEYWORD_KEY, resolvePlain } from './yamlCore';

/** Thrown to abandon the fast path; caught in `parseFastYaml`. */
class Decline extends Error {}
const DECLINE = new Decline('outside the fast-path subset');

/** Characters the fast path accepts (no tabs, CR, C0/C1 controls, NBSP, BOM, line/para separators). */
const UNSUPPORTED_CHAR = /[^\n\x20-\x7e\u00a1-\u2027\u202a-\ud7ff\ue000-\ufefe\uff00-\ufffd]/;

const SP = 32;
const NL = 10;

class FastParser {
  readonly entries = new Map<string, SourceEntry>();
  private readonly len: number;
  /** Set by `nextLine`: offset of the first content character of the next content line. */
  private content = 0;
  /** Set by `nextLine`: whether it skipped a comment line. */
  private sawComment = false;
  /** Line start after the value just parsed. */
  private pos = 0;
  /** End of the item just parsed, as the `yaml` library counts it for its collection's range. */
  private itemEnd = 0;
  /** End of the value just parsed (its own range end). */
  private valueEnd = 0;

  constructor(private readonly text: string) {
    this.len = text.length;
  }

  parse(): unknown {
    if (this.nextLine(0) !== 0) throw DECLINE;
    const value = this.blockMap('', undefined, this.content, 0);
    if (this.nextLine(this.pos) !== -1) throw DECLINE;
    return value;
  }

  /** From a line start, skips blank and comment lines; returns the next content line's indent, or -1 at the end. */
  private nextLine(from: number): number {
    const t = this.text;
    let lineStart = from;
    // The library counts a comment line indented deeper than the content after it into the preceding
    // collection's range; which collection is subtle, so such texts go to the library.
    let commentIndent = 0;
    this.sawComment = false;
    for (;;) {
      let i = lineStart;
      while (i < this.len && t.charCodeAt(i) === SP) i++;
      if (i >= this.len) {
        if (commentIndent > 0) throw DECLINE;
        return -1;
      }
      const c = t.charCodeAt(i);
      if (c === NL) {
        lineStart = i + 1;
        continue;
      }
      if (c === 35 /* # */) {
        this.sawComment = true;
        commentIndent = Math.max(commentIndent, i - lineStart);
        const nl = t.indexOf('\n', i);
        if (nl === -1) {
          if (commentIndent > 0) throw DECLINE;
          return -1;
        }
        lineStart = nl + 1;
        continue;
      }
      if (commentIndent > i - lineStart) throw DECLINE;
      this.content = i;
      return i - lineStart;
    }
  }

  /** Offset just past the line containing `i` (after its newline, or the end of the text). */
  private lineEnd(i: number): number {
    const nl = this.text.indexOf('\n', i);
    return nl === -1 ? this.len : nl + 1;
  }

  /** End of a block-map key starting at `p` (followed by `:` and a space or line end), or -1. */
  private blockKeyEnd(p: number): number {
    const t = this.text;
    if (!isKeyStart(t.charCodeAt(p))) return -1;
    let i = p + 1;
    while (i < this.len && isKeyChar(t.charCodeAt(i))) i++;
    if (t.charCodeAt(i) !== 58 /* : */) return -1;
    const next = i + 1 < this.len ? t.charCodeAt(i + 1) : NL;
    return next === SP || next === NL ? i : -1;
  }

  /** Checks a key (the library limits implicit keys to 1024 chars; uniqueness is enforced) and returns it. */
  private keyText(p: number, end: number, out: Record<string, unknown>): string {
    if (end - p > 1000) throw DECLINE;
    const k = this.text.slice(p, end);
    if (KEYWORD_KEY.test(k) || Object.prototype.hasOwnProperty.call(out, k)) throw DECLINE;
    return k;
  }

  private blockMap(pointer: string, key: OffsetRange | undefined, first: number, col: number): Record<string, unknown> {
    const out: Record<string, unknown> = {};
    const keys: string[] = [];
    const range: OffsetRange = { start: first, end: first };
    const entry: SourceEntry = { key, value: range, kind: 'map', flow: false, keys, raw: out };
    this.entries.set(pointer, entry);
    let p = first;
    let lastEnd = range.start;
    for (;;) {
      const kEnd = this.blockKeyEnd(p);
      if (kEnd === -1) throw DECLINE;
      const k = this.keyText(p, kEnd, out);
      const keyRange: OffsetRange = { start: p, end: kEnd };
      if (entry.indent === undefined) entry.indent = lineIndent(this.text, p);
      keys.push(k);
      out[k] = this.mapValue(childPointer(pointer, k), keyRange, kEnd + 1, col);
      lastEnd = Math.max(kEnd, this.valueEnd);
      const end = this.itemEnd;
      const ind = this.nextLine(this.pos);
      if (ind === col) {
        p = this.content;
        continue;
      }
      if (ind > col) throw DECLINE;
      range.end = end;
      break;
    }
    entry.insertAt = blockInsertPoint(this.text, Math.max(lastEnd, range.end));
    return out;
  }

  /** The value after `key:` (at `after`, just past the colon) in a block map whose keys sit at `col`. */
  private mapValue(pointer: string, key: OffsetRange, after: number, col: number): unknown {
    const t = this.text;
    let i = after;
    while (i < this.len && t.charCodeAt(i) === SP) i++;
    const c = i < this.len ? t.charCodeAt(i) : NL;
    if (c !== NL && c !== 35) return this.inlineValue(pointer, key, i);
    // Nothing on the key's line: a nested block collection follows, or the value is null.
    const lineEnd = this.lineEnd(i);
    const ind = this.nextLine(lineEnd);
    if (ind > col) {
      const p = this.content;
      if (t.charCodeAt(p) === 45 /* - */) return this.blockSeq(pointer, key, p, ind);
      return this.blockMap(pointer, key, p, ind);
    }
    // A sequence at the key's own indent is valid YAML but rare in contracts: leave it to the library.
    if (ind === col && t.charCodeAt(this.content) === 45) throw DECLINE;
    // Comments after an empty value (on its line or the next ones) extend the enclosing collection's
    // range in the library, in ways not worth mirroring: leave those texts to it.
    if (this.sawComment || c === 35) throw DECLINE;
    this.entries.set(pointer, { key, value: { start: i, end: i }, kind: 'null', flow: true, plain: true, raw: null });
    this.pos = lineEnd;
    this.valueEnd = i;
    this.itemEnd = i;
    return null;
  }

  private blockSeq(pointer: string, key: OffsetRange | undefined, dash: number, col: number): unknown[] {
    const t = this.text;
    const items: unknown[] = [];
    const range: OffsetRange = { start: dash, end: dash };
    const entry: SourceEntry = { key, value: range, kind: 'seq', flow: false };
    this.entries.set(pointer, entry);
    let p = dash;
    for (let index = 0; ; index++) {
      if (t.charCodeAt(p + 1) !== SP) throw DECLINE;
      let q = p + 1;
      while (q < this.len && t.charCodeAt(q) === SP) q++;
      const c = q < this.len ? t.charCodeAt(q) : NL;
      if (c === NL || c === 35 || c === 45) throw DECLINE; // empty item, or a nested compact sequence
      const itemPointer = childPointer(pointer, index);
      if (this.blockKeyEnd(q) !== -1) items.push(this.blockMap(itemPointer, undefined, q, lineIndent(t, q)));
      else items.push(this.inlineValue(itemPointer, undefined, q));
      const end = this.itemEnd;
      const ind = this.nextLine(this.pos);
      if (ind === col && t.charCodeAt(this.content) === 45) {
        p = this.content;
        continue;
      }
      if (ind >= col) throw DECLINE;
      range.end = end;
      break;
    }
    entry.raw = items;
    return items;
  }

  /** A value that starts on the current line at `i` and must end on it (optionally followed by a comment). */
  private inlineValue(pointer: string, key: OffsetRange | undefined, i: number): unknown {
    const t = this.text;
    const c = t.charCodeAt(i);
    let value: unknown;
    let end: number;
    if (c === 123 /* { */ || c === 91 /* [ */) {
      value = this.flowValue(pointer, key, i);
      end = this.valueEnd;
    } else if (c === 34 /* " */ || c === 39 /* ' */) {
      value = this.quoted(pointer, key, i);
      end = this.valueEnd;
    } else {
      if (!this.plainStartOk(i, false)) throw DECLINE;
      let j = i;
      while (j < this.len) {
        const d = t.charCodeAt(j);
        if (d === NL || (d === 35 && t.charCodeAt(j - 1) === SP)) break;
        if (d === 58 /* : */) {
          const n = j + 1 < this.len ? t.charCodeAt(j + 1) : NL;
          if (n === SP || n === NL) throw DECLINE; // a mapping inside a scalar value
        }
        j++;
      }
      end = j;
      while (end > i && t.charCodeAt(end - 1) === SP) end--;
      value = this.plainEntry(pointer, key, i, end);
    }
    // Only spaces, then optionally a comment (after at least one space), may follow on the line.
    let j = end;
    while (j < this.len && t.charCodeAt(j) === SP) j++;
    if (j < this.len) {
      const d = t.charCodeAt(j);
      if (d === 35 ? j === end : d !== NL) throw DECLINE;
    }
    const lineEnd = this.lineEnd(j);
    this.valueEnd = end;
    this.itemEnd = lineEnd;
    this.pos = lineEnd;
    return value;
  }

  /** Whether a plain scalar may start at `i` (no indicator; `-?:` only when followed by a non-space). */
  private plainStartOk(i: number, flow: boolean): boolean {
    const t = this.text;
    const c = t[i];
    if (c === undefined || ',[]{}#&*!|>\'"%@`'.includes(c)) return false;
    if (c === '-' || c === '?' || c === ':') {
      const n = t[i + 1];
      if (n === undefined || n === ' ' || n === '\n' || (flow && ',[]{}'.includes(n))) return false;
    }
    return true;
  }

  private plainEntry(pointer: string, key: OffsetRange | undefined, start: number, end: number): unknown {
    const value = resolvePlain(this.text.slice(start, end));
    this.entries.set(pointer, { key, value: { start, end }, kind: value === null ? 'null' : 'scalar', flow: true, plain: true, raw: value });
    return value;
  }

  /** A one-line quoted scalar without escapes (`\` in double quotes, `''` in single quotes decline). */
  private quoted(pointer: string, key: OffsetRange | undefined, i: number): string {
    const t = this.text;
    const q = t[i];
    let j = i + 1;
    for (;;) {
      if (j >= this.len) throw DECLINE;
      const c = t[j];
      if (c === '\n' || c === '\\') throw DECLINE;
      if (c === q) {
        if (q === "'" && t[j + 1] === "'") throw DECLINE;
        break;
      }
      j++;
    }
    const value = t.slice(i + 1, j);
    this.entries.set(pointer, { key, value: { start: i, end: j + 1 }, kind: 'scalar', flow: true, plain: false, raw: value });
    this.valueEnd = j + 1;
    return value;
  }

  private skipSpaces(i: number): number {
    while (i < this.len && this.text.charCodeAt(i) === SP) i++;
    return i;
  }

  /** A one-line flow collection at `i`; sets `valueEnd` just past its closing bracket. */
  private flowValue(pointer: string, key: OffsetRange | undefined, i: number): unknown {
    const t = this.text;
    if (t.charCodeAt(i) === 123) {
      const out: Record<string, unknown> = {};
      const keys: string[] = [];
      const range: OffsetRange = { start: i, end: i };
      const entry: SourceEntry = { key, value: range, kind: 'map', flow: true, keys, raw: out };
      this.entries.set(pointer, entry);
      let j = this.skipSpaces(i + 1);
      if (t.charCodeAt(j) !== 125 /* } */) {
        for (;;) {
          if (!isKeyStart(t.charCodeAt(j))) throw DECLINE;
          let kEnd = j + 1;
          while (kEnd < this.len && isKeyChar(t.charCodeAt(kEnd))) kEnd++;
          if (t.charCodeAt(kEnd) !== 58 || t.charCodeAt(kEnd + 1) !== SP) throw DECLINE;
          const k = this.keyText(j, kEnd, out);
          const keyRange: OffsetRange = { start: j, end: kEnd };
          if (entry.indent === undefined) entry.indent = lineIndent(t, j);
          keys.push(k);
          out[k] = this.flowItem(childPointer(pointer, k), keyRange, this.skipSpaces(kEnd + 1));
          j = this.skipSpaces(this.valueEnd);
          const c = t.charCodeAt(j);
          if (c === 125) break;
          if (c !== 44 /* , */) throw DECLINE;
          j = this.skipSpaces(j + 1);
          if (t.charCodeAt(j) === 125) throw DECLINE; // trailing comma
        }
      }
      range.end = j + 1;
      entry.insertAt = Math.max(range.start, range.end - 1);
      this.valueEnd = j + 1;
      return out;
    }
    const items: unknown[] = [];
    const range: OffsetRange = { start: i, end: i };
    const entry: SourceEntry = { key, value: range, kind: 'seq', flow: true };
    this.entries.set(pointer, entry);
    let j = this.skipSpaces(i + 1);
    if (t.charCodeAt(j) !== 93 /* ] */) {
      for (let index = 0; ; index++) {
        items.push(this.flowItem(childPointer(pointer, index), undefined, j));
        j = this.skipSpaces(this.valueEnd);
        const c = t.charCodeAt(j);
        if (c === 93) break;
        if (c !== 44) throw DECLINE;
        j = this.skipSpaces(j + 1);
        if (t.charCodeAt(j) === 93) throw DECLINE;
      }
    }
    range.end = j + 1;
    entry.raw = items;
    this.valueEnd = j + 1;
    return items;
  }

  /** One value inside a flow collection; sets `valueEnd`. */
  private flowItem(pointer: string, key: OffsetRange | undefined, i: number): unknown {
    const t = this.text;
    const c = t.charCodeAt(i);
    if (c === 123 || c === 91) return this.flowValue(pointer, key, i);
    if (c === 34 || c === 39) return this.quoted(pointer, key, i);
    if (!this.plainStartOk(i, true)) throw DECLINE;
    let j = i;
    while (j < this.len) {
      const d = t.charCodeAt(j);
      if (d === 44 || d === 91 || d === 93 || d === 123 || d === 125) break;
      // Line breaks, comments and colons inside flow collections: leave them to the library.
      if (d === NL || d === 58 || (d === 35 && t.charCodeAt(j - 1) === SP)) throw DECLINE;
      j++;
    }
    let end = j;
    while (end > i && t.charCodeAt(end - 1) === SP) end--;
    this.valueEnd = end;
    return this.plainEntry(pointer, key, i, end);
  }
}

/**
 * Parses `text` if it lies in the fast-path subset; `undefined` means "use the `yaml` library".
 * The entries come in the same (pre-)order as the library walk produces them.
 */
export function parseFastYaml(text: string): { value: unknown; entries: Map<string, SourceEntry> } | undefined {
  if (UNSUPPORTED_CHAR.test(text)) return undefined;
  const parser = new FastParser(text);
  try {
    const value = parser.parse();
    return { value, entries: parser.entries };
  } catch (e) {
    if (e === DECLINE) return undefined;
    throw e;
  }
}
