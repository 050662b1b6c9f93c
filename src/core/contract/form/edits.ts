/**
 * The form's edit model: a form edit becomes the smallest text edit on the contract's source, so the
 * document stays the one source of truth and everything else in it (comments, key order, formatting,
 * quoting) is left as it was. A value is replaced on its exact range; a missing key is inserted after
 * the last entry of its block with the block's indentation (its missing parents too), or into a flow
 * collection in its layout; a removed key or item takes its lines with it.
 */
import type { ParsedSource, SourceEntry } from '../parse/sourceMap';
import { childPointer, lineIndent } from '../parse/sourceText';
import type { TextEdit } from '../types';
import type { FormEdit } from './types';
import { fieldKind, valueFromInput } from './values';
import { blockLines, flowText, keyText, scalarText, type Quoting, type Value } from './yamlText';

/** A form edit that cannot apply to this text (a value asked for where the text holds a list, …). */
export class FormEditError extends Error {}

interface Doc {
  source: ParsedSource;
  text: string;
  json: boolean;
  /** Spaces per nesting level, as the text indents its blocks. */
  unit: number;
}

function parentOf(pointer: string): string {
  return pointer.slice(0, pointer.lastIndexOf('/'));
}

function segments(pointer: string): string[] {
  return pointer === '' ? [] : pointer.slice(1).split('/').map((s) => s.replace(/~1/g, '/').replace(/~0/g, '~'));
}

function lineStart(text: string, offset: number): number {
  return text.lastIndexOf('\n', offset - 1) + 1;
}

/** Just past the newline ending the line that holds `offset` (or the end of the text). */
function lineEnd(text: string, offset: number): number {
  const nl = text.indexOf('\n', offset);
  return nl === -1 ? text.length : nl + 1;
}

function children(doc: Doc, pointer: string): [string, SourceEntry][] {
  const out: [string, SourceEntry][] = [];
  for (const [p, e] of doc.source.entries) if (p !== pointer && parentOf(p) === pointer && p.startsWith(pointer)) out.push([p, e]);
  return out;
}

function startOf(e: SourceEntry): number {
  return (e.key ?? e.value).start;
}

/**
 * Where the entry's own text ends: its last scalar, key or flow collection. A block collection's range
 * from the library can run over the comment lines after it, which belong to what follows.
 */
function extentEnd(doc: Doc, pointer: string): number {
  let end = startOf(doc.source.entries.get(pointer) as SourceEntry);
  for (const [p, e] of doc.source.entries) {
    if (p !== pointer && !p.startsWith(`${pointer}/`)) continue;
    if (e.key) end = Math.max(end, e.key.end);
    if (e.flow || (e.kind !== 'map' && e.kind !== 'seq')) end = Math.max(end, e.value.end);
  }
  return end;
}

/** The text's indentation step: a nested block map's indent minus its parent's (2 when there is none). */
function indentUnit(source: ParsedSource): number {
  for (const [p, e] of source.entries) {
    if (p === '' || e.kind !== 'map' || e.flow || e.indent === undefined || !e.key) continue;
    const parent = source.entries.get(parentOf(p));
    if (parent?.kind === 'map' && !parent.flow && parent.indent !== undefined && e.indent > parent.indent) return e.indent - parent.indent;
  }
  return 2;
}

function quotingOf(doc: Doc, e: SourceEntry): Quoting {
  if (doc.json) return 'json';
  if (e.plain !== false) return 'plain';
  return doc.text[e.value.start] === "'" ? 'single' : 'double';
}

function replaceScalar(doc: Doc, pointer: string, e: SourceEntry, value: string | number | boolean): TextEdit {
  const inFlow = doc.source.entries.get(parentOf(pointer))?.flow ?? false;
  const text = scalarText(value, quotingOf(doc, e), inFlow);
  const { start, end } = e.value;
  if (start < end) return { start, end, newText: text };
  // `key:` with nothing after it: the empty value sits just after the colon (or before a comment).
  const before = doc.text[start - 1] === ':' ? ' ' : '';
  const after = doc.text[start] === '#' ? ' ' : '';
  return { start, end, newText: `${before}${text}${after}` };
}

/** Inserts `item` (already text) into a flow map or list, after its last item, in its one- or multi-line layout. */
function insertIntoFlow(doc: Doc, pointer: string, e: SourceEntry, item: string): TextEdit {
  const items = children(doc, pointer);
  if (items.length === 0) {
    const [open, close] = e.kind === 'seq' ? ['[', ']'] : ['{', '}'];
    return { start: e.value.start, end: e.value.end, newText: doc.json || e.kind === 'seq' ? `${open}${item}${close}` : `${open} ${item} ${close}` };
  }
  const first = items[0][1];
  const at = extentEnd(doc, items[items.length - 1][0]);
  const multiLine = lineStart(doc.text, startOf(first)) !== lineStart(doc.text, e.value.start);
  const sep = multiLine ? `,\n${' '.repeat(lineIndent(doc.text, startOf(first)))}` : ', ';
  return { start: at, end: at, newText: `${sep}${item}` };
}

/** Lines appended after the block entry at `pointer` (a trailing newline added where the text has none). */
function appendLines(doc: Doc, pointer: string, lines: string[]): TextEdit {
  const at = lineEnd(doc.text, extentEnd(doc, pointer));
  const nl = at > 0 && doc.text[at - 1] !== '\n' ? '\n' : '';
  return { start: at, end: at, newText: `${nl}${lines.join('\n')}\n` };
}

function insertIntoMap(doc: Doc, pointer: string, e: SourceEntry, key: string, value: Value): TextEdit {
  if (e.flow) return insertIntoFlow(doc, pointer, e, `${keyText(key, doc.json)}: ${flowText(value, doc.json)}`);
  return appendLines(doc, pointer, blockLines({ [key]: value }, e.indent ?? 0, doc.unit));
}

/**
 * A key without a value (`gates:`, `gates: ~`) gets its first entries on the lines below it, after
 * any comment on its line (flow style in a flow parent).
 */
function fillEmpty(doc: Doc, pointer: string, e: SourceEntry, lines: (indent: number) => string[], flow: string): TextEdit[] {
  const parent = doc.source.entries.get(parentOf(pointer));
  if (!e.key || parent?.flow) return [{ start: e.value.start, end: e.value.end, newText: `${doc.text[e.value.start - 1] === ':' ? ' ' : ''}${flow}` }];
  const eol = lineEnd(doc.text, e.key.start);
  const at = doc.text[eol - 1] === '\n' ? eol - 1 : eol;
  const insert: TextEdit = { start: at, end: at, newText: `\n${lines(lineIndent(doc.text, e.key.start) + doc.unit).join('\n')}` };
  // An explicit null (`~`, `null`) goes; the key keeps its line and comment.
  const start = e.value.start > 0 && doc.text[e.value.start - 1] === ' ' ? e.value.start - 1 : e.value.start;
  return e.value.end > e.value.start ? [{ start, end: e.value.end, newText: '' }, insert] : [insert];
}

function setValue(doc: Doc, pointer: string, input: string): TextEdit[] {
  const value = valueFromInput(fieldKind(pointer)?.kind ?? 'string', input);
  const existing = doc.source.entries.get(pointer);
  if (existing) {
    if (existing.kind === 'map' || existing.kind === 'seq') throw new FormEditError(`\`${pointer}\` holds a ${existing.kind === 'map' ? 'mapping' : 'list'}, not a value`);
    return [replaceScalar(doc, pointer, existing, value)];
  }
  const segs = segments(pointer);
  for (let i = segs.length - 1; i >= 0; i--) {
    const at = segs.slice(0, i).reduce<string>((p, s) => childPointer(p, s), '');
    const anc = doc.source.entries.get(at);
    if (!anc) continue;
    const missing = segs.slice(i);
    if (missing.slice(0, -1).some((s) => /^\d+$/.test(s)) || anc.kind === 'seq') throw new FormEditError(`\`${pointer}\` is inside a list item that does not exist; add the item first`);
    const nested = missing.slice(1).reduceRight<Value>((v, k) => ({ [k]: v }), value);
    if (anc.kind === 'map') return [insertIntoMap(doc, at, anc, missing[0], nested)];
    if (anc.kind === 'null') return fillEmpty(doc, at, anc, (indent) => blockLines({ [missing[0]]: nested }, indent, doc.unit), flowText({ [missing[0]]: nested }, doc.json));
    throw new FormEditError(`\`${at}\` holds a value, so \`${pointer}\` cannot be added under it`);
  }
  throw new FormEditError('the contract has no mapping to add to');
}

function remove(doc: Doc, pointer: string): TextEdit[] {
  const e = doc.source.entries.get(pointer);
  if (!e || pointer === '') return [];
  const parentPointer = parentOf(pointer);
  const parent = doc.source.entries.get(parentPointer);
  const start = startOf(e);
  const end = extentEnd(doc, pointer);
  const siblings = children(doc, parentPointer);
  const i = siblings.findIndex(([p]) => p === pointer);
  if (parent?.flow) {
    if (i < siblings.length - 1) return [{ start, end: startOf(siblings[i + 1][1]), newText: '' }];
    if (i > 0) return [{ start: extentEnd(doc, siblings[i - 1][0]), end, newText: '' }];
    return [{ start: parent.value.start, end: parent.value.end, newText: parent.kind === 'seq' ? '[]' : '{}' }];
  }
  const ls = lineStart(doc.text, start);
  // A key on its own lines (or a list item with its dash) goes with its lines.
  if (doc.text.slice(ls, start).trim() === '' || parent?.kind === 'seq') return [{ start: ls, end: lineEnd(doc.text, end), newText: '' }];
  // The first key of a list item shares the dash's line: the next key moves up onto it.
  if (i < siblings.length - 1) return [{ start, end: startOf(siblings[i + 1][1]), newText: '' }];
  return [{ start, end, newText: '' }];
}

/** Nested maps and lists that are plain scalars or lists of scalars: such an item is written on one line. */
function isSimple(item: Record<string, unknown>): boolean {
  return Object.values(item).every((v) => v === null || typeof v !== 'object' || (Array.isArray(v) && v.every((x) => x === null || typeof x !== 'object')));
}

function append(doc: Doc, pointer: string, item: Record<string, Value>): TextEdit[] {
  const e = doc.source.entries.get(pointer);
  if (!e || e.kind === 'null') {
    // No list yet: one item, on one line when it is simple (a prompt shape), else as a block (a budget).
    const listLines = (indent: number): string[] => {
      const pad = ' '.repeat(indent);
      if (isSimple(item)) return [`${pad}- ${flowText(item, false)}`];
      const lines = blockLines(item, indent + 2, doc.unit);
      return [`${pad}- ${lines[0].trimStart()}`, ...lines.slice(1)];
    };
    if (e) return fillEmpty(doc, pointer, e, listLines, `[${flowText(item, doc.json)}]`);
    const key = segments(pointer).pop() as string;
    const parentPointer = parentOf(pointer);
    const parent = doc.source.entries.get(parentPointer);
    if (parent?.kind !== 'map') throw new FormEditError(`\`${parentPointer}\` does not exist; add it first`);
    if (parent.flow) return [insertIntoFlow(doc, parentPointer, parent, `${keyText(key, doc.json)}: [${flowText(item, doc.json)}]`)];
    const indent = parent.indent ?? 0;
    return [appendLines(doc, parentPointer, [`${' '.repeat(indent)}${keyText(key, false)}:`, ...listLines(indent + doc.unit)])];
  }
  if (e.kind !== 'seq') throw new FormEditError(`\`${pointer}\` is not a list`);
  if (e.flow) return [insertIntoFlow(doc, pointer, e, flowText(item, doc.json))];
  const items = children(doc, pointer);
  if (items.length === 0) throw new FormEditError(`\`${pointer}\` is an empty block list`);
  const [lastPointer, last] = items[items.length - 1];
  const itemStart = startOf(last);
  const ls = lineStart(doc.text, itemStart);
  const dashCol = doc.text.lastIndexOf('-', itemStart) - ls;
  const dashPad = ' '.repeat(Math.max(0, dashCol));
  if (last.kind === 'map' && !last.flow) {
    // In the previous item's layout: its flow-style children stay flow style.
    const flowKeys = new Set(children(doc, lastPointer).filter(([, c]) => c.flow && (c.kind === 'map' || c.kind === 'seq')).map(([p]) => segments(p).pop() as string));
    const lines = blockLines(item, itemStart - ls, doc.unit, flowKeys);
    return [appendLines(doc, pointer, [`${dashPad}- ${lines[0].trimStart()}`, ...lines.slice(1)])];
  }
  return [appendLines(doc, pointer, [`${dashPad}- ${flowText(item, false)}`])];
}

/** The text edits that carry out a form edit on `source` (empty when there is nothing to do). */
export function formEditToTextEdits(source: ParsedSource, edit: FormEdit): TextEdit[] {
  const doc: Doc = { source, text: source.text, json: source.text.trimStart().startsWith('{'), unit: indentUnit(source) };
  switch (edit.op) {
    case 'set':
      return setValue(doc, edit.pointer, edit.input);
    case 'remove':
      return remove(doc, edit.pointer);
    case 'append':
      return append(doc, edit.pointer, edit.item as Record<string, Value>);
  }
}
