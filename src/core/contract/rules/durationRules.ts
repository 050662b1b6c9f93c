/**
 * The duration pass: finds every duration value in the contract, reports unparseable ones (error) and
 * bare numbers where the key does not say `_ms` (warning, with a fix that makes the unit explicit).
 */
import type { ContractContext } from './context';
import { parseDuration } from '../parse/durations';

/** Pointer patterns of duration values; `*` matches any key or index. */
const DURATION_PATHS: readonly string[][] = [
  ['workload', 'time_unit'],
  ['workload', 'ramp'],
  ['workload', 'plateau'],
  ['workload', 'drain'],
  ['workload', 'warmup_exclude'],
  ['workload', 'stages', '*', 'duration'],
  ['request', 'timeout'],
  ['slo', '*', '*'],
  ['budgets', '*', 'phases', '*'],
  ['gates', 'scheduler_lag_ms'],
  ['windows', 'size'],
  ['windows', 'slide'],
];

function expand(ctx: ContractContext, pattern: readonly string[]): string[] {
  let pointers = [''];
  for (const seg of pattern) {
    const next: string[] = [];
    for (const p of pointers) {
      if (seg === '*') {
        const v = ctx.get(p);
        const keys = Array.isArray(v) ? v.map((_, i) => String(i)) : ctx.keys(p);
        for (const k of keys) next.push(ctx.child(p, k));
      } else {
        const c = ctx.child(p, seg);
        if (ctx.get(c) !== undefined) next.push(c);
      }
    }
    pointers = next;
  }
  return pointers;
}

/** Every duration pointer present in the contract. */
export function durationPointers(ctx: ContractContext): string[] {
  return DURATION_PATHS.flatMap((p) => expand(ctx, p));
}

function displayName(ptr: string): string {
  return ptr.slice(1).replace(/\//g, '.');
}

export function checkDurations(ctx: ContractContext): void {
  for (const ptr of durationPointers(ctx)) {
    const value = ctx.get(ptr);
    if (value === null || typeof value === 'object') continue; // the schema reports the type
    if (typeof value === 'number' && !Number.isFinite(value)) continue; // numberRules.ts reports it
    const parsed = parseDuration(value);
    // Most durations are fine: build the message parts only when one is reported (this runs per keystroke).
    if (!parsed.ok) {
      ctx.at(ptr, 'value', 'duration-invalid', 'error', `\`${displayName(ptr)}\`: ${parsed.reason}.`);
      continue;
    }
    if (!parsed.unitless) continue;
    // Keys ending in `_ms` (or inside an `_ms` section) say the unit already.
    const saysMs = ptr.split('/').some((s) => s.endsWith('_ms'));
    if (!saysMs) {
      const name = displayName(ptr);
      const r = ctx.range(ptr);
      const raw = ctx.text.slice(r.start, r.end);
      const quoted = /^["']/.test(raw);
      const newText = quoted ? `${raw[0]}${parsed.ms}ms${raw[0]}` : ctx.isJson ? `"${parsed.ms}ms"` : `${parsed.ms}ms`;
      ctx.report('duration-no-unit', 'warning', r, `\`${name}\` has no unit and is read as ${parsed.ms} ms; write \`${parsed.ms}ms\` if that is meant, or add the unit you meant (\`${parsed.ms}s\`, \`${parsed.ms}m\`).`, {
        title: `Make the unit explicit: ${parsed.ms}ms`,
        edits: [{ start: r.start, end: r.end, newText }],
      });
    }
  }
}
