/**
 * Shared plumbing for the validation layers: reading the raw parsed value by JSON pointer, locating
 * keys and values, and emitting diagnostics with line/column and optional edits.
 */
import { childPointer } from '../parse/sourceMap';
import type { ParsedSource, SourceEntry } from '../parse/sourceMap';
import { parseDuration } from '../parse/durations';
import type { ContractDiagnostic, ContractSeverity, OffsetRange, TextEdit } from '../types';

export type Part = 'key' | 'value';

export class ContractContext {
  readonly diagnostics: ContractDiagnostic[] = [];

  constructor(readonly source: ParsedSource) {}

  get text(): string {
    return this.source.text;
  }

  /** JSON contracts need JSON text in edits (quoted keys and strings). */
  get isJson(): boolean {
    return this.text.trimStart().startsWith('{');
  }

  /** A scalar as it should be written in an edit: JSON in JSON files, plain YAML where safe. */
  scalar(value: string | number | boolean): string {
    if (typeof value !== 'string') return String(value);
    const plainSafe = /^[A-Za-z0-9_][A-Za-z0-9_.\-/]*$/.test(value) && !/^(true|false|null|yes|no|on|off|~)$/i.test(value);
    // Anything YAML would read as a number (10, 1e3, 0x1f, .5) must stay quoted to remain a string.
    const numberLike = /^[-+]?(\.\d|\d)[\d._]*([eE][-+]?\d+)?$/.test(value) || /^0[xo]/i.test(value);
    if (!this.isJson && plainSafe && !numberLike) return value;
    return JSON.stringify(value);
  }

  /** A flow map in the file's syntax, e.g. `{ model_class: x, rate: 10 }`. */
  flowMap(entries: [string, string | number | boolean][]): string {
    const body = entries.map(([k, v]) => `${this.isJson ? JSON.stringify(k) : k}: ${this.scalar(v)}`).join(', ');
    return this.isJson ? `{${body}}` : `{ ${body} }`;
  }

  /** The raw parsed value at a JSON pointer (`''` is the root). */
  get(pointer: string): unknown {
    // Every value present in the text has an entry; a pointer without one is absent.
    return this.source.entries.get(pointer)?.raw;
  }

  has(pointer: string): boolean {
    const v = this.source.entries.get(pointer)?.raw;
    return v !== undefined && v !== null;
  }

  num(pointer: string): number | undefined {
    const v = this.get(pointer);
    return typeof v === 'number' && Number.isFinite(v) ? v : undefined;
  }

  str(pointer: string): string | undefined {
    const v = this.get(pointer);
    return typeof v === 'string' ? v : undefined;
  }

  /** A duration in ms, or undefined when absent or unparseable (the duration pass reports those). */
  ms(pointer: string): number | undefined {
    const v = this.get(pointer);
    if (v === undefined || v === null) return undefined;
    const d = parseDuration(v);
    return d.ok ? d.ms : undefined;
  }

  keys(pointer: string): string[] {
    const v = this.get(pointer);
    return v !== null && typeof v === 'object' && !Array.isArray(v) ? Object.keys(v) : [];
  }

  entry(pointer: string): SourceEntry | undefined {
    return this.source.entries.get(pointer);
  }

  /**
   * Range of the key or value at `pointer`; falls back to the nearest existing ancestor's key (so a
   * missing key is reported on the section that should hold it) and finally to the document start.
   */
  range(pointer: string, part: Part = 'value'): OffsetRange {
    const e = this.source.entries.get(pointer);
    if (e) {
      if (part === 'key' && e.key) return e.key;
      // A key without a value (`plateau:`) has an empty value range: point at the key instead.
      if (e.value.end > e.value.start || !e.key) return e.value;
      return e.key;
    }
    for (let p = pointer; p !== ''; ) {
      p = p.slice(0, p.lastIndexOf('/'));
      const anc = this.source.entries.get(p);
      if (anc?.key) return anc.key;
    }
    return this.firstLine();
  }

  /** The document's first line, where whole-document findings go. */
  firstLine(): OffsetRange {
    const nl = this.text.indexOf('\n');
    return { start: 0, end: nl === -1 ? this.text.length : nl };
  }

  report(code: string, severity: ContractSeverity, range: OffsetRange, message: string, fix?: { title: string; edits: TextEdit[] }): void {
    const pos = this.source.lineCounter.linePos(range.start);
    this.diagnostics.push({ range, line: pos.line, column: pos.col, severity, code, message, ...(fix ? { fix } : {}) });
  }

  at(pointer: string, part: Part, code: string, severity: ContractSeverity, message: string, fix?: { title: string; edits: TextEdit[] }): void {
    this.report(code, severity, this.range(pointer, part), message, fix);
  }

  /** An edit replacing the value at `pointer`. */
  replaceValue(pointer: string, newText: string): TextEdit {
    const r = this.range(pointer, 'value');
    return { start: r.start, end: r.end, newText };
  }

  /**
   * An edit inserting `key: value` into the map at `mapPointer`, in its style (block or flow). `valueText`
   * may be multi-line YAML (lines after the first are indented one level deeper) when the map is block.
   */
  insertKey(mapPointer: string, key: string, valueText: string): TextEdit | undefined {
    const e = this.entry(mapPointer);
    if (!e || e.kind !== 'map' || e.insertAt === undefined) return undefined;
    if (e.flow) {
      const k = this.isJson ? JSON.stringify(key) : key;
      const hasItems = (e.keys?.length ?? 0) > 0;
      // Insert before the closing brace, skipping back over whitespace so the comma hugs the last item.
      let at = e.insertAt;
      while (at > e.value.start + 1 && /\s/.test(this.text[at - 1])) at--;
      return { start: at, end: at, newText: `${hasItems ? ', ' : ''}${k}: ${valueText}` };
    }
    const indent = ' '.repeat(e.indent ?? 0);
    const body = valueText.includes('\n') ? valueText.split('\n').map((l, i) => (i === 0 ? l : `${indent}${l}`)).join('\n') : valueText;
    const sep = valueText.startsWith('\n') ? '' : ' ';
    const needsNl = e.insertAt > 0 && this.text[e.insertAt - 1] !== '\n';
    return { start: e.insertAt, end: e.insertAt, newText: `${needsNl ? '\n' : ''}${indent}${key}:${sep}${body}\n` };
  }

  child(parent: string, key: string | number): string {
    return childPointer(parent, key);
  }
}
