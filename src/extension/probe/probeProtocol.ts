/**
 * Messages between the extension host and the probe worker (probeWorker.ts): the probe's network
 * work and its reconciliation (DuckDB) run there, never on the host's event loop.
 */
import type { BackendSpec } from '../../core/probe/backends/backendSpec';
import type { ProbeResult } from '../../core/probe/result';
import type { TimedRequestOptions } from '../../core/probe/send/timedRequest';

/**
 * `workerData`: one probe, or a series, written to `outDir` (a probe's record and trace documents, a
 * series' records and spans). The token travels only in `request.apiToken`.
 */
export interface ProbeJob {
  kind: 'probe' | 'series';
  request: Omit<TimedRequestOptions, 'signal'>;
  backend: BackendSpec;
  traceTimeoutMs: number;
  quietMs: number;
  contract?: string;
  count?: number;
  ratePerSecond?: number;
  outDir?: string;
}

export type ProbeWorkerMessage =
  | { type: 'stage'; text: string }
  /** `files`: the probe as a run (its record and the trace's documents), for the waterfall. */
  | { type: 'probe'; result: ProbeResult; text: string; files: { records: string; spans: string[] } | null }
  | { type: 'series'; records: string; spans: string | null; sent: number; succeeded: number }
  | { type: 'error'; message: string };

/** Host → worker: the only message is a cancel. */
export interface CancelMessage {
  type: 'cancel';
}
