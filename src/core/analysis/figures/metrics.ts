/**
 * The DESIGN §1 metric tables: decomposition metrics over matched successful requests, client-only
 * figures over all successful client requests (comparable with k6's summary), server-only figures over
 * all roots. Each table is one SQL pass.
 */
import type { Params, QueryRunner } from '../../store/duckStore';
import { CLIENT_SUCCESS, MATCHED_SUCCESS } from './population';
import { assertIdentifier, computeQuantileTable } from './quantileSql';
import type { MetricTable, QuantileSummary } from '../../report/model';

export const ENVELOPE_COLUMN = 'network_envelope_ms';

/**
 * TTFB stands in for TTFT only on non-streaming requests (DESIGN §1): k6's http_req_waiting of a
 * streaming request is not the first token, so it is left out of client_ttfb_ms there.
 */
const TTFB_NON_STREAMING = `* REPLACE (CASE WHEN coalesce(is_streaming, false) THEN NULL ELSE client_ttfb_ms END AS client_ttfb_ms)`;

/** Matched-success metrics in display order; phase columns go after the envelope. */
export function matchedMetricColumns(phaseColumns: readonly string[]): string[] {
  return [
    'client_total_ms',
    'transport_setup_ms',
    'client_ttft_ms',
    'client_ttfb_ms',
    'server_root_ms',
    ENVELOPE_COLUMN,
    ...phaseColumns.map(assertIdentifier),
    'unattributed_server_ms',
    'server_ttft_ms',
    'ttft_envelope_ms',
    'itl_ms',
    'generation_ms_per_output_token',
    'scheduler_lag_ms',
  ];
}

export const CLIENT_ONLY_COLUMNS: readonly string[] = [
  'client_total_ms',
  'transport_setup_ms',
  'client_ttft_ms',
  'client_ttfb_ms',
  'client_itl_ms',
  'scheduler_lag_ms',
];

export function serverMetricColumns(phaseColumns: readonly string[]): string[] {
  return ['server_root_ms', ...phaseColumns.map(assertIdentifier), 'unattributed_server_ms', 'server_ttft_ms'];
}

/** The breakdown tables' columns, read once per report (they depend on the phase mapping). */
export interface BreakdownColumns {
  request: Set<string>;
  root: Set<string>;
}

export async function readBreakdownColumns(store: QueryRunner): Promise<BreakdownColumns> {
  const rows = await store.all<{ table_name: string; column_name: string }>(
    `SELECT table_name, column_name FROM information_schema.columns
     WHERE table_name IN ('request_breakdown', 'root_breakdown') ORDER BY ordinal_position`,
  );
  const of = (t: string): Set<string> => new Set(rows.filter((r) => r.table_name === t).map((r) => r.column_name));
  return { request: of('request_breakdown'), root: of('root_breakdown') };
}

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

function pick(wanted: readonly string[], present: Set<string>, only: readonly string[] | undefined): string[] {
  return wanted.filter((c) => present.has(c) && (only === undefined || only.includes(c)));
}

function ttfbProjection(present: Set<string>): string | undefined {
  return present.has('client_ttfb_ms') && present.has('is_streaming') ? TTFB_NON_STREAMING : undefined;
}

/** Decomposition metrics over matched successful requests (all columns, n = 0 included). */
export async function computeMatchedTable(
  store: QueryRunner,
  phaseColumns: readonly string[],
  cols: BreakdownColumns,
  query: PopulationQuery = {},
): Promise<MetricTable> {
  return computeQuantileTable(store, {
    table: 'request_breakdown',
    projection: ttfbProjection(cols.request),
    columns: pick(matchedMetricColumns(phaseColumns), cols.request, query.only),
    where: combine(MATCHED_SUCCESS, query.where),
    params: query.params,
    envelopeColumn: ENVELOPE_COLUMN,
  });
}

/** Client-only figures over every successful client request, joined or not. */
export async function computeClientTable(store: QueryRunner, cols: BreakdownColumns, query: PopulationQuery = {}): Promise<MetricTable> {
  return computeQuantileTable(store, {
    table: 'request_breakdown',
    projection: ttfbProjection(cols.request),
    columns: pick(CLIENT_ONLY_COLUMNS, cols.request, query.only),
    where: combine(CLIENT_SUCCESS, query.where),
    params: query.params,
  });
}

/** Server-only figures over every trace with exactly one root. */
export async function computeServerTable(
  store: QueryRunner,
  phaseColumns: readonly string[],
  cols: BreakdownColumns,
  only?: readonly string[],
): Promise<MetricTable> {
  return computeQuantileTable(store, { table: 'root_breakdown', columns: pick(serverMetricColumns(phaseColumns), cols.root, only) });
}

/**
 * Metric columns whose values do not depend on the phase mapping (client figures, the root, the
 * envelope, TTFT/ITL): a phase column can never be one of them (phaseSelect.ts reserves these names),
 * and the phase-dependent ones are the phase columns, unattributed_server_ms and
 * generation_ms_per_output_token. An allow-list, so a new column is phase-dependent until listed.
 */
export const PHASE_INDEPENDENT_COLUMNS: ReadonlySet<string> = new Set([
  'client_total_ms',
  'transport_setup_ms',
  'client_ttft_ms',
  'client_ttfb_ms',
  'server_root_ms',
  ENVELOPE_COLUMN,
  'server_ttft_ms',
  'ttft_envelope_ms',
  'itl_ms',
  'scheduler_lag_ms',
]);

/** Scheduler lag over every started request (a property of the generator, not of the outcome). */
export async function computeStartedLag(store: QueryRunner, cols: BreakdownColumns, query: PopulationQuery = {}): Promise<QuantileSummary | undefined> {
  if (!cols.request.has('scheduler_lag_ms')) return undefined;
  const table = await computeQuantileTable(store, {
    table: 'request_breakdown',
    columns: ['scheduler_lag_ms'],
    where: query.where,
    params: query.params,
  });
  return table['scheduler_lag_ms'];
}
