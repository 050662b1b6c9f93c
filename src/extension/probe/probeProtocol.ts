/**
 * Messages between the extension host and the probe worker (probeWorker.ts): the probe's network
 * work and its reconciliation (DuckDB) run there, never on the host's event loop. Each message is
 * declared once with the schema language of the webviews and the run worker (src/protocol/schema.ts):
 * its type comes from the declaration, and each side checks what it receives against it, so a stale
 * worker bundle fails with the path of the mismatch instead of a blank banner.
 */
import { OUTCOMES } from '../../core/outcomes';
import type { BackendSpec } from '../../core/probe/backends/backendSpec';
import type { ProbeResult, PropagationCheck, TraceFetch } from '../../core/probe/result';
import type { TimedRequestOptions } from '../../core/probe/send/timedRequest';
import { array, boolean, literal, model, nullable, number, object, optional, record, string, tagged, type Infer, type Schema } from '../../protocol/schema';

type ProbeRequest = Omit<TimedRequestOptions, 'signal'>;

/** The request as the worker sends it: the fields it cannot send without (the rest are optional in the core type). */
const probeRequest = model<ProbeRequest>()({ baseUrl: string, route: optional(string), model: string, stream: boolean, timeoutMs: number, apiToken: optional(string), insecure: optional(boolean) });

const backendSpec: Schema<BackendSpec> = tagged('kind', {
  none: object({ kind: literal('none') }),
  receiver: object({ kind: literal('receiver'), listen: string }),
  file: object({ kind: literal('file'), path: string }),
  jaeger: object({ kind: literal('jaeger'), url: string, headers: optional(record(string)) }),
  tempo: object({ kind: literal('tempo'), url: string, headers: optional(record(string)) }),
});

/**
 * `workerData`: one probe, or a series, written to `outDir` (a probe's record and trace documents, a
 * series' records and spans). The token travels only in `request.apiToken`.
 */
export const probeJob = object({
  kind: literal('probe', 'series'),
  request: probeRequest,
  backend: backendSpec,
  traceTimeoutMs: number,
  quietMs: number,
  contract: optional(string),
  count: optional(number),
  ratePerSecond: optional(number),
  outDir: optional(string),
});
export type ProbeJob = Infer<typeof probeJob>;

/** The probe's result: the fields the banner, the log and the waterfall read. */
const probeResult = model<ProbeResult>()({
  trace_id: string,
  traceparent: string,
  url: string,
  outcome: literal(...OUTCOMES),
  started_epoch_ms: number,
  reconcile: array(string),
  notes: array(string),
  propagation: nullable(model<PropagationCheck>()({ ok: boolean, problems: array(string), phases_present: array(string), phases_missing: array(string) })),
  trace: nullable(model<TraceFetch>()({ backend: string, status: literal('complete', 'partial', 'missing'), spans: number, waited_ms: number, reasons: array(string) })),
});

/** Worker → host. `files`: the probe as a run (its record and the trace's documents), for the waterfall. */
export const probeWorkerMessage = tagged('type', {
  stage: object({ type: literal('stage'), text: string }),
  probe: object({ type: literal('probe'), result: probeResult, text: string, files: nullable(object({ records: string, spans: array(string) })) }),
  series: object({ type: literal('series'), records: string, spans: nullable(string), sent: number, succeeded: number }),
  error: object({ type: literal('error'), message: string }),
});
export type ProbeWorkerMessage = Infer<typeof probeWorkerMessage>;

/** Host → worker: the only message is a cancel. */
export const cancelMessage = object({ type: literal('cancel') });
export type CancelMessage = Infer<typeof cancelMessage>;
