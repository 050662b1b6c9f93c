/**
 * The comparison webview's protocol (webview/compare.ts ⇄ the Compare Runs panel). The comparison is
 * the core's `Comparison` (core/compare/compareRuns.ts, what `phasewise compare --format json` prints)
 * as JSON text, non-finite numbers as null as in the CLI's JSON. Common messages (ready, theme, copy,
 * errors) are in common.ts.
 *
 * Order: `webview/ready` → host `compare/didLoad` (queued until ready). The webview asks for nothing;
 * it copies the table as TSV through `webview/copy`.
 */
import type { Comparison } from '../core/compare/compareRuns';
import { notification } from './ipc';
import { array, boolean, jsonText, model, nullable, number, object, string, type Schema } from './schema';

const runSide = object({
  label: string,
  outcomes: object({ started: number, succeeded: number }),
  join: object({ client_requests: number, matched: number, coverage: nullable(number) }),
});

/** The fields the view cannot render without (the rest is read as the core declares it). */
export const comparison: Schema<Comparison> = model<Comparison>()({
  same_experiment: boolean,
  differences: array(string),
  resamples: number,
  confidence: number,
  seed: number,
  interval_assumption: string,
  block: object({ length_s: number, bin_s: number, rule: string, blocks_base: number, blocks_head: number }),
  base: runSide as unknown as Schema<Comparison['base']>,
  head: runSide as unknown as Schema<Comparison['head']>,
  metrics: array(object({ metric: string, population: string, n_base: number, n_head: number })) as unknown as Schema<Comparison['metrics']>,
  moved: array(object({ metric: string, stat: string })) as unknown as Schema<Comparison['moved']>,
});

export const comparisonJson = jsonText(comparison);

/** A comparison as JSON text, with non-finite numbers as null (the CLI's `--format json` does the same). */
export function encodeComparison(c: Comparison): string {
  return JSON.stringify(c, (_k, v: unknown) => (typeof v === 'number' && !Number.isFinite(v) ? null : v));
}

/** Host → webview: the comparison to show. */
export const DidLoad = notification('compare/didLoad', 'toWebview', object({ comparison: comparisonJson }));
