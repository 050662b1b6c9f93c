/**
 * Per group (route, model, …: the plan of grouping.ts), the sections of the whole run: join, outcome
 * counts, the three metric tables, tail figures and attribution, the user-observed figures, the
 * window series and its diagnoses. Every figure is computed for all groups in one grouped statement
 * (a GROUP BY over the key columns), with the same SQL as the whole run's, so a group's figures are the
 * whole run's figures restricted to its requests.
 */
import type { GroupFigures, GroupOutcomes, MetricTable, PhaseShare, SeriesWindow, TailAttribution, TailFigures, UserObserved } from '../../report/model';
import type { QueryRunner, Row } from '../../store/duckStore';
import { metricColumns } from '../catalog/metrics';
import { diagnose } from '../diagnose/evaluate';
import { cachedFigure, cachedMap, type FigureCache } from '../figures/figureCache';
import { ENVELOPE_COLUMN, withData } from '../figures/metrics';
import { splitEntries, type SplitFigures } from '../figures/splitTable';
import { CLIENT_SUCCESS, MATCHED_SUCCESS } from '../figures/population';
import { finiteOrNull } from '../figures/quantileSql';
import { owners as tailOwners, sessionTailProbability, tailBudget } from '../figures/tail';
import { readUserObserved, userObservedRows, userObservedSelect } from '../observed/userObserved';
import type { AnalysisOptions, GateSpec } from '../options';
import { computeWindowSeries, type SeriesSource } from '../series/windowSeries';
import { seriesReport } from '../series/seriesReport';
import type { WindowSpec } from '../series/windowGrid';
import { SqlParams, sqlIdentifier } from '../sql/params';
import { query } from '../sql/statement';
import { DEFAULT_TOKEN_BANDS, dimensionSql, type DimensionDecl } from './dimensions';
import { computeGroupedTables, keyId, readKey, type GroupKey } from './groupedTables';

/** At most this many groups are listed (the largest); the others are counted in `omitted`. */
export const MAX_GROUPS = 50;

const TTFB_NON_STREAMING = 'CASE WHEN coalesce(is_streaming, false) THEN NULL ELSE client_ttfb_ms END AS client_ttfb_ms';
const OUTCOMES: ReadonlyArray<keyof GroupOutcomes> = ['rejected', 'timed_out', 'transport_failed', 'canceled', 'failed'];

export interface GroupInputs {
  options: AnalysisOptions;
  gates: readonly GateSpec[];
  phaseColumns: readonly string[];
  dims: readonly DimensionDecl[];
  spec: WindowSpec;
  /** Where the group figures are kept between analyses (figures/figureCache.ts); without it they are computed. */
  cache?: FigureCache;
}

export interface GroupResult {
  groups: GroupFigures[];
  omitted: { groups: number; calls: number };
}

/** The group key columns (`gk_0`, …) over request_groups, their band parameters bound into `params`. */
function keyColumns(dims: readonly DimensionDecl[], options: AnalysisOptions, params: SqlParams, alias = 'r'): string {
  return dims.map((d, i) => `${dimensionSql(d, alias, options.tokenBands ?? DEFAULT_TOKEN_BANDS, params)} AS gk_${i}`).join(', ');
}

export async function computeGroupFigures(store: QueryRunner, input: GroupInputs): Promise<GroupResult> {
  if (input.dims.length === 0) return { groups: [], omitted: { groups: 0, calls: 0 } };
  const keys = input.dims.map((_, i) => `gk_${i}`);
  const keyList = keys.join(', ');
  const rows = (projection = '*'): ((params: SqlParams) => string) => (params) =>
    `(SELECT ${projection}, ${keyColumns(input.dims, input.options, params)} FROM request_groups r) g`;

  // Each figure is cached under the dimensions (and what else it reads: columns, budget, window grid),
  // so a re-analysis recomputes only what its options changed.
  const cache = input.cache;
  const dimsDetail = input.dims.map((d) => d.name);
  const counts = await cachedFigure(cache, 'group_counts', () => countGroups(store, rows(), keys), dimsDetail);
  const listed = counts.slice(0, MAX_GROUPS);
  const omitted = counts.slice(MAX_GROUPS);
  const phaseColumns = input.phaseColumns.map((c) => sqlIdentifier(c));

  const tables = async (figures: SplitFigures, columns: readonly string[], compute: (only: readonly string[]) => Promise<Map<string, MetricTable>>): Promise<Map<string, MetricTable>> => {
    if (!cache) return compute(columns);
    return new Map(await splitEntries(cache, figures, columns, async (only) => [...(await compute(only ?? columns)).entries()], dimsDetail));
  };
  const grouped = (population: 'matched' | 'client', where: string) => async (only: readonly string[]): Promise<Map<string, MetricTable>> => {
    const params = new SqlParams();
    return computeGroupedTables(store, {
      from: rows(`* REPLACE (${TTFB_NON_STREAMING})`)(params),
      keys,
      columns: only,
      where,
      params: params.values,
      envelopeColumn: population === 'matched' ? ENVELOPE_COLUMN : undefined,
    });
  };
  const matched = await tables({ independent: 'group_matched_metrics', dependent: 'group_matched_phase_metrics' }, metricColumns('matched', phaseColumns), grouped('matched', MATCHED_SUCCESS));
  // The client-only table has no phase column: one part, kept across mappings.
  const client = await tables({ independent: 'group_client_metrics', dependent: 'group_client_metrics' }, metricColumns('client', phaseColumns), grouped('client', CLIENT_SUCCESS));
  const server = await tables({ independent: 'group_server_metrics', dependent: 'group_server_phase_metrics' }, metricColumns('server', phaseColumns), (only) => {
    const serverParams = new SqlParams();
    return computeGroupedTables(store, {
      from: `(SELECT rb.*, ${keys.map((k) => `g.${k}`).join(', ')} FROM root_breakdown rb
              JOIN (SELECT dim_root_node_id, ${keyColumns(input.dims, input.options, serverParams)} FROM request_groups r WHERE dim_root_node_id IS NOT NULL) g
              ON g.dim_root_node_id = rb.root_node_id) s`,
      keys,
      columns: only,
      params: serverParams.values,
    });
  });
  const budget = tailBudget(input.options, input.gates);
  const tails = await cachedMap(cache, 'group_tails', () => groupTails(store, input, rows(), keys, phaseColumns, matched), [
    ...dimsDetail,
    `budget ${budget}`,
    `calls per session ${input.options.callsPerSession ?? null}`,
  ]);
  const observed = await cachedMap(cache, 'group_user_observed', () => groupUserObserved(store, input, rows(), keyList, keys), dimsDetail);
  const source: SeriesSource = { from: rows(), keys };
  const series = await cachedMap(cache, 'group_series', () => computeWindowSeries(store, input.spec, phaseColumns, source), [...dimsDetail, JSON.stringify(input.spec)]);

  const floor = input.options.minGroupSize ?? 200;
  const groups = listed.map((c): GroupFigures => {
    const id = keyId(c.key);
    const metrics = withData(matched.get(id) ?? {});
    const windows: SeriesWindow[] = series.get(id) ?? [];
    const found = diagnose(windows, input.spec.kind === 'stages' ? 'stages' : 'windows');
    const tail = tails.get(id) ?? { tail: emptyTail(input.options, input.gates), attribution: emptyAttribution() };
    return {
      key: input.dims.map((d, i) => `${d.name}=${c.key[i] ?? '(none)'}`).join(', '),
      dimensions: Object.fromEntries(input.dims.map((d, i) => [d.name, c.key[i]])),
      successes: c.outcomes.succeeded,
      too_small: c.outcomes.succeeded < floor,
      join: { client_requests: c.outcomes.started, matched: c.matched, coverage: c.outcomes.started > 0 ? c.matched / c.outcomes.started : null },
      metrics,
      client_only: withData(client.get(id) ?? {}),
      server_only: withData(server.get(id) ?? {}),
      outcomes: c.outcomes,
      tail: tail.tail,
      tail_attribution: tail.attribution,
      user_observed: observed.get(id) ?? readUserObserved(undefined, input.options.timeoutMs ?? null),
      window_series: seriesReport(input.spec, windows, input.gates, phaseColumns),
      diagnoses: found.diagnoses,
      diagnosis_status: found.status,
    };
  });
  return { groups, omitted: { groups: omitted.length, calls: omitted.reduce((a, c) => a + c.outcomes.started, 0) } };
}

interface GroupCount {
  key: GroupKey;
  outcomes: GroupOutcomes;
  matched: number;
}

/** Outcome counts per group, largest group first (then by key). */
async function countGroups(store: QueryRunner, rows: (params: SqlParams) => string, keys: readonly string[]): Promise<GroupCount[]> {
  const params = new SqlParams();
  const list = keys.join(', ');
  const result = await query(
    store,
    'group counts',
    `SELECT ${list}, count(*) AS started, count(*) FILTER (WHERE succeeded) AS succeeded, count(*) FILTER (WHERE matched) AS matched,
            ${OUTCOMES.map((o) => `count(*) FILTER (WHERE outcome = '${o}') AS ${o}`).join(', ')}
     FROM ${rows(params)} GROUP BY ${list}`,
    params.values,
  );
  const count = (v: unknown): number => finiteOrNull(v) ?? 0;
  const out = result.map((r): GroupCount => {
    const started = count(r.started);
    const outcomes = { started, succeeded: count(r.succeeded) } as GroupOutcomes;
    for (const o of OUTCOMES) (outcomes as unknown as Record<string, number>)[o] = count(r[o]);
    outcomes.error_rate = started > 0 ? (started - outcomes.succeeded) / started : null;
    return { key: readKey(r, keys), outcomes, matched: count(r.matched) };
  });
  return out.sort((a, b) => b.outcomes.started - a.outcomes.started || keyId(a.key).localeCompare(keyId(b.key)));
}

function emptyTail(options: AnalysisOptions, gates: readonly GateSpec[]): TailFigures {
  const k = options.callsPerSession !== undefined && Number.isFinite(options.callsPerSession) ? options.callsPerSession : null;
  return { tail_ratio: null, budget_ms: tailBudget(options, gates), tail_share: null, calls_per_session: k, session_tail_probability: null };
}

function emptyAttribution(): TailAttribution {
  return { threshold_ms: null, n: 0, mean_client_total_ms: null, phases: [] };
}

/**
 * Tail figures per group, as figures/tail.ts computes them for the whole run: the threshold is the
 * group's client_total_ms p95 over matched successes (the same quantile_cont its metric table holds).
 */
async function groupTails(
  store: QueryRunner,
  input: GroupInputs,
  rows: (params: SqlParams) => string,
  keys: readonly string[],
  phaseColumns: readonly string[],
  matched: Map<string, MetricTable>,
): Promise<Map<string, { tail: TailFigures; attribution: TailAttribution }>> {
  const params = new SqlParams();
  const budget = tailBudget(input.options, input.gates);
  const b = params.bind(budget);
  const list = keys.join(', ');
  const owners = tailOwners(phaseColumns);
  const inTail = 'client_total_ms > thr';
  const means = owners.map((o, i) => `avg("${o.column}") FILTER (WHERE ${inTail}) AS m${i}`).join(', ');
  const result = await query(
    store,
    'group tails',
    `SELECT ${list}, count(*) FILTER (WHERE client_total_ms > ${b}::DOUBLE) AS above_budget, count(*) FILTER (WHERE ${inTail}) AS tail_n,
            avg(client_total_ms) FILTER (WHERE ${inTail}) AS tail_total, ${means}
     FROM (SELECT *, quantile_cont(client_total_ms, 0.95) OVER (PARTITION BY ${list}) AS thr
           FROM ${rows(params)} WHERE ${MATCHED_SUCCESS} AND isfinite(client_total_ms))
     GROUP BY ${list}`,
    params.values,
  );
  const k = input.options.callsPerSession !== undefined && Number.isFinite(input.options.callsPerSession) ? input.options.callsPerSession : null;
  const out = new Map<string, { tail: TailFigures; attribution: TailAttribution }>();
  for (const r of result) {
    const id = keyId(readKey(r, keys));
    const total = matched.get(id)?.client_total_ms;
    const n = total?.n ?? 0;
    const p50 = n > 0 ? (total?.p50 ?? null) : null;
    const threshold = n > 0 ? (total?.p95 ?? null) : null;
    const share = budget !== null && n > 0 ? (finiteOrNull(r.above_budget) ?? 0) / n : null;
    const tailN = threshold !== null ? (finiteOrNull(r.tail_n) ?? 0) : 0;
    const tailTotal = tailN > 0 ? finiteOrNull(r.tail_total) : null;
    const phases: PhaseShare[] = [];
    if (tailTotal !== null) {
      owners.forEach((o, i) => {
        const mean = finiteOrNull((r as Row)[`m${i}`]);
        if (mean !== null) phases.push({ phase: o.phase, mean_ms: mean, share: tailTotal !== 0 ? mean / tailTotal : 0 });
      });
    }
    out.set(id, {
      tail: {
        tail_ratio: p50 !== null && threshold !== null && p50 > 0 ? threshold / p50 : null,
        budget_ms: budget,
        tail_share: share,
        calls_per_session: k,
        session_tail_probability: sessionTailProbability(share, k),
      },
      attribution: { threshold_ms: threshold, n: tailN, mean_client_total_ms: tailTotal, phases },
    });
  }
  return out;
}

async function groupUserObserved(
  store: QueryRunner,
  input: GroupInputs,
  rows: (params: SqlParams) => string,
  keyList: string,
  keys: readonly string[],
): Promise<Map<string, UserObserved>> {
  const params = new SqlParams();
  const timeout = input.options.timeoutMs ?? null;
  const t = params.bind(timeout);
  const result = await query(
    store,
    'group user-observed figures',
    `SELECT ${keyList}, ${userObservedSelect(t)} FROM (${userObservedRows(rows(params), t, `${keyList}, `)}) u GROUP BY ${keyList}`,
    params.values,
  );
  return new Map(result.map((r) => [keyId(readKey(r, keys)), readUserObserved(r, timeout)]));
}
