/** What kind of field a pointer is (from the schema), and how the text typed into it becomes a value. */
import { schemaAt } from '../rules/schemaCheck';
import type { FieldKind } from './types';

/** The field kind at a JSON pointer, from the contract schema (`undefined`: not a scalar the form edits). */
export function fieldKind(pointer: string): { kind: FieldKind; options?: string[] } | undefined {
  const schema = schemaAt(pointer);
  if (!schema) return undefined;
  if (schema.$ref === '#/definitions/duration') return { kind: 'duration' };
  if (Array.isArray(schema.enum)) {
    const values = schema.enum as unknown[];
    // A numeric enum (`version: 1`) is a number field with a choice of values.
    return { kind: values.every((v) => typeof v === 'number') ? 'number' : 'enum', options: values.map(String) };
  }
  switch (schema.type) {
    case 'number':
      return { kind: 'number' };
    case 'integer':
      return { kind: 'integer' };
    case 'boolean':
      return { kind: 'boolean' };
    case 'string':
      return { kind: 'string' };
    default:
      return undefined;
  }
}

const NUMBER = /^[-+]?(\d+\.?\d*|\.\d+)([eE][-+]?\d+)?$/;

/**
 * Typed text → the value written: numbers where the field takes numbers (a bare number in a duration
 * field is milliseconds, as in the text), `true`/`false` for booleans, else the trimmed string. Text
 * that does not fit the kind is written as typed, and the diagnostics say what is wrong, as they would
 * for the same text typed in the text editor.
 */
export function valueFromInput(kind: FieldKind, input: string): string | number | boolean {
  const s = input.trim();
  switch (kind) {
    case 'duration':
      return /^\d+(\.\d+)?$/.test(s) ? Number(s) : s;
    case 'number':
    case 'integer':
      return NUMBER.test(s) ? Number(s) : s;
    case 'boolean':
      return s === 'true' ? true : s === 'false' ? false : s;
    default:
      return s;
  }
}
