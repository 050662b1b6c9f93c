/**
 * What the receiver tells its owner (the CLI's lines, the editor's status bar and live run), as plain
 * JSON-serialisable events.
 */

/** Totals since the receiver started; `refused` counts requests by HTTP status. */
export interface ReceiverSummary {
  /** `host:port` it listened on. */
  address: string;
  requests: number;
  exports_accepted: number;
  accepted_spans: number;
  /** Spans refused inside accepted exports (partial_success.rejected_spans). */
  rejected_spans: number;
  refused: Record<string, number>;
  /** Requests whose client closed the connection or stalled before the body was complete (not answered; not a refusal). */
  incomplete_requests: number;
  bytes_received: number;
  /** Occurrences of a secret (the API token) replaced before storing. */
  redactions: number;
  duration_s: number;
  /** Labels of the sinks that stored the spans (`file …`, `database …`). */
  stored: string[];
  /**
   * Exports a sink could not store (each answered 503, so the exporter sends it again), by sink label:
   * how many, their spans, and why the last one failed (no storage engine text).
   */
  not_stored: Record<string, { exports: number; spans: number; reason: string }>;
}

export type ReceiverEvent =
  | { type: 'listening'; address: string }
  /** One accepted export: spans stored and refused, and the traces they belong to. */
  | { type: 'export'; encoding: 'protobuf' | 'json'; bytes: number; accepted: number; rejected: number; traceIds: string[] }
  | { type: 'refused'; status: number; reason: string }
  | { type: 'redacted'; count: number }
  /** A DuckDB sink finished a load: the run now holds this many received spans. */
  | { type: 'stored'; spans: number }
  | { type: 'error'; message: string }
  | { type: 'stopped'; summary: ReceiverSummary };

/** `127.0.0.1:4318`, `[::1]:4318`, `localhost:4318`, `:4318` (loopback) or `4318` → host and port; undefined when malformed. */
export function parseListenAddress(text: string): { host: string; port: number } | undefined {
  const m = /^(?:(?:\[([0-9a-fA-F:.]+)\]|([A-Za-z0-9.-]*)):)?(\d{1,5})$/.exec(text.trim());
  if (!m) return undefined;
  const port = Number(m[3]);
  if (port > 65535) return undefined;
  const host = m[1] ?? (m[2] || '127.0.0.1');
  return { host, port };
}

/** Whether a listen host only accepts connections from this machine. */
export function isLoopbackHost(host: string): boolean {
  return host === 'localhost' || host === '::1' || /^127\.\d+\.\d+\.\d+$/.test(host);
}
