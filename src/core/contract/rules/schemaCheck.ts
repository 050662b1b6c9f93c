/**
 * Structural validation: the JSON Schema through ajv, with every error mapped back to the key or
 * value it concerns. Unknown keys get a did-you-mean and a rename fix; enum values likewise.
 */
import Ajv from 'ajv';
import type { ErrorObject, ValidateFunction } from 'ajv';
import type { ContractContext } from './context';
import { LOAD_CONTRACT_SCHEMA } from './schema';
import type { JsonSchema } from './schema';
import { closest } from './suggest';

let compiled: ValidateFunction | undefined;

/** Compiled once per process: compilation costs milliseconds, validation microseconds. */
function validator(): ValidateFunction {
  if (!compiled) {
    const ajv = new Ajv({ allErrors: true, strict: false });
    compiled = ajv.compile(LOAD_CONTRACT_SCHEMA);
  }
  return compiled;
}

/** The schema node describing the object at an instance path (following properties/items/additionalProperties). */
export function schemaAt(pointer: string): JsonSchema | undefined {
  let node: JsonSchema | undefined = LOAD_CONTRACT_SCHEMA;
  if (pointer === '') return node;
  for (const raw of pointer.slice(1).split('/')) {
    if (!node) return undefined;
    const seg = raw.replace(/~1/g, '/').replace(/~0/g, '~');
    const props = node.properties as Record<string, JsonSchema> | undefined;
    if (props && props[seg]) node = props[seg];
    else if (/^\d+$/.test(seg) && node.items && typeof node.items === 'object') node = node.items as JsonSchema;
    else if (node.additionalProperties && typeof node.additionalProperties === 'object') node = node.additionalProperties as JsonSchema;
    else return undefined;
    if (typeof node.$ref === 'string') {
      const name = node.$ref.replace('#/definitions/', '');
      node = { ...(LOAD_CONTRACT_SCHEMA.definitions as Record<string, JsonSchema>)[name], ...node };
    }
  }
  return node;
}

function readable(pointer: string): string {
  return pointer === '' ? 'the contract' : `\`${pointer.slice(1).replace(/\//g, '.')}\``;
}

function mapError(ctx: ContractContext, err: ErrorObject): void {
  const at = err.instancePath;
  // Duration strings are checked by the duration pass, which can say what is wrong and offer a fix.
  if (err.schemaPath.startsWith('#/definitions/duration')) return;
  switch (err.keyword) {
    case 'additionalProperties': {
      const key = String((err.params as { additionalProperty: string }).additionalProperty);
      const ptr = ctx.child(at, key);
      const props = Object.keys((schemaAt(at)?.properties as Record<string, unknown> | undefined) ?? {});
      const present = new Set(ctx.keys(at));
      const suggestion = closest(key, props.filter((p) => !present.has(p)));
      const where = readable(at);
      if (suggestion) {
        const r = ctx.range(ptr, 'key');
        const quoted = ctx.text[r.start] === '"';
        ctx.at(ptr, 'key', 'unknown-key', 'error', `Unknown key \`${key}\` in ${where}; did you mean \`${suggestion}\`?`, {
          title: `Rename to \`${suggestion}\``,
          edits: [{ start: r.start, end: r.end, newText: quoted ? JSON.stringify(suggestion) : suggestion }],
        });
      } else {
        ctx.at(ptr, 'key', 'unknown-key', 'error', `Unknown key \`${key}\` in ${where}; allowed keys: ${props.join(', ')}.`);
      }
      return;
    }
    case 'required': {
      const missing = String((err.params as { missingProperty: string }).missingProperty);
      ctx.at(at, 'key', 'missing-key', 'error', `${readable(at)} is missing the required key \`${missing}\`.`);
      return;
    }
    case 'enum': {
      const allowed = ((err.params as { allowedValues: unknown[] }).allowedValues ?? []).map(String);
      const value = ctx.get(at);
      const suggestion = typeof value === 'string' ? closest(value, allowed) : undefined;
      const msg = `${readable(at)} must be one of ${allowed.map((a) => `\`${a}\``).join(', ')}${suggestion ? `; did you mean \`${suggestion}\`?` : '.'}`;
      const quoted = /^["']/.test(ctx.text.slice(ctx.range(at).start, ctx.range(at).start + 1));
      ctx.at(at, 'value', 'schema-enum', 'error', msg, suggestion ? { title: `Change to \`${suggestion}\``, edits: [ctx.replaceValue(at, quoted ? JSON.stringify(suggestion) : suggestion)] } : undefined);
      return;
    }
    case 'type':
      ctx.at(at, 'value', 'schema-type', 'error', `${readable(at)} must be ${String((err.params as { type: string }).type).replace(',', ' or ')}.`);
      return;
    default:
      ctx.at(at, 'value', 'schema-constraint', 'error', `${readable(at)} ${err.message ?? 'is invalid'}.`);
  }
}

/** Runs the schema and reports its errors with ranges. */
export function checkSchema(ctx: ContractContext): void {
  const validate = validator();
  if (validate(ctx.source.value)) return;
  const seen = new Set<string>();
  for (const err of validate.errors ?? []) {
    const key = `${err.instancePath}|${err.keyword}|${JSON.stringify(err.params)}`;
    if (seen.has(key)) continue;
    seen.add(key);
    mapError(ctx, err);
  }
}
