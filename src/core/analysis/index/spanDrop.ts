import type { QueryRunner } from '../../store/duckStore';
import { exec, query } from '../sql/statement';

/** SQL boolean over spans: the row has both IDs (only such spans take part in a tree). */
export const HAS_IDS_SQL = `trace_id IS NOT NULL AND trace_id <> '' AND span_id IS NOT NULL AND span_id <> ''`;

/**
 * `span_drop`: the later loaded copies of a (trace_id, span_id), each with the kept copy (lowest
 * rowid); returns how many. Duplicates are rare: a hash aggregate over the 64-bit hash of the two IDs
 * finds the candidate keys cheaply (no strings in its hash table), and only rows with a candidate hash
 * are compared by their real IDs, so a hash collision costs a little time, never a wrong result. Every
 * other span with IDs is kept as itself (node_id = spans.rowid), so the wide spans table is never joined
 * back by rowid to build the index.
 */
export async function buildSpanDrop(store: QueryRunner): Promise<number> {
  await exec(
    store,
    'span_dup_hash',
    `CREATE OR REPLACE TEMP TABLE span_dup_hash AS
     SELECT hash(trace_id, span_id) AS h FROM spans WHERE ${HAS_IDS_SQL} GROUP BY 1 HAVING count(*) > 1`,
  );
  const [{ n }] = await query<{ n: number }>(store, 'duplicate span hashes', 'SELECT count(*) AS n FROM span_dup_hash');
  await exec(
    store,
    'span_drop',
    `CREATE OR REPLACE TEMP TABLE span_drop AS
     SELECT node_id, keep_node FROM (
       SELECT rowid AS node_id, min(rowid) OVER (PARTITION BY trace_id, span_id) AS keep_node
       FROM spans WHERE ${n > 0 ? HAS_IDS_SQL : 'false'} AND hash(trace_id, span_id) IN (SELECT h FROM span_dup_hash)
     ) WHERE node_id <> keep_node`,
  );
  const [{ dropped }] = await query<{ dropped: number }>(store, 'duplicate spans', 'SELECT count(*) AS dropped FROM span_drop');
  return dropped;
}
