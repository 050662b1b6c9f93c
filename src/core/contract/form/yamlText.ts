/**
 * Contract values written as text for the form's edits: a scalar in the quoting style it had, a new
 * value as plain YAML when the `yaml` library reads it back unchanged (else double-quoted), nested
 * values in block or flow style, and JSON in JSON contracts.
 */
import { parse } from 'yaml';

export type Scalar = string | number | boolean | null;
export type Value = Scalar | Value[] | { [key: string]: Value };

/** How a written value is quoted: as the old one was (`plain`, `'`, `"`), or JSON for JSON contracts. */
export type Quoting = 'plain' | 'single' | 'double' | 'json';

function isRecord(v: Value): v is { [key: string]: Value } {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/** Whether `s` written plain as a value (block, or inside a flow collection) reads back as the same string. */
export function plainSafe(s: string, inFlow: boolean): boolean {
  if (s === '' || s !== s.trim() || /[\n\r\t]/.test(s)) return false;
  try {
    const block = parse(`k: ${s}\n`) as unknown;
    if (!isRecord(block as Value) || (block as Record<string, unknown>).k !== s) return false;
    if (!inFlow) return true;
    const flow = parse(`{ k: ${s} }\n`) as unknown;
    return isRecord(flow as Value) && (flow as Record<string, unknown>).k === s;
  } catch {
    return false;
  }
}

/** A scalar's text. */
export function scalarText(value: Scalar, quoting: Quoting, inFlow: boolean): string {
  if (value === null) return 'null';
  if (typeof value !== 'string') return String(value);
  if (quoting === 'json' || quoting === 'double') return JSON.stringify(value);
  if (quoting === 'single' && !/[\n\r]/.test(value)) return `'${value.replace(/'/g, "''")}'`;
  return plainSafe(value, inFlow) ? value : JSON.stringify(value);
}

/** A key's text (keys are strings: quoted only when YAML would read them as something else). */
export function keyText(key: string, json: boolean): string {
  if (json) return JSON.stringify(key);
  return /^[A-Za-z_][A-Za-z0-9_.\-/]*$/.test(key) && plainSafe(key, true) ? key : JSON.stringify(key);
}

/** A value on one line: `{ a: 1, b: [2, 3] }` (YAML) or `{"a": 1, "b": [2, 3]}` (JSON). */
export function flowText(value: Value, json: boolean): string {
  if (Array.isArray(value)) return `[${value.map((v) => flowText(v, json)).join(', ')}]`;
  if (isRecord(value)) {
    const body = Object.entries(value).map(([k, v]) => `${keyText(k, json)}: ${flowText(v, json)}`).join(', ');
    if (json) return `{${body}}`;
    return body === '' ? '{}' : `{ ${body} }`;
  }
  return scalarText(value, json ? 'json' : 'plain', true);
}

/**
 * A map in block style, one `key: value` per line at `indent` spaces (nested maps one `unit` deeper;
 * lists and maps named in `flowKeys` on one line). Returns the lines without a trailing newline.
 */
export function blockLines(value: { [key: string]: Value }, indent: number, unit: number, flowKeys: ReadonlySet<string> = new Set()): string[] {
  const pad = ' '.repeat(indent);
  const lines: string[] = [];
  for (const [k, v] of Object.entries(value)) {
    if (isRecord(v) && Object.keys(v).length > 0 && !flowKeys.has(k)) {
      lines.push(`${pad}${keyText(k, false)}:`, ...blockLines(v, indent + unit, unit));
    } else {
      lines.push(`${pad}${keyText(k, false)}: ${isRecord(v) || Array.isArray(v) ? flowText(v, false) : scalarText(v, 'plain', false)}`);
    }
  }
  return lines;
}
