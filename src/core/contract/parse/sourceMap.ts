/**
 * Parses contract text (YAML, or JSON which YAML 1.2 flow syntax covers) into a plain value plus a map
 * from JSON pointer to source ranges, so every diagnostic can point at the exact key or value —
 * block or flow style alike.
 */
import { isAlias, isMap, isPair, isScalar, isSeq, LineCounter, parseDocument } from 'yaml';
import type { Document, Node as YamlNode, Pair } from 'yaml';
import { blockInsertPoint, childPointer, lineIndent } from './sourceText';
import type { OffsetRange } from '../types';

export { childPointer, pointerSegment } from './sourceText';

/** Where one value of the contract sits in the text. */
export interface SourceEntry {
  /** Range of the key (absent for sequence items and the root). */
  key?: OffsetRange;
  /** Range of the value (for a key without a value: an empty range after the key). */
  value: OffsetRange;
  /** Collection style, used to place inserted keys. */
  kind: 'map' | 'seq' | 'scalar' | 'null';
  flow: boolean;
  /** For block maps: column (0-based) of the first key; used to indent inserted keys. */
  indent?: number;
  /** For maps: offset just after the last entry (block) or of the closing brace (flow). */
  insertAt?: number;
  /** Keys present in a map, in order. */
  keys?: string[];
  /** For scalars: whether the source was a plain (unquoted) scalar. */
  plain?: boolean;
  /** The plain JS value at this pointer (so lookups by pointer are one Map read). */
  raw?: unknown;
}

export interface ParsedSource {
  value: unknown;
  entries: Map<string, SourceEntry>;
  syntaxErrors: { range: OffsetRange; message: string }[];
  lineCounter: LineCounter;
  text: string;
}

function nodeRange(node: YamlNode | null | undefined, fallback: OffsetRange): OffsetRange {
  const r = node?.range;
  return r ? { start: r[0], end: r[1] } : fallback;
}

/**
 * How aliases are followed: the document they resolve in, the anchors being expanded (an alias inside
 * its own anchor is a cycle) and a budget of expansions, so that nested aliases ("billion laughs")
 * cannot make a small contract expand without bound.
 */
interface AliasWalk {
  doc: Document.Parsed;
  expanding: Set<YamlNode>;
  budget: number;
}

/** Aliases a contract may expand in all; a real contract uses a handful. */
const MAX_ALIAS_EXPANSIONS = 100;

function walk(node: YamlNode | null | undefined, pointer: string, key: OffsetRange | undefined, ctx: ParsedSource, fallback: OffsetRange, aliases?: AliasWalk): unknown {
  if (isAlias(node)) {
    const range = nodeRange(node, fallback);
    const target = aliases ? node.resolve(aliases.doc) : undefined;
    const problem = !target
      ? `unresolved alias \`*${node.source}\`: no anchor \`&${node.source}\` before it`
      : aliases!.expanding.has(target)
        ? `alias \`*${node.source}\` refers to a value that contains it`
        : aliases!.budget <= 0
          ? `more than ${MAX_ALIAS_EXPANSIONS} aliases expanded; write the values out`
          : undefined;
    if (problem !== undefined || !target || !aliases) {
      ctx.syntaxErrors.push({ range, message: problem ?? `alias \`*${node.source}\` cannot be resolved` });
      ctx.entries.set(pointer, { key, value: range, kind: 'null', flow: true, raw: null });
      return null;
    }
    aliases.budget--;
    aliases.expanding.add(target);
    // The anchored value, walked in place; its own entry points at the alias (where this key's value
    // is written), its children at the anchor's text (where theirs is).
    const value = walk(target, pointer, key, ctx, range, aliases);
    aliases.expanding.delete(target);
    const entry = ctx.entries.get(pointer);
    if (entry) entry.value = range;
    return value;
  }
  if (isMap(node)) {
    if (aliases) aliases.expanding.add(node);
    const out: Record<string, unknown> = {};
    const range = nodeRange(node, fallback);
    const keys: string[] = [];
    const entry: SourceEntry = { key, value: range, kind: 'map', flow: Boolean(node.flow), keys, raw: out };
    ctx.entries.set(pointer, entry);
    let lastEnd = range.start;
    for (const item of node.items as Pair<YamlNode | null, YamlNode | null>[]) {
      if (!isPair(item)) continue;
      const k = item.key;
      const keyText = isScalar(k) ? String(k.value) : String(k);
      const keyRange = nodeRange(k, range);
      if (entry.indent === undefined) entry.indent = lineIndent(ctx.text, keyRange.start);
      keys.push(keyText);
      const valueFallback = { start: keyRange.end, end: keyRange.end };
      out[keyText] = walk(item.value, childPointer(pointer, keyText), keyRange, ctx, valueFallback, aliases);
      lastEnd = Math.max(keyRange.end, item.value?.range?.[1] ?? keyRange.end);
    }
    entry.insertAt = entry.flow ? Math.max(range.start, range.end - 1) : blockInsertPoint(ctx.text, Math.max(lastEnd, range.end));
    if (aliases) aliases.expanding.delete(node);
    return out;
  }
  if (isSeq(node)) {
    const range = nodeRange(node, fallback);
    const entry: SourceEntry = { key, value: range, kind: 'seq', flow: Boolean(node.flow) };
    ctx.entries.set(pointer, entry);
    aliases?.expanding.add(node);
    entry.raw = node.items.map((item, i) => walk(item as YamlNode | null, childPointer(pointer, i), undefined, ctx, range, aliases));
    aliases?.expanding.delete(node);
    return entry.raw;
  }
  if (isScalar(node)) {
    const range = nodeRange(node, fallback);
    const plain = node.type === 'PLAIN';
    ctx.entries.set(pointer, { key, value: range, kind: node.value === null ? 'null' : 'scalar', flow: true, plain, raw: node.value });
    return node.value;
  }
  ctx.entries.set(pointer, { key, value: fallback, kind: 'null', flow: true, raw: null });
  return null;
}

/** JSON files are held to JSON: YAML accepts some JSON mistakes (comments, trailing commas); JSON.parse does not. */
function checkJson(ctx: ParsedSource, fileName: string): void {
  if (!/\.json$/i.test(fileName) || ctx.syntaxErrors.length > 0) return;
  try {
    JSON.parse(ctx.text);
  } catch (e) {
    const msg = e instanceof Error ? e.message : String(e);
    const pos = /position (\d+)/.exec(msg);
    const at = pos ? Number(pos[1]) : 0;
    ctx.syntaxErrors.push({ range: { start: at, end: Math.min(ctx.text.length, at + 1) }, message: msg });
  }
}

/** Parses YAML or JSON contract text through the `yaml` library (errors keep its messages); never throws. */
export function parseSource(text: string, fileName: string): ParsedSource {
  const lineCounter = new LineCounter();
  const doc = parseDocument(text, { lineCounter, keepSourceTokens: false, prettyErrors: false, uniqueKeys: true });
  const ctx: ParsedSource = { value: undefined, entries: new Map(), syntaxErrors: [], lineCounter, text };
  for (const err of doc.errors) {
    const [start, end] = err.pos;
    ctx.syntaxErrors.push({ range: { start, end: Math.max(end, start) }, message: err.message.split('\n')[0] });
  }
  checkJson(ctx, fileName);
  const aliases: AliasWalk = { doc, expanding: new Set(), budget: MAX_ALIAS_EXPANSIONS };
  ctx.value = walk(doc.contents as YamlNode | null, '', undefined, ctx, { start: 0, end: 0 }, aliases);
  return ctx;
}
