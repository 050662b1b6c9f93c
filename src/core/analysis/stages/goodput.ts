/**
 * Successes that ended in each stage (send + client total inside it), the throughput the knee reads:
 * a queue that absorbs the excess keeps the successes by send time in step with the starts, while the
 * successes by end time stop at what the system can serve. One statement over the stage grid of the
 * window series (series/windowGrid.ts).
 */
import type { QueryRunner } from '../../store/duckStore';
import type { StageWindow } from '../options';
import { SqlParams } from '../sql/params';
import { query } from '../sql/statement';
import { windowsAtSql } from '../series/windowGrid';

/** Stage index → successes that ended in it. */
export async function successesEndedByStage(store: QueryRunner, stages: readonly StageWindow[]): Promise<Map<number, number>> {
  const params = new SqlParams();
  const at = windowsAtSql({ kind: 'stages', stages }, 'offset_ms + client_total_ms', params);
  const rows = await query<{ idx: number | bigint; n: number | bigint }>(
    store,
    'stage successes by end time',
    `SELECT idx, count(*) AS n
     FROM (SELECT unnest(${at}) AS idx FROM request_breakdown WHERE succeeded AND isfinite(offset_ms + client_total_ms))
     GROUP BY idx`,
    params.values,
  );
  return new Map(rows.map((r) => [Number(r.idx), Number(r.n)]));
}
