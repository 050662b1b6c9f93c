/**
 * A tiny schema language for webview messages: each message's parameters are declared once as a value,
 * and both its TypeScript type (`Infer<S>`) and its runtime guard (`S.check`) come from that value, so
 * the two cannot drift. No dependency (a validator library would weigh more than every message we
 * declare). Messages cross a trust boundary both ways (a webview can be a stale bundle; the host can be
 * a newer extension), so a message that does not match its declaration is refused with a path.
 */

/** A schema for values of type T; `check` returns undefined when the value matches, else why not. */
export interface Schema<T> {
  readonly check: (value: unknown, path: string) => string | undefined;
  /** Only for type inference; never set. */
  readonly _type?: T;
}

/** The type a schema describes. */
export type Infer<S> = S extends Schema<infer T> ? T : never;

function schema<T>(check: (value: unknown, path: string) => string | undefined): Schema<T> {
  return { check };
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

export const string: Schema<string> = schema((v, p) => (typeof v === 'string' ? undefined : `${p}: expected a string, got ${describe(v)}`));
/** A finite number (JSON has no NaN or Infinity: a non-finite number means a serialisation bug). */
export const number: Schema<number> = schema((v, p) =>
  typeof v === 'number' && Number.isFinite(v) ? undefined : `${p}: expected a finite number, got ${describe(v)}`,
);
export const boolean: Schema<boolean> = schema((v, p) => (typeof v === 'boolean' ? undefined : `${p}: expected a boolean, got ${describe(v)}`));
/** Anything at all: for values the receiver only passes on (saved view state from an older bundle). */
export const unknown: Schema<unknown> = schema(() => undefined);

export function literal<const L extends readonly (string | number | boolean)[]>(...values: L): Schema<L[number]> {
  return schema((v, p) => ((values as readonly unknown[]).includes(v) ? undefined : `${p}: expected one of ${values.map((x) => JSON.stringify(x)).join(', ')}, got ${describe(v)}`));
}

export function nullable<T>(inner: Schema<T>): Schema<T | null> {
  return schema((v, p) => (v === null ? undefined : inner.check(v, p)));
}

export function optional<T>(inner: Schema<T>): Schema<T | undefined> {
  return schema((v, p) => (v === undefined ? undefined : inner.check(v, p)));
}

export function array<T>(item: Schema<T>): Schema<T[]> {
  return schema((v, p) => {
    if (!Array.isArray(v)) return `${p}: expected an array, got ${describe(v)}`;
    for (let i = 0; i < v.length; i++) {
      const e = item.check(v[i], `${p}[${i}]`);
      if (e !== undefined) return e;
    }
    return undefined;
  });
}

export function record<T>(value: Schema<T>): Schema<Record<string, T>> {
  return schema((v, p) => {
    if (!isRecord(v)) return `${p}: expected an object, got ${describe(v)}`;
    for (const [k, x] of Object.entries(v)) {
      const e = value.check(x, `${p}.${k}`);
      if (e !== undefined) return e;
    }
    return undefined;
  });
}

/** An object with exactly these keys checked (unknown extra keys are allowed: a newer sender may add fields). */
export function object<S extends ObjectShape>(shape: S): Schema<Simplify<InferObject<S>>> {
  return schema((v, p) => {
    if (!isRecord(v)) return `${p}: expected an object, got ${describe(v)}`;
    for (const [k, s] of Object.entries(shape)) {
      const e = s.check(v[k], `${p}.${k}`);
      if (e !== undefined) return e;
    }
    return undefined;
  });
}

/** One of several object shapes told apart by the string at `tag`. */
export function tagged<K extends string, V extends Record<string, Schema<Record<string, unknown>>>>(tag: K, variants: V): Schema<Infer<V[keyof V]>> {
  return schema((v, p) => {
    if (!isRecord(v)) return `${p}: expected an object, got ${describe(v)}`;
    const t = v[tag];
    const variant = typeof t === 'string' && Object.prototype.hasOwnProperty.call(variants, t) ? variants[t] : undefined;
    if (variant === undefined) return `${p}.${tag}: expected one of ${Object.keys(variants).map((x) => JSON.stringify(x)).join(', ')}, got ${describe(t)}`;
    return variant.check(v, p);
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

/** `value` checked against `s`; throws with the path of the first mismatch (for tests and the HTML shim). */
export function assertMatches<T>(s: Schema<T>, value: unknown, what: string): T {
  const e = s.check(value, what);
  if (e !== undefined) throw new TypeError(e);
  return value as T;
}
