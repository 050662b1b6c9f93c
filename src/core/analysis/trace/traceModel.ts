/**
 * The trace model of one trace ID (types.ts) read from a loaded run: reconcileTrace's figures and span
 * tree, plus what only the waterfall needs (every attribute, events, the client's k6 timings, source
 * lines), each read with one query keyed by the trace's integer trace_no.
 */
import type { QueryRunner } from '../../store/duckStore';
import { spanAttributeListSql } from '../../store/spanAttributes';
import { renderReconciliationLines } from '../../report/waterfall';
import type { AnalysisOptions } from '../options';
import { reconcileTrace } from '../reconcile';
import { genAiBadges, maskAttributes } from './attributes';
import type { ClientRequestTimings, SpanAttribute, TraceModel, TraceSpan, TraceSpanEvent } from './types';

interface DetailRow extends Record<string, unknown> {
  span_id: string;
  path: string | null;
  line: number | null;
  attrs: { key: string | null; value: string | null }[] | null;
  events: { name: string | null; time_ms: number | null }[] | null;
}

type ClientRow = Omit<ClientRequestTimings, 'total_ms' | 'ttft_ms' | 'ttfb_ms'> & {
  client_total_ms: number | null;
  client_ttft_ms: number | null;
  client_ttfb_ms: number | null;
} & Record<string, unknown>;

/** What the span detail cannot show, whatever the trace: said once in the model so the view prints it. */
const MODEL_LIMITS = [
  'resource attributes other than service.name are not kept at load (only the service is shown)',
  'event attributes are not kept at load (only event names and times)',
];

/**
 * The model of `traceId` (normalised by the caller: 32 lower-case hex digits), or undefined when
 * neither side knows it.
 */
export async function readTraceModel(store: QueryRunner, traceId: string, options: AnalysisOptions): Promise<TraceModel | undefined> {
  const rec = await reconcileTrace(store, traceId, options);
  if (rec === undefined) return undefined;
  const id = rec.breakdown.trace_id;
  const rootSpanId = rec.spans.length > 0 ? await rootSpanIdOf(store, id) : null;
  const details = rec.spans.length > 0 ? await readSpanDetails(store, id, rootSpanId) : new Map<string, DetailRow>();
  const spans: TraceSpan[] = rec.spans.map((s) => {
    const d = details.get(s.span_id);
    const raw: SpanAttribute[] = (d?.attrs ?? [])
      .filter((a) => a.key !== null)
      .map((a) => ({ key: a.key as string, value: a.value ?? '', masked: false }));
    const events: TraceSpanEvent[] = (d?.events ?? [])
      .filter((e) => e.time_ms !== null)
      .map((e) => ({ name: e.name ?? '', time_ms: e.time_ms as number }))
      .sort((a, b) => a.time_ms - b.time_ms);
    return { ...s, attributes: maskAttributes(raw), events, genai: genAiBadges(raw), source: d?.path ?? null, line: d?.line ?? null };
  });
  const phases = options.phases.map((p) => p.name);
  return {
    trace_id: id,
    phases,
    breakdown: rec.breakdown,
    matched: rec.matched,
    notes: rec.notes,
    reconciliation: renderReconciliationLines(rec, phases),
    client: await readClientTimings(store, id),
    root_span_id: rootSpanId,
    spans,
    limits: MODEL_LIMITS,
  };
}

async function rootSpanIdOf(store: QueryRunner, traceId: string): Promise<string | null> {
  const [row] = await store.all<{ root_span_id: string | null }>(
    'SELECT root_span_id FROM trace_roots WHERE trace_id = $1 AND root_candidates = 1',
    [traceId],
  );
  return row?.root_span_id ?? null;
}

/** Attributes, events (ms from the same base as traceWaterfall's start_ms), source file and line, per span ID. */
async function readSpanDetails(store: QueryRunner, traceId: string, rootSpanId: string | null): Promise<Map<string, DetailRow>> {
  const rows = await store.all<DetailRow>(
    `WITH t AS (
       SELECT i.node_id, i.start_ns, s.span_id, s.line, s.source_id, ${spanAttributeListSql('s')} AS attrs
       FROM span_index i JOIN spans s ON s.rowid = i.node_id
       WHERE i.trace_no = (SELECT trace_no FROM trace_index WHERE trace_id = $1)
     ),
     base AS (SELECT coalesce((SELECT start_ns FROM t WHERE span_id = $2), (SELECT min(start_ns) FROM t)) AS base_ns),
     ev AS (
       SELECT e.node_id, list({name: e.name, time_ms: (e.time_ns - base.base_ns) / 1e6}) AS events
       FROM event_index e, base WHERE e.node_id IN (SELECT node_id FROM t) GROUP BY e.node_id
     )
     SELECT t.span_id, src.path, t.line, t.attrs, ev.events
     FROM t LEFT JOIN ev USING (node_id) LEFT JOIN sources src ON src.source_id = t.source_id`,
    [traceId, rootSpanId],
  );
  return new Map(rows.map((r) => [r.span_id, r]));
}

/** The client record reconcileTrace reads (the matched one first, then the first loaded). */
async function readClientTimings(store: QueryRunner, traceId: string): Promise<ClientRequestTimings | null> {
  const [r] = await store.all<ClientRow>(
    `SELECT b.outcome, b.http_status, b.method, b.url, b.route, b.scenario, b.model_class, b.client_total_ms,
            b.blocked_ms, b.connecting_ms, b.tls_handshaking_ms, b.sending_ms, b.waiting_ms, b.receiving_ms,
            b.client_ttft_ms, b.client_ttfb_ms, b.input_tokens, b.output_tokens, src.path AS source, b.line
     FROM request_breakdown b LEFT JOIN sources src ON src.source_id = b.source_id
     WHERE b.trace_id = $1 ORDER BY b.matched DESC, b.row_id LIMIT 1`,
    [traceId],
  );
  if (r === undefined) return null;
  return {
    outcome: r.outcome,
    http_status: r.http_status,
    method: r.method,
    url: r.url,
    route: r.route,
    scenario: r.scenario,
    model_class: r.model_class,
    total_ms: r.client_total_ms,
    blocked_ms: r.blocked_ms,
    connecting_ms: r.connecting_ms,
    tls_handshaking_ms: r.tls_handshaking_ms,
    sending_ms: r.sending_ms,
    waiting_ms: r.waiting_ms,
    receiving_ms: r.receiving_ms,
    ttft_ms: r.client_ttft_ms,
    ttfb_ms: r.client_ttfb_ms,
    input_tokens: r.input_tokens,
    output_tokens: r.output_tokens,
    source: r.source,
    line: r.line,
  };
}
