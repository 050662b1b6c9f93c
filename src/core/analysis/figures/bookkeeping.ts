/**
 * The report's bookkeeping sections read straight from the loaded tables: input files, load issues
 * (nothing is skipped silently) and k6's own end-of-test summaries (shown beside our figures, never
 * used instead of them).
 */
import type { QueryRunner } from '../../store/duckStore';
import { query } from '../sql/statement';
import { finiteOrNull } from './quantileSql';
import type { K6SummaryComparison, LoadIssue, Report, SourceSummary } from '../../report/model';

/** Examples listed in the report; the rest are counted by code. */
export const MAX_ISSUE_EXAMPLES = 20;

export async function readInputs(store: QueryRunner): Promise<SourceSummary[]> {
  const rows = await query<{ id: number; path: string; format: string; side: string; bytes: unknown; records: unknown; skipped: unknown; position: string | null }>(
    store,
    'inputs',
    'SELECT source_id AS id, path, format, side, bytes, records, skipped, position FROM sources ORDER BY source_id',
  );
  const skips = await query<{ id: number; code: string; unit: string; n: unknown }>(
    store,
    'skips by kind',
    'SELECT source_id AS id, code, any_value(unit) AS unit, sum(count) AS n FROM load_skips GROUP BY source_id, code ORDER BY source_id, code',
  );
  return rows.map((r) => ({
    path: r.path,
    format: r.format,
    side: r.side === 'server' || r.side === 'summary' ? r.side : 'client',
    bytes: finiteOrNull(r.bytes) ?? 0,
    records: finiteOrNull(r.records) ?? 0,
    skipped: finiteOrNull(r.skipped) ?? 0,
    skipped_by_kind: Object.fromEntries(skips.filter((k) => k.id === r.id).map((k) => [k.code, { unit: k.unit, count: finiteOrNull(k.n) ?? 0 }])),
    position: r.position === 'element' ? 'element' : 'line',
  }));
}

export async function readLoadIssues(store: QueryRunner): Promise<Report['load_issues']> {
  const codes = await query<{ code: string | null; n: number }>(
    store,
    'load issue counts',
    'SELECT code, count(*) AS n FROM load_issues GROUP BY code ORDER BY n DESC, code',
  );
  const examples = await query<{ path: string | null; line: unknown; position: string | null; severity: string | null; code: string | null; message: string | null }>(
    store,
    'load issue examples',
    // Errors first: they are what the user has to fix; then in file order.
    `SELECT s.path, i.line, s.position, i.severity, i.code, i.message
     FROM load_issues i LEFT JOIN sources s USING (source_id)
     ORDER BY CASE i.severity WHEN 'error' THEN 0 WHEN 'warning' THEN 1 ELSE 2 END, i.source_id, i.line NULLS LAST
     LIMIT $1`,
    [MAX_ISSUE_EXAMPLES],
  );
  const byCode: Record<string, number> = {};
  let total = 0;
  for (const c of codes) {
    byCode[c.code ?? 'unknown'] = c.n;
    total += c.n;
  }
  return {
    total,
    by_code: byCode,
    examples: examples.map(
      (e): LoadIssue => ({
        path: e.path ?? '(unknown source)',
        line: finiteOrNull(e.line),
        position: e.position === 'element' ? 'element' : 'line',
        severity: e.severity === 'error' || e.severity === 'info' ? e.severity : 'warning',
        code: e.code ?? 'unknown',
        message: e.message ?? '',
      }),
    ),
  };
}

export async function readK6Summaries(store: QueryRunner): Promise<K6SummaryComparison[]> {
  const rows = await query<{ path: string; metric: string; stat: string; value: unknown }>(
    store,
    'k6 summaries',
    `SELECT s.path, k.metric, k.stat, k.value FROM k6_summary k JOIN sources s USING (source_id)
     ORDER BY k.source_id, k.metric, k.stat`,
  );
  const byPath = new Map<string, K6SummaryComparison>();
  for (const r of rows) {
    const value = finiteOrNull(r.value);
    if (value === null) continue;
    let entry = byPath.get(r.path);
    if (!entry) {
      entry = { path: r.path, metrics: {} };
      byPath.set(r.path, entry);
    }
    (entry.metrics[r.metric] ??= {})[r.stat] = value;
  }
  return [...byPath.values()];
}
