/**
 * k6 end-of-test summaries, both layouts, into k6_summary (long format: metric, stat, value):
 * - handleSummary JSON: `metrics.M = {type, contains, values: {avg, med, "p(95)", …}, thresholds: {expr: {ok}}}`;
 * - legacy `--summary-export`: `metrics.M = {avg, med, "p(95)", …, thresholds: {expr: failed}}` (flat;
 *   p(99) is usually missing because it was not in summaryTrendStats).
 * Threshold results are kept as stat `threshold_ok:<expression>` with value 1 (passed) or 0 (failed).
 * In the legacy layout the boolean is k6's "failed" flag, so it is negated.
 * These are aggregates only: shown beside Phasewise's own figures, never used in place of them.
 */
import { InputError } from '../../errors';
import { compressionOf } from '../input/ndjsonLines';
import { asInputError } from '../spans/spanDocument';
import type { ReaderContext, ReaderResult } from '../types';

const INSERT_SQL = `
INSERT INTO k6_summary
WITH d AS (SELECT json AS doc FROM read_json_objects($1, format = 'unstructured', compression = $2)),
m AS (SELECT m.key AS metric, m.value AS mv, json_type(m.value, '$.values') = 'OBJECT' AS nested
      FROM d, json_each(d.doc, '$.metrics') m)
SELECT $3, metric, s.key, CAST(s.value AS DOUBLE)
FROM m, json_each(CASE WHEN nested THEN mv->'$.values' ELSE mv END) s
WHERE s.type IN ('UBIGINT', 'BIGINT', 'DOUBLE')
UNION ALL
SELECT $3, metric, 'threshold_ok:' || t.key,
       CASE WHEN t.type = 'OBJECT' THEN CAST(CAST(t.value->>'$.ok' AS BOOLEAN) AS DOUBLE)
            WHEN t.type = 'BOOLEAN' THEN CAST(NOT CAST(t.value AS BOOLEAN) AS DOUBLE) END
FROM m, json_each(mv->'$.thresholds') t`;

export async function readK6Summary(ctx: ReaderContext): Promise<ReaderResult> {
  const { store, sourceId } = ctx;
  try {
    await store.run(INSERT_SQL, [ctx.path, compressionOf(ctx), sourceId]);
  } catch (err) {
    throw await asInputError(err, ctx.path, ctx.sniff.gzip, 'a complete k6 summary JSON document');
  }
  const [{ n, metrics }] = await store.all<{ n: number; metrics: number }>(
    'SELECT count(*) AS n, count(DISTINCT metric) AS metrics FROM k6_summary WHERE source_id = $1',
    [sourceId],
  );
  if (n === 0) {
    throw new InputError(ctx.path, undefined, 'a k6 summary with numeric stats under "metrics"', 'no metric values');
  }
  // The legacy export usually stops at p(95): say so, so nobody reads a missing p(99) as zero.
  const [{ without_p99 }] = await store.all<{ without_p99: number }>(
    `SELECT count(DISTINCT metric) AS without_p99 FROM k6_summary s WHERE source_id = $1 AND stat = 'p(95)'
       AND NOT EXISTS (SELECT 1 FROM k6_summary t WHERE t.source_id = $1 AND t.metric = s.metric AND t.stat = 'p(99)')`,
    [sourceId],
  );
  if (without_p99 > 0) {
    await store.run(`INSERT INTO load_issues VALUES ($1, NULL, 'info', 'missing-stat', $2)`, [
      sourceId,
      `${without_p99} trend metric(s) in this summary have p(95) but no p(99) (k6 summaryTrendStats)`,
    ]);
  }
  ctx.progress?.(`k6 summary: ${metrics} metrics`);
  return { records: n, skipped: 0 };
}
