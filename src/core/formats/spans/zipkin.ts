/**
 * Zipkin v2 JSON reader (docs/metrics.md §3.2): an array of spans (POST /api/v2/spans, UI download), or the
 * query API's array of traces `[[span…], …]`. Times are microseconds; shorter hex IDs (64-bit trace IDs) are
 * left-padded to 32 hex digits so they join a W3C traceparent.
 *
 * Decisions an SRE would expect from Zipkin data:
 * - B3 "shared" spans: the client and the server half carry the same span ID. Both are kept (they
 *   are different observers' durations); finishSpans reports the shared IDs. Only exact repeats are
 *   dropped as duplicates.
 * - A row without a timestamp that is a piece of a span reported in parts is merged into the timed
 *   row of its span ID (zipkinMerge.ts, as Zipkin's UI does). A span without `duration` (still in
 *   flight when reported) or an unmatched piece is kept with its missing times NULL, never guessed;
 *   finishSpans counts them in a 'missing-time' warning. Dropping them would orphan their children.
 * - No `kind` means a local span in Zipkin; it is stored UNSPECIFIED like any span of unknown kind.
 * - status: `error` tag present (any value) → ERROR, as Zipkin's UI reads it; `otel.status_code` too.
 * - `line` is the span's 1-based element index in the file (across traces for `[[…]]`).
 */
import { InputError } from '../../errors';
import { compressionOf } from '../input/ndjsonLines';
import { asInputError, maxDocumentBytes } from './spanDocument';
import { createSpanStage, finishSpans, MARKED_LINE_SQL, takeMalformedElements } from './spanStage';
import { kindSql, microsToNanosSql, normalizeIdSql, tagStatusSql } from './spanSql';
import { mergeZipkinFragments } from './zipkinMerge';
import type { ReaderContext, ReaderResult } from '../types';

const SPAN_SHAPE =
  `{"traceId":"VARCHAR","id":"VARCHAR","parentId":"VARCHAR","kind":"VARCHAR","name":"VARCHAR",` +
  `"timestamp":"BIGINT","duration":"BIGINT","localEndpoint":{"serviceName":"VARCHAR"},` +
  `"tags":"MAP(VARCHAR, VARCHAR)","annotations":[{"timestamp":"BIGINT","value":"VARCHAR"}]}`;

/** $1 path, $2 compression, $3 maximum_object_size, $4 span shape. */
const STAGE_SQL = `
  WITH elems AS (
    SELECT row_number() OVER () AS elem_no, json AS e
    FROM read_json_objects($1, format = 'array', compression = $2, maximum_object_size = $3)),
  flat AS (
    SELECT elem_no, unnest(CASE WHEN json_type(e) = 'ARRAY' THEN json_extract(e, '$[*]') ELSE [e] END) AS sp_json FROM elems),
  sp AS (
    SELECT row_number() OVER () AS line, json_type(sp_json) = 'OBJECT' AS is_span, json_transform(sp_json, $4) AS s FROM flat),
  t AS (
    SELECT line, is_span, s, s.traceId AS tid, s.id AS sid, s.parentId AS pid, coalesce(s.tags, MAP {}) AS tags,
           ${microsToNanosSql('s.timestamp')} AS start_ns
    FROM sp)
  SELECT ${MARKED_LINE_SQL}, ${normalizeIdSql('tid', 16, 'left-pad')}, ${normalizeIdSql('sid', 8, 'left-pad')}, ${normalizeIdSql('pid', 8, 'left-pad')},
         s.name, ${kindSql('s.kind')}, s.localEndpoint.serviceName,
         start_ns, start_ns + ${microsToNanosSql('s.duration')},
         ${tagStatusSql('tags', true)}, tags,
         list_transform(coalesce(s.annotations, []), lambda a: {name: a.value, time_ns: ${microsToNanosSql('a.timestamp')}}),
         NULL, NULL
  FROM t`;

export async function readZipkin(ctx: ReaderContext): Promise<ReaderResult> {
  const stage = 'zipkin_stage';
  await createSpanStage(ctx, stage);
  try {
    await ctx.store.run(`INSERT INTO ${stage} ${STAGE_SQL}`, [ctx.path, compressionOf(ctx), await maxDocumentBytes(ctx), SPAN_SHAPE]);
  } catch (err) {
    await ctx.store.run(`DROP TABLE ${stage}`);
    throw await asInputError(err, ctx.path, ctx.sniff.gzip, 'a complete Zipkin v2 JSON array of spans');
  }
  const [{ n }] = await ctx.store.all<{ n: number }>(`SELECT count(*) AS n FROM ${stage} WHERE line > 0`);
  if (n === 0) {
    await ctx.store.run(`DROP TABLE ${stage}`);
    throw new InputError(ctx.path, 1, 'a Zipkin v2 JSON array of spans', 'an empty array, or no span objects in it');
  }
  const malformed = await takeMalformedElements(ctx, stage, 'a Zipkin span object');
  const merged = await mergeZipkinFragments(ctx, stage);
  const result = await finishSpans(ctx, stage, { dedupe: 'exact', sourceUnit: 'µs' });
  return { records: result.records, skipped: result.skipped + malformed + merged };
}
