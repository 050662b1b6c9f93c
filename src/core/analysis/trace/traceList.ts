/**
 * The traces behind a point of the report: the matched successes of one window, or of one bucket of
 * the network-envelope histogram, slowest first. The report lists them when a window or a bucket is
 * clicked; each opens its waterfall.
 */
import type { QueryRunner } from '../../store/duckStore';
import { ensureBreakdown } from '../breakdown/pipeline';
import type { AnalysisOptions } from '../options';
import { phaseColumns, type PhaseColumn } from '../breakdown/phaseSelect';
import { MATCHED_SUCCESS } from '../figures/population';
import type { TraceBreakdown } from '../../report/model';

/** Which requests: a window by its index (send offset in [index·size, (index+1)·size)), or envelope values in [from, to). */
export type TraceSelection = { kind: 'window'; index: number } | { kind: 'envelope'; from_ms: number; to_ms: number };

export interface TraceList {
  /** The slowest `limit` of them by client_total_ms (ties by row order). */
  traces: TraceBreakdown[];
  /** How many matched successes the selection holds in all. */
  total: number;
}

const FIGURES = `trace_id, outcome, start_ms, client_total_ms, server_root_ms, network_envelope_ms, transport_setup_ms,
            unattributed_server_ms, client_ttft_ms, server_ttft_ms`;

/** A request_breakdown row of FIGURES and the phase columns as a TraceBreakdown. */
export function breakdownOfRow(r: Record<string, unknown>, phases: readonly PhaseColumn[]): TraceBreakdown {
  const phaseMs: Record<string, number> = {};
  for (const p of phases) {
    const v = r[p.column];
    if (typeof v === 'number') phaseMs[p.column] = v;
  }
  const num = (k: string): number | null => (typeof r[k] === 'number' ? (r[k] as number) : null);
  return {
    trace_id: String(r.trace_id),
    outcome: String(r.outcome),
    start_ms: num('start_ms'),
    client_total_ms: num('client_total_ms'),
    server_root_ms: num('server_root_ms'),
    network_envelope_ms: num('network_envelope_ms'),
    transport_setup_ms: num('transport_setup_ms'),
    phases: phaseMs,
    unattributed_server_ms: num('unattributed_server_ms'),
    client_ttft_ms: num('client_ttft_ms'),
    server_ttft_ms: num('server_ttft_ms'),
  };
}

function selectionPredicate(selection: TraceSelection, windowSizeMs: number): { sql: string; params: number[] } {
  if (selection.kind === 'window') {
    return { sql: 'offset_ms >= $1::DOUBLE AND offset_ms < $2::DOUBLE', params: [selection.index * windowSizeMs, (selection.index + 1) * windowSizeMs] };
  }
  return { sql: 'network_envelope_ms >= $1::DOUBLE AND network_envelope_ms < $2::DOUBLE', params: [selection.from_ms, selection.to_ms] };
}

export async function listTraces(store: QueryRunner, options: AnalysisOptions, selection: TraceSelection, limit: number): Promise<TraceList> {
  await ensureBreakdown(store, options);
  const phases = phaseColumns(options.phases);
  const where = selectionPredicate(selection, options.windowSizeMs);
  const n = where.params.length;
  const rows = await store.all(
    `SELECT ${FIGURES}${phases.map((p) => `, ${p.column}`).join('')}, count(*) OVER () AS total
     FROM request_breakdown WHERE ${MATCHED_SUCCESS} AND client_total_ms IS NOT NULL AND ${where.sql}
     ORDER BY client_total_ms DESC, row_id LIMIT $${n + 1}`,
    [...where.params, Math.max(0, Math.floor(limit))],
  );
  let total = typeof rows[0]?.total === 'number' ? (rows[0].total as number) : 0;
  if (rows.length === 0) {
    const [c] = await store.all<{ n: number }>(`SELECT count(*) AS n FROM request_breakdown WHERE ${MATCHED_SUCCESS} AND client_total_ms IS NOT NULL AND ${where.sql}`, where.params);
    total = c?.n ?? 0;
  }
  return { traces: rows.map((r) => breakdownOfRow(r, phases)), total };
}
