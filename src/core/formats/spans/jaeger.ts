/**
 * Jaeger JSON reader (docs/metrics.md §3.2): the query API / UI download `{"data":[trace…]}`, a bare trace
 * object `{traceID, spans, processes}`, and the UI's redux wrapper `{"data":{traceID, spans, …}}`.
 * Times are microseconds. Each span is parsed once by json_transform into a narrow struct.
 *
 * Mapping choices (an SRE would expect the Jaeger UI's reading):
 * - parent: the first CHILD_OF reference, else the legacy `parentSpanID` field, else a FOLLOWS_FROM
 *   reference (the UI also draws FOLLOWS_FROM as the parent when it is the only reference), marked
 *   `follows_from`: asynchronous work, never on its parent's critical path (docs/metrics.md §3.4);
 * - kind: tag `span.kind`; status: tag `otel.status_code`, or `error` = true;
 * - service: processes[processID].serviceName, else the span's embedded `process` (UI exports);
 * - logs become span_events named by their `event` field, else `message`, else 'log' (kept, not dropped);
 * - `line` is the span's 1-based position in the file's span arrays, in file order.
 */
import { InputError } from '../../errors';
import { compressionOf } from '../input/ndjsonLines';
import { asInputError, maxDocumentBytes } from './spanDocument';
import { createSpanStage, finishSpans, MARKED_LINE_SQL, takeMalformedElements } from './spanStage';
import { kindSql, microsToNanosSql, normalizeIdSql, tagStatusSql } from './spanSql';
import type { ReaderContext, ReaderResult } from '../types';

const KEY_VALUE = `[{"key":"VARCHAR","value":"VARCHAR"}]`;
const SPAN_SHAPE =
  `{"traceID":"VARCHAR","spanID":"VARCHAR","parentSpanID":"VARCHAR","operationName":"VARCHAR",` +
  `"references":[{"refType":"VARCHAR","spanID":"VARCHAR"}],"startTime":"BIGINT","duration":"BIGINT",` +
  `"tags":${KEY_VALUE},"logs":[{"timestamp":"BIGINT","fields":${KEY_VALUE}}],"processID":"VARCHAR",` +
  `"process":{"serviceName":"VARCHAR"}}`;
const PROCESSES_SHAPE = `"MAP(VARCHAR, STRUCT(serviceName VARCHAR))"`;

/** $1 path, $2 compression, $3 maximum_object_size, $4 span shape, $5 processes shape. */
const STAGE_SQL = `
  WITH docs AS (
    SELECT row_number() OVER () AS doc_no, json AS doc
    FROM read_json_objects($1, format = 'auto', compression = $2, maximum_object_size = $3)),
  traces AS (
    SELECT doc_no, unnest(CASE json_type(doc, '$.data')
                            WHEN 'ARRAY' THEN json_extract(doc, '$.data[*]')
                            WHEN 'OBJECT' THEN [json_extract(doc, '$.data')]
                            ELSE [doc] END) AS t
    FROM docs),
  numbered AS (SELECT row_number() OVER () AS trace_no, t FROM traces),
  lists AS (
    SELECT trace_no, json_transform(t->'processes', $5) AS processes,
           -- A trace that is not an object, or whose spans are not a list, stands as one non-span element.
           CASE WHEN json_type(t) = 'OBJECT' AND json_type(t, '$.spans') = 'ARRAY' THEN json_extract(t, '$.spans[*]') ELSE ['null'::JSON] END AS spans
    FROM numbered),
  spans_raw AS (
    SELECT trace_no, processes, unnest(spans) AS sp_json, generate_subscripts(spans, 1) AS idx FROM lists),
  sp AS (
    SELECT row_number() OVER (ORDER BY trace_no, idx) AS line, processes, json_type(sp_json) = 'OBJECT' AS is_span, json_transform(sp_json, $4) AS s
    FROM spans_raw),
  t AS (
    SELECT line, is_span, s, processes[s.processID].serviceName AS proc_service,
           map_from_entries(list_transform(coalesce(s.tags, []), lambda kv: {k: kv.key, v: kv.value})) AS tags,
           coalesce(list_filter(s.references, lambda r: upper(r.refType) = 'CHILD_OF')[1].spanID,
                    nullif(s.parentSpanID, ''),
                    list_filter(s.references, lambda r: upper(r.refType) = 'FOLLOWS_FROM')[1].spanID) AS pid,
           -- The parent is a FOLLOWS_FROM reference (no CHILD_OF, no parentSpanID): asynchronous work.
           CASE WHEN len(list_filter(s.references, lambda r: upper(r.refType) = 'CHILD_OF')) = 0 AND nullif(s.parentSpanID, '') IS NULL
                     AND len(list_filter(s.references, lambda r: upper(r.refType) = 'FOLLOWS_FROM')) > 0 THEN true END AS follows_from,
           s.traceID AS tid, s.spanID AS sid, ${microsToNanosSql('s.startTime')} AS start_ns
    FROM sp)
  SELECT ${MARKED_LINE_SQL}, ${normalizeIdSql('tid', 16, 'left-pad')}, ${normalizeIdSql('sid', 8, 'left-pad')}, ${normalizeIdSql('pid', 8, 'left-pad')},
         s.operationName, ${kindSql("tags['span.kind']")}, coalesce(proc_service, s.process.serviceName),
         start_ns, start_ns + ${microsToNanosSql('s.duration')},
         ${tagStatusSql('tags', false)}, tags,
         list_transform(coalesce(s.logs, []), lambda l: {
           name: coalesce(list_filter(l.fields, lambda f: f.key = 'event')[1].value,
                          list_filter(l.fields, lambda f: f.key = 'message')[1].value, 'log'),
           time_ns: ${microsToNanosSql('l.timestamp')}}),
         NULL, follows_from
  FROM t`;

export async function readJaeger(ctx: ReaderContext): Promise<ReaderResult> {
  const stage = 'jaeger_stage';
  await createSpanStage(ctx, stage);
  try {
    await ctx.store.run(`INSERT INTO ${stage} ${STAGE_SQL}`, [
      ctx.path,
      compressionOf(ctx),
      await maxDocumentBytes(ctx),
      SPAN_SHAPE,
      PROCESSES_SHAPE,
    ]);
  } catch (err) {
    await ctx.store.run(`DROP TABLE ${stage}`);
    throw await asInputError(err, ctx.path, ctx.sniff.gzip, 'a complete Jaeger JSON document ({"data":[{traceID, spans, processes}]})');
  }
  const [{ n }] = await ctx.store.all<{ n: number }>(`SELECT count(*) AS n FROM ${stage} WHERE line > 0`);
  if (n === 0) {
    await ctx.store.run(`DROP TABLE ${stage}`);
    throw new InputError(ctx.path, 1, 'Jaeger JSON with at least one trace {traceID, spans, processes}', 'no spans');
  }
  const malformed = await takeMalformedElements(ctx, stage, 'a Jaeger trace object with a spans list, and span objects in it');
  // Jaeger can carry Zipkin-style shared client/server spans: only exact repeats are duplicates.
  const result = await finishSpans(ctx, stage, { dedupe: 'exact', sourceUnit: 'µs' });
  return { records: result.records, skipped: result.skipped + malformed };
}
