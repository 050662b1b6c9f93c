/**
 * A tiny schema language for webview messages: each message's parameters are declared once as a value,
 * and both its TypeScript type (`Infer<S>`) and its runtime guard (`S.check`) come from that value, so
 * the two cannot drift. No dependency (a validator library would weigh more than every message we
 * declare). Messages cross a trust boundary both ways (a webview can be a stale bundle; the host can be
 * a newer extension), so a message that does not match its declaration is refused with a path.
 */

/**
 * A schema for values of type T; `check` returns undefined when the value matches, else why not (with
 * the path of the first mismatch). Validation builds nothing on success: a failure carries its path
 * segments up, so a 10k-span trace is checked without a string per field.
 */
export interface Schema<T> {
  readonly check: (value: unknown, path: string) => string | undefined;
  /** The same test, returning the failure with its path below this value. */
  readonly validate: (value: unknown) => Failure | undefined;
  /** Only for type inference; never set. */
  readonly _type?: T;
}

/** Why a value does not match: the path below the checked value (outermost first) and the message. */
export interface Failure {
  path: (string | number)[];
  message: string;
}

/** The type a schema describes. */
export type Infer<S> = S extends Schema<infer T> ? T : never;

function render(root: string, f: Failure): string {
  return `${root}${f.path.map((k) => (typeof k === 'number' ? `[${k}]` : `.${k}`)).join('')}: ${f.message}`;
}

function schema<T>(validate: (value: unknown) => Failure | undefined): Schema<T> {
  return {
    validate,
    check: (value, path) => {
      const f = validate(value);
      return f === undefined ? undefined : render(path, f);
    },
  };
}

function fail(message: string): Failure {
  return { path: [], message };
}

function under(key: string | number, f: Failure | undefined): Failure | undefined {
  if (f !== undefined) f.path.unshift(key);
  return f;
}

function describe(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'an array';
  return typeof value === 'object' ? 'an object' : `${typeof value} ${JSON.stringify(value)?.slice(0, 40) ?? ''}`.trim();
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

type ObjectShape = Record<string, Schema<unknown>>;
type OptionalKeys<S extends ObjectShape> = { [K in keyof S]: S[K] extends Schema<infer T> ? (undefined extends T ? K : never) : never }[keyof S];
type InferObject<S extends ObjectShape> = { [K in Exclude<keyof S, OptionalKeys<S>>]: Infer<S[K]> } & { [K in OptionalKeys<S>]?: Infer<S[K]> };
type Simplify<T> = { [K in keyof T]: T[K] };

export const string: Schema<string> = schema((v) => (typeof v === 'string' ? undefined : fail(`expected a string, got ${describe(v)}`)));
/** A finite number (JSON has no NaN or Infinity: a non-finite number means a serialisation bug). */
export const number: Schema<number> = schema((v) => (typeof v === 'number' && Number.isFinite(v) ? undefined : fail(`expected a finite number, got ${describe(v)}`)));
export const boolean: Schema<boolean> = schema((v) => (typeof v === 'boolean' ? undefined : fail(`expected a boolean, got ${describe(v)}`)));
/** A JSON scalar: a string, a finite number, a boolean or null (a query result's cell). */
export const scalar: Schema<string | number | boolean | null> = schema((v) =>
  v === null || typeof v === 'string' || typeof v === 'boolean' || (typeof v === 'number' && Number.isFinite(v)) ? undefined : fail(`expected a string, finite number, boolean or null, got ${describe(v)}`),
);
/** Anything at all: for values the receiver only passes on (saved view state from an older bundle). */
export const unknown: Schema<unknown> = schema(() => undefined);

export function literal<const L extends readonly (string | number | boolean)[]>(...values: L): Schema<L[number]> {
  return schema((v) => ((values as readonly unknown[]).includes(v) ? undefined : fail(`expected one of ${values.map((x) => JSON.stringify(x)).join(', ')}, got ${describe(v)}`)));
}

export function nullable<T>(inner: Schema<T>): Schema<T | null> {
  return schema((v) => (v === null ? undefined : inner.validate(v)));
}

export function optional<T>(inner: Schema<T>): Schema<T | undefined> {
  return schema((v) => (v === undefined ? undefined : inner.validate(v)));
}

export function array<T>(item: Schema<T>): Schema<T[]> {
  const check = item.validate;
  return schema((v) => {
    if (!Array.isArray(v)) return fail(`expected an array, got ${describe(v)}`);
    for (let i = 0; i < v.length; i++) {
      const e = check(v[i]);
      if (e !== undefined) return under(i, e);
    }
    return undefined;
  });
}

export function record<T>(value: Schema<T>): Schema<Record<string, T>> {
  return schema((v) => {
    if (!isRecord(v)) return fail(`expected an object, got ${describe(v)}`);
    for (const k in v) {
      const e = value.validate(v[k]);
      if (e !== undefined) return under(k, e);
    }
    return undefined;
  });
}

/** An object with exactly these keys checked (unknown extra keys are allowed: a newer sender may add fields). */
export function object<S extends ObjectShape>(shape: S): Schema<Simplify<InferObject<S>>> {
  const keys = Object.keys(shape);
  const checks = keys.map((k) => shape[k].validate);
  return schema((v) => {
    if (!isRecord(v)) return fail(`expected an object, got ${describe(v)}`);
    for (let i = 0; i < keys.length; i++) {
      const e = checks[i](v[keys[i]]);
      if (e !== undefined) return under(keys[i], e);
    }
    return undefined;
  });
}

/** One of several object shapes told apart by the string at `tag`. */
export function tagged<K extends string, V extends Record<string, Schema<Record<string, unknown>>>>(tag: K, variants: V): Schema<Infer<V[keyof V]>> {
  return schema((v) => {
    if (!isRecord(v)) return fail(`expected an object, got ${describe(v)}`);
    const t = v[tag];
    const variant = typeof t === 'string' && Object.prototype.hasOwnProperty.call(variants, t) ? variants[t] : undefined;
    if (variant === undefined) return under(tag, fail(`expected one of ${Object.keys(variants).map((x) => JSON.stringify(x)).join(', ')}, got ${describe(t)}`));
    return variant.validate(v);
  });
}

/**
 * A large model whose TypeScript type is declared elsewhere (the core's report or trace model): the
 * schema checks the fields a view cannot render without, each key being a key of T, so a renamed field
 * fails to compile here instead of rendering blank.
 */
export function model<T>(): <S extends { [K in keyof T]?: Schema<T[K]> }>(shape: S) => Schema<T> {
  return (shape) => object(shape as ObjectShape) as unknown as Schema<T>;
}

declare const jsonOf: unique symbol;

/** A value sent as JSON text: one string crosses postMessage far faster than the object graph (a 10k-span trace: ≈ 30 ms to parse against ≈ 90 ms to structured-clone in Chromium). */
export type JsonText<T> = string & { readonly [jsonOf]?: T };

/** A JSON-text field whose content `inner` describes; the receiver decodes it with decodeJson. */
export function jsonText<T>(inner: Schema<T>): Schema<JsonText<T>> & { readonly inner: Schema<T> } {
  return { ...schema<JsonText<T>>((v) => (typeof v === 'string' ? undefined : fail(`expected JSON text, got ${describe(v)}`))), inner };
}

export function encodeJson<T>(value: T): JsonText<T> {
  return JSON.stringify(value) as JsonText<T>;
}

/** Parses JSON text and checks it against the declaration; throws with the path of a mismatch. */
export function decodeJson<T>(text: JsonText<T>, field: { readonly inner: Schema<T> }, what: string): T {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (err) {
    throw new TypeError(`${what}: not JSON (${err instanceof Error ? err.message : String(err)})`);
  }
  return assertMatches(field.inner, value, what);
}

/** `value` checked against `s`; throws with the path of the first mismatch (for tests and the HTML shim). */
export function assertMatches<T>(s: Schema<T>, value: unknown, what: string): T {
  const e = s.check(value, what);
  if (e !== undefined) throw new TypeError(e);
  return value as T;
}
