/**
 * The docs/metrics.md §1 metric tables: decomposition metrics over matched successful requests, client-only
 * figures over all successful client requests (comparable with k6's summary), server-only figures over
 * all roots. Which columns each table lists, and in which order, is the metric catalog's
 * (catalog/metrics.ts). Each table is one SQL pass.
 */
import type { MetricTable, QuantileSummary } from '../../report/model';
import type { Params, QueryRunner } from '../../store/duckStore';
import { metricColumns, POPULATION_RELATION } from '../catalog/metrics';
import { sqlIdentifier } from '../sql/params';
import { CLIENT_SUCCESS, MATCHED_SUCCESS } from './population';
import { computeQuantileTable } from './quantileSql';

export const ENVELOPE_COLUMN = 'network_envelope_ms';

/**
 * TTFB stands in for TTFT only on non-streaming requests (docs/metrics.md §1): k6's http_req_waiting of a
 * streaming request is not the first token, so it is left out of client_ttfb_ms there.
 */
const TTFB_NON_STREAMING = `* REPLACE (CASE WHEN coalesce(is_streaming, false) THEN NULL ELSE client_ttfb_ms END AS client_ttfb_ms)`;

/** Keeps only metrics that have data ("every metric that has data"). */
export function withData(table: MetricTable): MetricTable {
  const out: MetricTable = {};
  for (const [k, v] of Object.entries(table)) if (v.n > 0) out[k] = v;
  return out;
}

export interface PopulationQuery {
  /** Extra trusted predicate (e.g. the steady window) ANDed to the population's. */
  where?: string;
  params?: Params;
  /** Restrict to these metrics (gates need a few, not all). */
  only?: readonly string[];
}

function combine(base: string, extra: string | undefined): string {
  return extra ? `(${base}) AND (${extra})` : base;
}

function pick(wanted: readonly string[], only: readonly string[] | undefined): string[] {
  return wanted.filter((c) => only === undefined || only.includes(c));
}

/** Decomposition metrics over matched successful requests (all columns, n = 0 included). */
export async function computeMatchedTable(store: QueryRunner, phaseColumns: readonly string[], query: PopulationQuery = {}): Promise<MetricTable> {
  return computeQuantileTable(store, {
    table: POPULATION_RELATION.matched,
    projection: TTFB_NON_STREAMING,
    columns: pick(metricColumns('matched', phaseColumns.map((c) => sqlIdentifier(c))), query.only),
    where: combine(MATCHED_SUCCESS, query.where),
    params: query.params,
    envelopeColumn: ENVELOPE_COLUMN,
  });
}

/** Client-only figures over every successful client request, joined or not. */
export async function computeClientTable(store: QueryRunner, query: PopulationQuery = {}): Promise<MetricTable> {
  return computeQuantileTable(store, {
    table: POPULATION_RELATION.client,
    projection: TTFB_NON_STREAMING,
    columns: pick(metricColumns('client', []), query.only),
    where: combine(CLIENT_SUCCESS, query.where),
    params: query.params,
  });
}

/** Server-only figures over every trace with exactly one root. */
export async function computeServerTable(store: QueryRunner, phaseColumns: readonly string[], only?: readonly string[]): Promise<MetricTable> {
  return computeQuantileTable(store, {
    table: POPULATION_RELATION.server,
    columns: pick(metricColumns('server', phaseColumns.map((c) => sqlIdentifier(c))), only),
  });
}

/** Scheduler lag over every started request (a property of the generator, not of the outcome). */
export async function computeStartedLag(store: QueryRunner, query: PopulationQuery = {}): Promise<QuantileSummary | undefined> {
  const table = await computeQuantileTable(store, {
    table: 'request_breakdown',
    columns: ['scheduler_lag_ms'],
    where: query.where,
    params: query.params,
  });
  return table['scheduler_lag_ms'];
}
