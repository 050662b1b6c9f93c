/**
 * A query result as text (an aligned table), CSV (RFC 4180 quoting; lines end in LF, as DuckDB's COPY
 * writes them: the output sinks escape a CR, core/escape.ts) or JSON. Values from the run's files
 * (span names, paths, messages) are escaped: no control character reaches a terminal or a CSV cell
 * unquoted.
 */
import { escapeLine } from '../escape';
import type { QueryResult } from './query';

export const RESULT_FORMATS = ['text', 'csv', 'json'] as const;
export type ResultFormat = (typeof RESULT_FORMATS)[number];

/** Widest a text cell gets before it is cut with an ellipsis (the CSV and JSON keep every character). */
const MAX_CELL = 48;

export function renderResult(result: QueryResult, format: ResultFormat): string {
  if (format === 'csv') return resultCsv(result);
  if (format === 'json') return `${JSON.stringify(resultJson(result), null, 2)}\n`;
  return resultText(result);
}

/** A value as one line of text: NULL for null, JSON for lists and structs, ISO for times. */
export function cellText(value: unknown): string {
  if (value === null || value === undefined) return 'NULL';
  if (value instanceof Date) return value.toISOString();
  if (typeof value === 'object') return JSON.stringify(value, (_k, v: unknown) => (typeof v === 'bigint' ? v.toString() : v));
  return String(value);
}

function resultText(result: QueryResult): string {
  const cells = result.rows.map((row) => row.map((v) => cut(escapeLine(cellText(v)))));
  const widths = result.columns.map((c, i) => Math.max(escapeLine(c).length, ...cells.map((r) => r[i].length)));
  const numeric = result.types.map((t) => /^(TINYINT|SMALLINT|INTEGER|BIGINT|HUGEINT|UTINYINT|USMALLINT|UINTEGER|UBIGINT|FLOAT|DOUBLE|DECIMAL)/.test(t));
  const line = (values: string[], header = false): string =>
    values.map((v, i) => (numeric[i] && !header ? v.padStart(widths[i]) : v.padEnd(widths[i]))).join('  ').trimEnd();
  const out = [line(result.columns.map((c) => escapeLine(c)), true), widths.map((w) => '-'.repeat(w)).join('  ')];
  for (const row of cells) out.push(line(row));
  const n = result.rows.length;
  out.push(`(${n} row${n === 1 ? '' : 's'}${result.truncated ? '; more rows exist: give --max-rows, or --format csv|json for all of them' : ''})`);
  return `${out.join('\n')}\n`;
}

function cut(text: string): string {
  return text.length > MAX_CELL ? `${text.slice(0, MAX_CELL - 1)}…` : text;
}

function csvField(text: string): string {
  return /[",\r\n]/.test(text) || /^\s|\s$/.test(text) ? `"${text.replace(/"/g, '""')}"` : text;
}

/** The CSV header line of a result (no line feed). */
export function csvHeader(columns: readonly string[]): string {
  return columns.map(csvField).join(',');
}

/** One CSV line of a result's row (no line feed): NULL is an empty field. */
export function csvRow(row: readonly unknown[]): string {
  return row.map((v) => (v === null || v === undefined ? '' : csvField(cellText(v)))).join(',');
}

function resultCsv(result: QueryResult): string {
  return `${[csvHeader(result.columns), ...result.rows.map(csvRow)].join('\n')}\n`;
}

/** The keys of a result's JSON rows: repeated column names get `_1`, `_2`, … as DuckDB names them in a subquery. */
export function jsonKeys(columns: readonly string[]): string[] {
  const seen = new Map<string, number>();
  return columns.map((c) => {
    const n = seen.get(c) ?? 0;
    seen.set(c, n + 1);
    return n === 0 ? c : `${c}_${n}`;
  });
}

/** One row as the JSON output's object (non-finite numbers as null). */
export function jsonRow(keys: readonly string[], row: readonly unknown[]): Record<string, unknown> {
  return Object.fromEntries(keys.map((k, i) => [k, typeof row[i] === 'number' && !Number.isFinite(row[i]) ? null : row[i]]));
}

/** `{ columns: [{name, type}], rows: [{column: value}], truncated }` (keys: jsonKeys). */
export function resultJson(result: QueryResult): { columns: Array<{ name: string; type: string }>; rows: Array<Record<string, unknown>>; truncated: boolean } {
  const keys = jsonKeys(result.columns);
  return {
    columns: keys.map((name, i) => ({ name, type: result.types[i] })),
    rows: result.rows.map((r) => jsonRow(keys, r)),
    truncated: result.truncated,
  };
}
