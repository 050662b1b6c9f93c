/**
 * The slowest matched successes of a loaded run, ordered by the figure the user asks for (client
 * total, network envelope, a phase, or the unattributed server time), and each trace's dominant owner.
 * The editor's Slow Traces view lists them; re-ordering is one query on request_breakdown.
 */
import type { QueryRunner } from '../../store/duckStore';
import { ensureBreakdown } from '../breakdown/pipeline';
import type { AnalysisOptions } from '../options';
import { phaseColumns } from '../breakdown/phaseSelect';
import { MATCHED_SUCCESS } from '../figures/population';
import type { TraceBreakdown } from '../../report/model';
import { breakdownOfRow } from './traceList';

/** `client_total`, `network_envelope`, `unattributed_server`, or the name of one of the run's phases. */
export type SlowTraceOrder = string;

export const FIXED_ORDERS = ['client_total', 'network_envelope', 'unattributed_server'] as const;

/** The request_breakdown column an order sorts by; undefined when it names no figure of these options. */
export function orderColumn(order: SlowTraceOrder, options: AnalysisOptions): string | undefined {
  if ((FIXED_ORDERS as readonly string[]).includes(order)) return `${order}_ms`;
  return phaseColumns(options.phases).find((p) => p.name === order)?.column;
}

export interface OrderedSlowTraces {
  traces: TraceBreakdown[];
  /** Matched successes with the ordering figure known (the population the list is the top of). */
  total: number;
}

/**
 * The `limit` matched successes with the largest value of the order's figure (ties by client total,
 * then by row order, so the list is stable). Requests whose figure is unknown are not listed.
 */
export async function slowTracesBy(store: QueryRunner, options: AnalysisOptions, order: SlowTraceOrder, limit: number): Promise<OrderedSlowTraces> {
  const column = orderColumn(order, options);
  if (column === undefined) throw new Error(`no figure '${order}' to order by (known: ${[...FIXED_ORDERS, ...options.phases.map((p) => p.name)].join(', ')})`);
  await ensureBreakdown(store, options);
  const phases = phaseColumns(options.phases);
  // `column` is one of the fixed names above or a phase column validated by phaseColumns: never user text.
  const rows = await store.all(
    `SELECT trace_id, outcome, start_ms, client_total_ms, server_root_ms, network_envelope_ms, transport_setup_ms,
            unattributed_server_ms, client_ttft_ms, server_ttft_ms${phases.map((p) => `, ${p.column}`).join('')},
            count(*) OVER () AS total
     FROM request_breakdown
     WHERE ${MATCHED_SUCCESS} AND client_total_ms IS NOT NULL AND isfinite(${column})
     ORDER BY ${column} DESC, client_total_ms DESC, row_id LIMIT $1`,
    [Math.max(0, Math.floor(limit))],
  );
  const total = typeof rows[0]?.total === 'number' ? (rows[0].total as number) : 0;
  return { traces: rows.map((r) => breakdownOfRow(r, phases)), total };
}

/** The owner of the largest share of a trace's client total, with its milliseconds. */
export interface DominantOwner {
  /** `network_envelope`, a phase name, or `unattributed_server`. */
  owner: string;
  ms: number;
  /** ms / client_total_ms (null without a client total). */
  share: number | null;
}

/**
 * Who owns most of this request: the largest of the envelope, each phase and the unattributed time.
 * A negative envelope owns nothing. Undefined when no owner has a positive figure.
 */
export function dominantOwner(t: TraceBreakdown, phaseNames: readonly string[]): DominantOwner | undefined {
  const candidates: [string, number | null | undefined][] = [
    ['network_envelope', t.network_envelope_ms],
    ...phaseNames.map((p): [string, number | undefined] => [p, t.phases[`${p}_ms`]]),
    ['unattributed_server', t.unattributed_server_ms],
  ];
  let best: DominantOwner | undefined;
  for (const [owner, ms] of candidates) {
    if (typeof ms !== 'number' || !Number.isFinite(ms) || ms <= 0) continue;
    if (best === undefined || ms > best.ms) best = { owner, ms, share: null };
  }
  if (best !== undefined && t.client_total_ms !== null && t.client_total_ms > 0) best.share = best.ms / t.client_total_ms;
  return best;
}
