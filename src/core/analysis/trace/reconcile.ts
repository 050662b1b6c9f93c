import type { QueryRunner } from '../../store/duckStore';
import { query } from '../sql/statement';
import { ensureBreakdown } from '../breakdown/pipeline';
import type { AnalysisOptions } from '../options';
import { phaseColumns, type PhaseColumn } from '../breakdown/phaseSelect';
import type { TraceBreakdown, WaterfallSpan } from '../../report/model';
import { traceWaterfall } from './waterfall';
import { validTraceIdSql } from '../index/spanIndex';
import { criticalPathSteps, type CriticalPathStep } from './criticalPath';

/** One request seen from both sides, for `phasewise reconcile` and the waterfall panel. */
export interface TraceReconciliation {
  breakdown: TraceBreakdown;
  spans: WaterfallSpan[];
  /** The request counts in the decomposition population (valid ID, no collision, exactly one root). */
  matched: boolean;
  /** Why the figures are partial or not matched, in plain words. */
  notes: string[];
  /**
   * The chain of work the root's end waited on (docs/metrics.md §3.4), ms from the root's start;
   * null when the trace has no unique root span.
   */
  critical_path: CriticalPathStep[] | null;
}

interface ReconcileRow extends Record<string, unknown> {
  client_rows: number;
  trace_valid: boolean;
  outcome: string | null;
  start_ms: number | null;
  client_total_ms: number | null;
  transport_setup_ms: number | null;
  client_ttft_ms: number | null;
  matched: boolean | null;
  span_count: number | null;
  root_candidates: number | null;
  root_span_id: string | null;
  root_fallback: boolean | null;
  root_start_ms: number | null;
  server_root_ms: number | null;
  unattributed_server_ms: number | null;
  server_ttft_ms: number | null;
  tree_spans: number | null;
}

/**
 * The single-request figures for one trace ID. Server figures come from the trace's unique root even
 * when the request is not matched (a client-side duplicate, say), so that the reason is visible next
 * to the numbers; `matched` and `notes` say whether they count in the report.
 * Returns undefined when neither side knows the trace ID.
 */
export async function reconcileTrace(
  store: QueryRunner,
  traceId: string,
  options: AnalysisOptions,
  /** The waterfall's first spans only (traceWaterfall's limit): the figures count every span all the same. */
  maxSpans?: number,
): Promise<TraceReconciliation | undefined> {
  await ensureBreakdown(store, options);
  const phases = phaseColumns(options.phases);
  const id = traceId.trim().toLowerCase();
  const phaseSelect = phases.map((p) => `rb.${p.column}`).join(', ');
  const rows = await query<ReconcileRow>(
    store,
    'reconcile',
    `WITH q AS (
       SELECT * FROM request_breakdown WHERE trace_id = $1 ORDER BY matched DESC, row_id LIMIT 1
     ),
     cnt AS (SELECT count(*) AS client_rows FROM request_breakdown WHERE trace_id = $1)
     SELECT cnt.client_rows,
            coalesce(q.trace_valid, ${validTraceIdSql('$1')}) AS trace_valid,
            q.outcome, q.start_ms, q.client_total_ms, q.transport_setup_ms, q.client_ttft_ms, q.matched,
            tr.span_count, tr.root_candidates, tr.root_span_id, tr.root_fallback, tr.root_start_ns / 1e6 AS root_start_ms,
            tr.server_root_ms, rb.unattributed_server_ms, rb.server_ttft_ms,
            (SELECT count(*) FROM root_tree WHERE trace_id = $1) AS tree_spans
            ${phaseSelect ? ', ' + phaseSelect : ''}
     FROM cnt LEFT JOIN q ON true
     LEFT JOIN trace_roots tr ON tr.trace_id = $1
     LEFT JOIN root_breakdown rb ON rb.trace_id = $1`,
    [id],
  );
  const r = rows[0];
  if (!r || (r.client_rows === 0 && r.span_count === null)) return undefined;
  const breakdown = toTraceBreakdown(id, r, phases);
  const spans = r.span_count !== null ? await traceWaterfall(store, id, r.root_span_id, phases, maxSpans) : [];
  const rooted = r.root_candidates === 1 && r.root_span_id !== null && spans[0]?.span_id === r.root_span_id;
  // A waterfall cut at maxSpans (the HTML of a huge trace) has no critical path: it may lie in the rest.
  const whole = maxSpans === undefined || spans.length < maxSpans;
  return {
    breakdown,
    spans,
    matched: r.matched === true,
    notes: [...reconcileNotes(r), ...cycleNotes(spans)],
    critical_path: rooted && whole ? criticalPathSteps(spans, options.timestampGranularityMs) : null,
  };
}

function toTraceBreakdown(traceId: string, r: ReconcileRow, phases: readonly PhaseColumn[]): TraceBreakdown {
  const phaseMs: Record<string, number> = {};
  for (const p of phases) {
    const v = r[p.column];
    if (typeof v === 'number') phaseMs[p.column] = v;
  }
  const envelope = r.client_total_ms !== null && r.server_root_ms !== null ? r.client_total_ms - r.server_root_ms : null;
  return {
    trace_id: traceId,
    outcome: r.outcome ?? 'no client record',
    start_ms: r.start_ms ?? r.root_start_ms,
    client_total_ms: r.client_total_ms,
    server_root_ms: r.server_root_ms,
    network_envelope_ms: envelope,
    transport_setup_ms: r.transport_setup_ms,
    phases: phaseMs,
    unattributed_server_ms: r.unattributed_server_ms,
    client_ttft_ms: r.client_ttft_ms,
    server_ttft_ms: r.server_ttft_ms,
  };
}

/** Spans that start a walk although their parent is in the trace: their parent links form a cycle (traceWaterfall). */
function cycleNotes(spans: readonly WaterfallSpan[]): string[] {
  const ids = new Set(spans.map((s) => s.span_id));
  const starts = spans.filter((s) => s.depth === 0 && s.parent_span_id !== null && ids.has(s.parent_span_id));
  return starts.map((s) => `span ${s.span_id} (${JSON.stringify(s.name)}) is in a parent cycle: following its parents leads back to it; shown from it, at the top`);
}

function reconcileNotes(r: ReconcileRow): string[] {
  const notes: string[] = [];
  if (!r.trace_valid) notes.push('the trace ID is not a valid W3C trace ID (32 lower-case hex digits, not all zero): never matched');
  if (r.client_rows === 0) notes.push('no client record carries this trace ID (server-only figures)');
  if (r.client_rows > 1) notes.push(`the client file carries this trace ID ${r.client_rows} times: a collision, not matched`);
  if (r.span_count === null) notes.push('no span of this trace was exported (client-only figures)');
  else if (r.root_candidates === 0) notes.push(`the root span was lost: ${r.span_count} spans exported, none of them a root candidate; not matched`);
  else if ((r.root_candidates ?? 0) > 1) {
    // With no SERVER candidate the candidates are the spans without a parent ID (rootSelect.ts): say which.
    const which = r.root_fallback ? 'spans without a parent ID; no SERVER span is a candidate' : 'SERVER spans whose parent is not in the trace';
    notes.push(`${r.root_candidates} root candidates (${which}): a collision, not matched`);
  }
  if (r.root_fallback && r.root_candidates === 1) notes.push('no SERVER root candidate: the span without a parent was taken as the root');
  if (r.span_count !== null && r.root_candidates === 1 && r.tree_spans !== null && r.tree_spans < r.span_count) {
    notes.push(`${r.span_count - r.tree_spans} spans are not under the root (missing intermediate parent) and count in no phase`);
  }
  if (r.outcome !== null && r.outcome !== 'succeeded') notes.push(`outcome ${r.outcome}: not in the latency population`);
  if (r.client_total_ms !== null && r.server_root_ms !== null && r.client_total_ms < r.server_root_ms) {
    notes.push('negative network envelope: the root span outlasts the client request (root ends after the response was flushed, clock units, or a bad join)');
  }
  return notes;
}
