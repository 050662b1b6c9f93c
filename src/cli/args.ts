import { MAX_WINDOW_MS, MIN_WINDOW_MS } from '../core/contract/defaults';
import { UNIT_MS } from '../core/contract/parse/durations';

/**
 * A small argv parser for the phasewise commands. Flags may take several values (`--run a.ndjson
 * b.ndjson`: every following argument up to the next `--flag`), may repeat, and accept `--flag=value`.
 * Anything unknown is a usage error (exit 4), never ignored: a typo in a gate must not pass silently.
 */

/** A usage mistake on the command line; the CLI prints it with the usage and exits 4. */
export class UsageError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'UsageError';
  }
}

export type FlagKind = 'string' | 'list' | 'boolean';

export interface FlagSpec {
  kind: FlagKind;
  /** One-letter alias (`-o`). */
  alias?: string;
}

export interface ParsedArgs {
  /** Flag name → values in order (booleans get `['true']`). */
  flags: Map<string, string[]>;
  /** Arguments that are not flag values. */
  positional: string[];
}

/** Parses argv against the given flags; throws UsageError on unknown flags or missing values. */
export function parseArgs(argv: readonly string[], specs: Readonly<Record<string, FlagSpec>>): ParsedArgs {
  const flags = new Map<string, string[]>();
  const positional: string[] = [];
  const aliases = new Map<string, string>();
  for (const [name, spec] of Object.entries(specs)) if (spec.alias) aliases.set(spec.alias, name);

  const push = (name: string, value: string): void => {
    const list = flags.get(name) ?? [];
    list.push(value);
    flags.set(name, list);
  };

  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i];
    if (arg === '--') {
      positional.push(...argv.slice(i + 1));
      break;
    }
    if (!arg.startsWith('-') || arg === '-') {
      positional.push(arg);
      continue;
    }
    const eq = arg.indexOf('=');
    const rawName = arg.startsWith('--') ? arg.slice(2, eq < 0 ? undefined : eq) : aliases.get(arg.slice(1)) ?? `?${arg}`;
    const spec = specs[rawName];
    if (!spec) throw new UsageError(`unknown option ${eq < 0 ? arg : arg.slice(0, eq)}`);
    const inline = eq < 0 ? undefined : arg.slice(eq + 1);
    if (spec.kind === 'boolean') {
      if (inline !== undefined) throw new UsageError(`--${rawName} takes no value`);
      push(rawName, 'true');
      continue;
    }
    if (inline !== undefined) {
      if (inline === '') throw new UsageError(`--${rawName} needs a value`);
      push(rawName, inline);
      continue;
    }
    const values: string[] = [];
    while (i + 1 < argv.length && !isFlag(argv[i + 1])) {
      values.push(argv[++i]);
      if (spec.kind === 'string') break;
    }
    if (values.length === 0) throw new UsageError(`--${rawName} needs a value`);
    for (const v of values) push(rawName, v);
  }
  for (const [name, values] of flags) {
    if (specs[name].kind === 'string' && values.length > 1) throw new UsageError(`--${name} given more than once`);
  }
  return { flags, positional };
}

/** A flag-looking argument (negative numbers such as `-5` are values, not flags). */
function isFlag(arg: string): boolean {
  return arg.startsWith('-') && arg !== '-' && !/^-\d/.test(arg);
}

export function flagString(args: ParsedArgs, name: string): string | undefined {
  return args.flags.get(name)?.[0];
}

export function flagList(args: ParsedArgs, name: string): string[] {
  return args.flags.get(name) ?? [];
}

export function flagBoolean(args: ParsedArgs, name: string): boolean {
  return args.flags.has(name);
}

/** A positive integer flag value (`--slow 20`), at most `max`. */
export function flagPositiveInt(args: ParsedArgs, name: string, max: number): number | undefined {
  const raw = flagString(args, name);
  if (raw === undefined) return undefined;
  if (!/^\d+$/.test(raw) || Number(raw) < 1 || Number(raw) > max) {
    throw new UsageError(`--${name} expects a whole number from 1 to ${max.toLocaleString('en-US')}, got '${raw}'`);
  }
  return Number(raw);
}

/** `250ms`, `30s`, `10m`, `1h` or a bare number of ms → ms. */
export function parseDurationMs(text: string, what: string): number {
  const match = /^(\d+(?:\.\d+)?)\s*(ms|s|m|h)?$/.exec(text.trim());
  if (!match) throw new UsageError(`${what} expects a duration such as 250ms, 30s or 10m, got '${text}'`);
  const ms = Number(match[1]) * UNIT_MS[match[2] ?? 'ms'];
  // The window bounds (contract/defaults.ts) bound every duration flag: a year is a typo for all of them.
  if (!(ms >= MIN_WINDOW_MS)) throw new UsageError(`${what} must be at least 1ms, got '${text}'`);
  if (ms > MAX_WINDOW_MS) throw new UsageError(`${what} must be at most 365 days, got '${text}'`);
  return ms;
}
