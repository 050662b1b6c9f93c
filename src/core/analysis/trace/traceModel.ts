/**
 * The trace model of one trace ID (types.ts) read from a loaded run: reconcileTrace's figures and span
 * tree, plus what only the waterfall needs (every attribute, events, the client's k6 timings, source
 * lines), each read with one query keyed by the trace's integer trace_no.
 */
import type { QueryRunner } from '../../store/duckStore';
import { spanAttributeListSql } from '../../store/spanAttributes';
import { renderReconciliationLines } from '../../report/waterfall';
import type { AnalysisOptions } from '../options';
import { reconcileTrace } from './reconcile';
import { traceSpanCount } from './waterfall';
import type { WaterfallSpan } from '../../report/model';
import { SPAN_COLUMNS } from '../index/spanIndex';
import { genAiBadges, maskAttributes } from './attributes';
import type { ClientRequestTimings, SpanAttribute, TraceModel, TraceSpan, TraceSpanEvent } from './types';

interface DetailRow extends Record<string, unknown> {
  span_id: string;
  /** False for a later copy of a span ID (B3 shared spans: the server half of a Zipkin client span). */
  kept: boolean;
  name: string | null;
  kind: string | null;
  service: string | null;
  status: string | null;
  start_ms: number | null;
  duration_ms: number | null;
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
 * The spans a self-contained HTML page embeds per trace: the waterfall's design size (docs/performance.md:
 * first paint of a 100k-span trace). A trace of 500,000 spans made a 225 MB page and peaked at 4 GB of
 * RSS under --memory-limit 512MB (every span's attributes as JavaScript objects, then several copies of
 * the page's JSON text); the rest of the trace stays in the run, and its figures count every span.
 */
export const MAX_PAGE_TRACE_SPANS = 100_000;

/**
 * The model of `traceId` (normalised by the caller: 32 lower-case hex digits), or undefined when
 * neither side knows it. With `maxSpans`, only the first that many spans of the waterfall (in its
 * order) get their details read and are drawn, and a note says so; the breakdown counts them all.
 */
export async function readTraceModel(store: QueryRunner, traceId: string, options: AnalysisOptions, maxSpans?: number): Promise<TraceModel | undefined> {
  const rec = await reconcileTrace(store, traceId, options, maxSpans);
  if (rec === undefined) return undefined;
  const id = rec.breakdown.trace_id;
  const tree = rec.spans;
  const total = maxSpans !== undefined && tree.length >= maxSpans ? await traceSpanCount(store, id) : tree.length;
  const cut = total > tree.length;
  const notes = cut
    ? [...rec.notes, `the waterfall shows the first ${tree.length.toLocaleString('en-US')} of its ${total.toLocaleString('en-US')} spans, in waterfall order (the figures count them all; phasewise reconcile --format json lists every span)`]
    : rec.notes;
  const rootSpanId = tree.length > 0 ? await rootSpanIdOf(store, id) : null;
  const rows = tree.length > 0 ? await readSpanDetails(store, id, rootSpanId, cut ? tree.map((s) => s.span_id) : undefined) : [];
  const spans = assembleSpans(tree, rows);
  const phases = options.phases.map((p) => p.name);
  return {
    trace_id: id,
    phases,
    breakdown: rec.breakdown,
    matched: rec.matched,
    notes,
    reconciliation: renderReconciliationLines(rec, phases),
    client: await readClientTimings(store, id),
    root_span_id: rootSpanId,
    spans,
    granularity_ms: options.timestampGranularityMs,
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

function toTraceSpan(s: WaterfallSpan, d: DetailRow | undefined, parentIndex: number | null, copy: boolean): TraceSpan {
  const raw: SpanAttribute[] = (d?.attrs ?? [])
    .filter((a) => a.key !== null)
    .map((a) => ({ key: a.key as string, value: a.value ?? '', masked: false }));
  const events: TraceSpanEvent[] = (d?.events ?? [])
    .filter((e) => e.time_ms !== null)
    .map((e) => ({ name: e.name ?? '', time_ms: e.time_ms as number }))
    .sort((a, b) => a.time_ms - b.time_ms);
  return {
    ...s,
    parent_index: parentIndex,
    shared_copy: copy,
    attributes: maskAttributes(raw),
    events,
    genai: genAiBadges(raw),
    source: d?.path ?? null,
    line: d?.line ?? null,
  };
}

/**
 * The waterfall's rows in traceWaterfall's order, each later copy of a span ID placed right under the
 * copy the analysis kept (as Zipkin shows a shared span's server half under its client half), so
 * every span the export holds is drawn. Copies count in no phase (the analysis reads one per ID).
 */
function assembleSpans(tree: readonly WaterfallSpan[], rows: readonly DetailRow[]): TraceSpan[] {
  const kept = new Map<string, DetailRow>();
  const copies = new Map<string, DetailRow[]>();
  for (const r of rows) {
    if (r.kept) kept.set(r.span_id, r);
    else copies.set(r.span_id, [...(copies.get(r.span_id) ?? []), r]);
  }
  const out: TraceSpan[] = [];
  const indexOf = new Map<string, number>();
  for (const s of tree) {
    const parent = s.parent_span_id !== null ? indexOf.get(s.parent_span_id) : undefined;
    const at = out.length;
    indexOf.set(s.span_id, at);
    out.push(toTraceSpan(s, kept.get(s.span_id), parent ?? null, false));
    for (const c of copies.get(s.span_id) ?? []) {
      const copy: WaterfallSpan = {
        span_id: s.span_id,
        parent_span_id: s.span_id,
        name: c.name ?? '',
        service: c.service,
        kind: c.kind ?? 'UNSPECIFIED',
        start_ms: c.start_ms ?? 0,
        duration_ms: c.duration_ms ?? 0,
        depth: s.depth + 1,
        phase: null,
        status: c.status ?? 'UNSET',
      };
      out.push(toTraceSpan(copy, c, at, true));
    }
  }
  return out;
}

/**
 * Every loaded row of the trace's spans (copies of one span ID included, flagged by `kept`): attributes,
 * events, times (ms from the same base as traceWaterfall's start_ms), source file and line; only the
 * spans `only` names when given (the base is the whole trace's all the same).
 */
async function readSpanDetails(store: QueryRunner, traceId: string, rootSpanId: string | null, only?: readonly string[]): Promise<DetailRow[]> {
  // Attributes are typed only for the rows returned (`only` filters before they are).
  const subset = only !== undefined ? `AND s.span_id IN (SELECT unnest(from_json($3, '["VARCHAR"]')))` : '';
  return store.all<DetailRow>(
    `WITH k AS (
       SELECT s.span_id, s.start_ns FROM spans s JOIN span_index i ON i.node_id = s.rowid WHERE s.trace_id = $1
     ),
     base AS (SELECT coalesce((SELECT start_ns FROM k WHERE span_id = $2), (SELECT min(start_ns) FROM k)) AS base_ns),
     t AS (
       SELECT s.rowid AS node_id, i.node_id IS NOT NULL AS kept, s.start_ns, ${SPAN_COLUMNS}, s.duration_ms, s.line, s.source_id,
              ${spanAttributeListSql('s')} AS attrs
       FROM spans s LEFT JOIN span_index i ON i.node_id = s.rowid
       WHERE s.trace_id = $1 AND coalesce(s.span_id, '') <> '' ${subset}
     ),
     ev AS (
       SELECT e.node_id, list({name: e.name, time_ms: (e.time_ns - base.base_ns) / 1e6}) AS events
       FROM event_index e, base WHERE e.node_id IN (SELECT node_id FROM t WHERE kept) GROUP BY e.node_id
     )
     SELECT t.span_id, t.kept, t.name, t.kind, t.service, t.status, (t.start_ns - base.base_ns) / 1e6 AS start_ms, t.duration_ms,
            src.path, t.line, t.attrs, ev.events
     FROM t CROSS JOIN base LEFT JOIN ev USING (node_id) LEFT JOIN sources src ON src.source_id = t.source_id
     ORDER BY t.node_id`,
    only !== undefined ? [traceId, rootSpanId, JSON.stringify(only)] : [traceId, rootSpanId],
  );
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
