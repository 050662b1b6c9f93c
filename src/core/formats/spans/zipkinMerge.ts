/**
 * Zipkin spans sent in pieces: a reporter may send one span ID several times, the later pieces
 * carrying only what it learned late (annotations, tags, a name) and no timestamp. Zipkin's UI merges
 * such a piece into the row of the same span ID it belongs to (zipkin-lens span-cleaner mergeV2ById:
 * same shared flag, no conflicting local endpoint); drawn alone it would sit at the trace's start
 * with a made-up 0 ms. Here a staged row without a timestamp is merged into the timed row of the same
 * trace and span ID whose service does not conflict with it and whose kind equals its own (or it has
 * none): name, parent and service fill what the timed row lacks, tags are added (the timed row's win
 * a conflict), annotations are added, an error marks the span. A piece that matches no timed row is
 * kept as it is, without a time (never guessed).
 */
import type { ReaderContext } from '../types';
import { recordSkips } from '../skips';

/** Merges the untimed pieces of `stage` into their timed rows; returns how many pieces were merged. */
export async function mergeZipkinFragments(ctx: ReaderContext, stage: string): Promise<number> {
  const [{ n }] = await ctx.store.all<{ n: number }>(`SELECT count(*) AS n FROM ${stage} WHERE start_ns IS NULL AND trace_id IS NOT NULL AND span_id IS NOT NULL`);
  if (n === 0) return 0;
  let merged = 0;
  let first: number | null = null;
  // One piece per timed row per round (an UPDATE takes one source row per target); a span sent in
  // more than two pieces takes more rounds.
  for (;;) {
    await ctx.store.run(
      `CREATE OR REPLACE TEMP TABLE zipkin_pieces AS
       SELECT t.line AS target, f.line AS piece, f.name, f.parent_span_id, f.service, f.status, f.attributes, f.events
       FROM ${stage} f JOIN ${stage} t
         ON t.trace_id = f.trace_id AND t.span_id = f.span_id AND t.start_ns IS NOT NULL
        AND (f.service IS NULL OR t.service IS NULL OR f.service = t.service)
        AND (f.kind = 'UNSPECIFIED' OR f.kind = t.kind)
       WHERE f.start_ns IS NULL AND f.end_ns IS NULL
       QUALIFY row_number() OVER (PARTITION BY f.line ORDER BY t.line) = 1
           AND row_number() OVER (PARTITION BY t.line ORDER BY f.line) = 1`,
    );
    const [{ k, low }] = await ctx.store.all<{ k: number; low: number | null }>('SELECT count(*) AS k, min(piece) AS low FROM zipkin_pieces');
    if (k === 0) break;
    first = first === null ? low : Math.min(first, low ?? first);
    await ctx.store.run(
      `UPDATE ${stage} t SET
         name = coalesce(nullif(t.name, ''), p.name),
         parent_span_id = coalesce(t.parent_span_id, p.parent_span_id),
         service = coalesce(t.service, p.service),
         status = CASE WHEN p.status = 'ERROR' THEN 'ERROR' ELSE t.status END,
         attributes = map_concat(coalesce(p.attributes, MAP {}), coalesce(t.attributes, MAP {})),
         events = list_sort(list_distinct(list_concat(coalesce(t.events, []), coalesce(p.events, []))))
       FROM zipkin_pieces p WHERE t.line = p.target`,
    );
    await ctx.store.run(`DELETE FROM ${stage} WHERE line IN (SELECT piece FROM zipkin_pieces)`);
    merged += k;
  }
  await ctx.store.run('DROP TABLE IF EXISTS zipkin_pieces');
  if (merged > 0) {
    await ctx.store.run('INSERT INTO load_issues VALUES ($1, $2, $3, $4, $5)', [
      ctx.sourceId,
      first,
      'info',
      'merged-span-piece',
      `${merged} span row(s) without a timestamp merged into the timed row of the same span ID and service (a span reported in pieces; first at element ${first}), as Zipkin's UI merges them`,
    ]);
    await recordSkips(ctx.store, ctx.sourceId, 'merged-span-piece', merged);
  }
  return merged;
}
