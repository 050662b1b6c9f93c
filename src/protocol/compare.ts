/**
 * The comparison webview's protocol (webview/compare.ts ⇄ the Compare Runs panel). The comparison is
 * the core's `Comparison` (core/compare/compareRuns.ts, what `phasewise compare --format json` prints)
 * as JSON text, non-finite numbers as null as in the CLI's JSON. Common messages (ready, theme, copy,
 * errors) are in common.ts.
 *
 * Order: `webview/ready` → host `compare/didLoad` (queued until ready). The webview copies the table
 * as TSV through `webview/copy`. It saves the didLoad's `state` with setState; after a window reload
 * the panel's serializer recomputes the comparison from it (`compare/status` says so meanwhile), or,
 * when a run is no longer open, says which and offers `compare/reopen`.
 */
import type { Comparison, RunSide } from '../core/compare/compareRuns';
import { runInputs } from './common';
import { notification } from './ipc';
import { array, boolean, jsonText, literal, model, nullable, number, object, string, type Infer, type Schema } from './schema';

/**
 * A side's join, every figure the view shows (`phasewise compare` prints the same): the key
 * (`request_id` names the span attribute it read), coverage (null when not applicable), lost roots
 * and each kind of collision. Declared whole so a renamed field fails here, not as a blank cell.
 */
const sideJoin = model<RunSide['join']>()({
  key: literal('trace_id', 'request_id'),
  key_attribute: nullable(string),
  applicable: boolean,
  client_requests: number,
  matched: number,
  coverage: nullable(number),
  orphan_server_roots: number,
  lost_roots: number,
  duplicate_trace_ids: number,
  client_duplicate_trace_ids: number,
  server_multi_root_traces: number,
  server_ambiguous_ids: number,
});

const runSide = model<RunSide>()({
  label: string,
  outcomes: model<RunSide['outcomes']>()({ started: number, succeeded: number }),
  join: sideJoin,
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
  base: runSide,
  head: runSide,
  metrics: array(object({ metric: string, population: string, n_base: number, n_head: number })) as unknown as Schema<Comparison['metrics']>,
  moved: array(object({ metric: string, stat: string })) as unknown as Schema<Comparison['moved']>,
});

export const comparisonJson = jsonText(comparison);

/** A comparison as JSON text, with non-finite numbers as null (the CLI's `--format json` does the same). */
export function encodeComparison(c: Comparison): string {
  return JSON.stringify(c, (_k, v: unknown) => (typeof v === 'number' && !Number.isFinite(v) ? null : v));
}

/** One side as saved: a run of the Runs view (its id, and its files to reopen it), or a database file. */
export const compareSideState = object({ run: nullable(string), file: nullable(string), label: string, inputs: nullable(runInputs) });
export type CompareSideState = Infer<typeof compareSideState>;

/** What the webview saves with setState: which runs, and the bootstrap's settings (the same figures on restore). */
export const compareViewState = object({ base: compareSideState, head: compareSideState, resamples: number, seed: number, confidence: number });
export type CompareViewState = Infer<typeof compareViewState>;

/** Host → webview: the comparison to show, and the state to save. */
export const DidLoad = notification('compare/didLoad', 'toWebview', object({ comparison: comparisonJson, state: compareViewState }));

/**
 * Host → webview: a restored panel's comparison is not there yet: being recomputed (`busy`), or a run
 * is no longer open (`gone`, with a Reopen button when its files are known), or it failed (`failed`).
 */
export const Status = notification('compare/status', 'toWebview', object({ kind: literal('busy', 'gone', 'failed'), message: string, can_reopen: boolean, state: compareViewState }));
export type StatusParams = Infer<typeof Status.params>;

/** Webview → host: open the runs that are gone again (Open Run… on their files) and compare. */
export const Reopen = notification('compare/reopen', 'toHost', object({}));
