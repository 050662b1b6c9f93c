/**
 * The messages between the extension host and the run worker (runWorker.ts), declared once each with
 * the schema language the webviews use (src/protocol/schema.ts) and exchanged through the same
 * Endpoint (src/protocol/ipc.ts): replies matched by id, params checked on send and on receipt. The
 * worker is the Endpoint's far side, where a webview sits for a panel, so host → worker messages are
 * declared `toWebview` (TO_WORKER) and worker → host ones `toHost`.
 *
 * Large models (the report view, a trace) cross as JSON text that the host passes on to the webview
 * untouched: the extension host never parses or clones them. Every request answers `{ value }` or
 * `{ error }` (a SerializedError), so an InputError keeps its file and line across the thread.
 * No vscode and no DuckDB import: the host bundle, the worker and plain-Node tests all use this file.
 */
import type { SerializedError } from './workerErrors';
import { gateRow, runInputs } from '../../protocol/common';
import { notification, request } from '../../protocol/ipc';
import { breakdown, reportViewModelJson, traceSelection } from '../../protocol/report';
import { array, boolean, jsonText, literal, nullable, number, object, optional, record, string, unknown, type Infer, type Schema } from '../../protocol/schema';
import { traceComparisonJson, traceModelJson } from '../../protocol/waterfall';
import { comparisonJson } from '../../protocol/compare';
import { queryAnswer, viewDoc } from '../../protocol/query';
import type { Report } from '../../core/report/model';

const TO_WORKER = 'toWebview';
const TO_HOST = 'toHost';

/** The error half of every answer (workerErrors.ts revives it; its fields are checked there). */
const serializedError = object({ kind: string }) as unknown as Schema<SerializedError>;

/** A request's answer: the value, or the error it failed with. */
function answer<T>(value: Schema<T>): Schema<{ value?: T; error?: SerializedError }> {
  return object({ value: optional(value), error: optional(serializedError) });
}

/** The answer type of a request declared with `answer(…)`. */
export type Answer<T> = { value?: T; error?: SerializedError };

const spanMatcher = object({ names: optional(array(string)), attributes: optional(record(string)), attributePresent: optional(array(string)), service: optional(string) });
const phaseDefinition = object({ name: string, anyOf: array(spanMatcher) });
export type PhaseDefinitionParams = Infer<typeof phaseDefinition>;

/** The editor's settings an analysis reads (phasewise.duckdb.*, phasewise.analysis.*, phasewise.slowTraces.count). */
export const runSettings = object({
  memoryLimit: optional(string),
  threads: optional(number),
  /** phasewise.analysis.windowSize (`30s`, `1m`), used when the run has no contract (a contract's windows.size wins). */
  windowSize: optional(string),
  slowTraceCount: number,
  /** phasewise.analysis.phases: the phase mapping when no contract declares trace.phases. */
  phases: optional(array(phaseDefinition)),
});
export type RunSettings = Infer<typeof runSettings>;

/** What a run is made of. Paths are absolute. */
export { runInputs };
export type RunInputs = Infer<typeof runInputs>;

const fingerprint = object({ path: string, side: literal('client', 'server'), size: number, mtimeMs: number });

/** A gate as the Runs view (and the contract form's Evaluate) shows it: protocol/common.ts. */
export { gateRow };
export type GateRow = Infer<typeof gateRow>;

/** One owner of the request's time (the envelope, a phase, the unattributed time) with its p95 and budget. */
export const ownerRow = object({
  owner: string,
  metric: string,
  p50: nullable(number),
  p95: nullable(number),
  p99: nullable(number),
  n: number,
  /** Which requests the figures describe, e.g. `matched successes, whole run`. */
  population: string,
  /** The budget gate on this owner, when the contract declares one. */
  budget: nullable(gateRow),
});
export type OwnerRow = Infer<typeof ownerRow>;

/** A slow trace with the owner of most of its time (core dominantOwner), as the Slow Traces view lists it. */
export const slowTraceRow = object({
  trace: breakdown,
  dominant: nullable(object({ owner: string, ms: number, share: nullable(number) })),
});
export type SlowTraceRow = Infer<typeof slowTraceRow>;

/** What the tree views and the status bar show of an analysed run (small; kept across reloads). */
export const runSummary = object({
  title: string,
  analyzed_at: number,
  phasewise_version: string,
  contract: nullable(string),
  window_size_ms: number,
  phases: array(string),
  inputs: array(object({ path: string, format: string, side: string, bytes: number, records: number, skipped: number })),
  verdict: object({ status: string, broken_phase: nullable(string), reasons: array(string) }),
  join: object({
    client_requests: number,
    matched: number,
    coverage: nullable(number),
    coverage_of_valid: nullable(number),
    valid_trace_ids: number,
    invalid_trace_ids: number,
    unmatched_client: number,
    orphan_server_roots: number,
    lost_roots: number,
    duplicate_trace_ids: number,
    server_traces: number,
    server_spans: number,
  }),
  owners: array(ownerRow),
  /** Gates other than the per-owner budgets. */
  gates: array(gateRow),
  load_issues: number,
  warnings: array(string),
  /** The report's slow traces (client total order). */
  slow_traces: array(slowTraceRow),
});
export type RunSummary = Infer<typeof runSummary>;

/** Host → worker: sort files and folders into run artifacts, span exports and contracts by content. */
export const Classify = request(
  'runs/classify',
  TO_WORKER,
  object({ paths: array(string) }),
  answer(
    object({
      run: array(object({ path: string, format: string })),
      spans: array(object({ path: string, format: string })),
      contracts: array(string),
      skipped: array(object({ path: string, reason: string })),
      /** The picks that were folders (their files were looked at). */
      folders: array(string),
    }),
  ),
);
export type Classification = NonNullable<Infer<typeof Classify.result>['value']>;

/**
 * Host → worker: make the run's database current (reuse it when the key's database is complete, else
 * load the files into a new one, atomically), then analyse it with the contract and settings.
 * `base` names the database of the run this one extends (Add Span Export…): it is copied and only the
 * files it lacks are loaded. `job` identifies progress and cancel messages.
 */
export const OpenRun = request(
  'runs/open',
  TO_WORKER,
  object({ job: number, dir: string, inputs: runInputs, settings: runSettings, base: nullable(string) }),
  answer(object({ key: string, fingerprints: array(fingerprint), summary: runSummary, reused: boolean, load_ms: number, analyze_ms: number })),
);
export type OpenRunResult = NonNullable<Infer<typeof OpenRun.result>['value']>;

/**
 * Host → worker: analyse a run whose database exists (the live run the receiver writes, or a run
 * opened before in this worker) with this contract and these settings, without looking at its files.
 */
export const Analyze = request(
  'runs/analyze',
  TO_WORKER,
  object({ job: number, key: string, dir: string, contract: nullable(string), settings: runSettings }),
  answer(object({ summary: runSummary, analyze_ms: number })),
);

/** Host → worker: stop job `job` (a load or an analysis); its request answers with a `cancelled` error. */
export const Cancel = notification('runs/cancel', TO_WORKER, object({ job: number }));

/** Worker → host: a load's progress (a file starts, or a reader's phase message with the share read). */
export const Progress = notification(
  'runs/progress',
  TO_HOST,
  object({
    job: number,
    message: string,
    fraction: nullable(number),
    file: nullable(string),
    bytes: nullable(number),
    total_bytes: nullable(number),
  }),
);

const keyed = { key: string };

/** The Report model (`--format json`) as JSON text. */
export const reportJson = jsonText(object({ verdict: object({ status: string }) }) as unknown as Schema<Report>);

/** Host → worker: the last analysis's Report (for executeCommand callers). */
export const GetReport = request('runs/report', TO_WORKER, object(keyed), answer(object({ report: reportJson })));

/** Host → worker: the report view model of the last analysis. */
export const ReportView = request('runs/reportView', TO_WORKER, object(keyed), answer(object({ model: reportViewModelJson })));

/** Host → worker: one trace's model, or null when neither side of the run knows it. */
export const Trace = request('runs/trace', TO_WORKER, object({ ...keyed, trace_id: string }), answer(object({ trace: nullable(traceModelJson) })));

/** Host → worker: the traces of a window or an envelope bucket (the report's chart clicks). */
export const ListTraces = request(
  'runs/listTraces',
  TO_WORKER,
  object({ ...keyed, selection: traceSelection, limit: number }),
  answer(object({ traces: array(breakdown), total: number })),
);

/** Host → worker: the typical trace of the same route and the deltas. */
export const Compare = request(
  'runs/compare',
  TO_WORKER,
  object({ ...keyed, trace_id: string }),
  answer(object({ comparison: nullable(traceComparisonJson), reason: nullable(string) })),
);

/** Host → worker: the slowest matched successes by a figure (client_total, network_envelope, a phase, unattributed_server). */
export const SlowTraces = request(
  'runs/slowTraces',
  TO_WORKER,
  object({ ...keyed, order: string, limit: number }),
  answer(object({ traces: array(slowTraceRow), total: number })),
);

/** Host → worker: write the report to `path` (Markdown, the JSON model, or one self-contained HTML file). */
export const ExportReport = request('runs/export', TO_WORKER, object({ ...keyed, format: literal('markdown', 'json', 'html'), path: string }), answer(object({ bytes: number })));

/** Host → worker: write one trace to `path` (self-contained HTML, or the trace model's JSON). */
export const ExportTrace = request(
  'runs/exportTrace',
  TO_WORKER,
  object({ ...keyed, trace_id: string, format: literal('html', 'json'), path: string }),
  answer(object({ bytes: number })),
);

/**
 * Host → worker: a read-only question about the run's database (the contract form's phase preview).
 * `sql` comes from the extension's own code, values only through `params`; rows come back as JSON text.
 */
export const Query = request('runs/query', TO_WORKER, object({ ...keyed, sql: string, params: array(unknown) }), answer(object({ rows: string })));

/**
 * One side of Compare Runs…: a run of the Runs view (`key`, read under its last analysis) or a
 * database written by `phasewise analyze --db` (`file`, read under the editor's analysis settings).
 */
export const compareSide = object({ key: nullable(string), file: nullable(string), label: string });
export type CompareSide = Infer<typeof compareSide>;

/**
 * Host → worker: compare two runs (core compareRuns) through the read-only view session `phasewise
 * compare` opens; the comparison as JSON text (what `phasewise compare --format json` prints).
 */
export const CompareRuns = request(
  'runs/compareRuns',
  TO_WORKER,
  object({ job: number, base: compareSide, head: compareSide, settings: runSettings, compare: object({ resamples: number, confidence: number, seed: number }) }),
  answer(object({ comparison: comparisonJson })),
);

/** Host → worker: the documented views of a run (core/views/catalog.ts under its phase mapping). */
export const ViewDocs = request('runs/viewDocs', TO_WORKER, object(keyed), answer(object({ views: array(viewDoc), version: number })));

/**
 * Host → worker: a user's SELECT over the run's views, checked and run as `phasewise sql` runs it
 * (a read-only session, external access off); at most `max_rows` rows. A refused or failing query
 * answers with `error` set (DuckDB's first line), not as a request error.
 */
export const RunSql = request('runs/sql', TO_WORKER, object({ job: number, key: string, sql: string, max_rows: number }), answer(queryAnswer));

/** Host → worker: every row of a user's SELECT written to `path` as `phasewise sql --format csv` writes it. */
export const SqlToCsv = request('runs/sqlCsv', TO_WORKER, object({ job: number, key: string, sql: string, path: string }), answer(object({ rows: number, bytes: number })));

/** Host → worker: the run's pairs written to `path` by the core export (`phasewise export`), Parquet or CSV. */
export const ExportPairs = request(
  'runs/exportPairs',
  TO_WORKER,
  object({ job: number, key: string, path: string, format: literal('parquet', 'csv') }),
  answer(object({ rows: number, bytes: number })),
);

/** What one phase's selectors pick in a run (core breakdown/phasePreview.ts PhasePick). */
export const phasePick = object({ spans: number, traces: number, names: array(object({ name: string, count: number })) });
export type PhasePickParams = Infer<typeof phasePick>;

/**
 * Host → worker: what each of these phases' selectors picks among the run's spans (the contract
 * form's phase preview), counted with the analysis's own selection SQL in the run's database, under
 * its last analysis's span index. Phase name → pick.
 */
export const PhasePreview = request('runs/phasePreview', TO_WORKER, object({ ...keyed, phases: array(phaseDefinition) }), answer(object({ picks: record(phasePick) })));

/** Host → worker: the gates and verdict of the run's last analysis, every gate as the Report has it (the contract form's Evaluate). */
export const Gates = request(
  'runs/gates',
  TO_WORKER,
  object(keyed),
  answer(object({ verdict: object({ status: string, broken_phase: nullable(string), reasons: array(string) }), gates: array(gateRow) })),
);
export type GatesResult = NonNullable<Infer<typeof Gates.result>['value']>;

/** Host → worker: close the run's store and forget it; `delete` also removes its database files. */
export const Forget = request('runs/forget', TO_WORKER, object({ keys: array(string), dir: string, delete: boolean }), answer(object({ deleted: number })));

/** Host → worker: start the OTLP/HTTP receiver, storing into the live run `key` and the JSONL file. */
export const StartReceiver = request(
  'receiver/start',
  TO_WORKER,
  object({ listen: string, key: string, dir: string, jsonl: string, redact: array(string), settings: runSettings }),
  answer(object({ address: string })),
);

/** Host → worker: stop the receiver (flushes both sinks) and say what it received. */
export const StopReceiver = request('receiver/stop', TO_WORKER, object({}), answer(nullable(object({ summary: unknown }))));

/** Worker → host: what the receiver did (an export accepted, a request refused, spans stored in the live run). */
export const ReceiverEvent = notification(
  'receiver/event',
  TO_HOST,
  object({ kind: literal('export', 'refused', 'error', 'stored'), message: string, accepted_spans: number, stored_spans: number }),
);

/** Worker → host: a line for the Phasewise log (the worker has no output channel). */
export const Log = notification('worker/log', TO_HOST, object({ level: literal('debug', 'info', 'warn', 'error'), message: string }));
