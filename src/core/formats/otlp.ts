/**
 * OTLP JSON reader (DESIGN §3.2): ExportTraceServiceRequest documents, one per line (Collector
 * `file` exporter, SDK HTTP/JSON captures), one pretty-printed document, or the Jaeger api_v3
 * `{"result": …}` wrapper; plain or gzip.
 *
 * Why this SQL shape (measured on a 160 MB file of real OpenTelemetry JS batches, see the report in
 * spansOtlp.test.ts): each document is parsed ONCE by `json_transform` into a narrow typed struct
 * holding only the fields we keep, the resourceSpans → scopeSpans → spans nesting is flattened with
 * list lambdas, and one `unnest` yields the span rows. Extracting every field with `->>`/json_extract
 * re-parses the JSON text per field, and `read_json` with nested STRUCT columns was several times slower.
 */
import { InputError } from '../errors';
import { asInputError, maxDocumentBytes } from './spanDocument';
import { compressionOf, stageNdjson } from './ndjsonLines';
import { createSpanStage, finishSpans } from './spanStage';
import { kindSql, normalizeIdSql, otlpStatusSql } from './spanSql';
import type { ReaderContext, ReaderResult } from './types';

/**
 * AnyValue: scalars as VARCHAR (json_transform stringifies numbers and booleans, so `intValue` as a
 * JSON number or as the spec's string gives the same text); arrays/kvlists kept as their JSON text.
 */
const ANY_VALUE = `{"stringValue":"VARCHAR","intValue":"VARCHAR","doubleValue":"VARCHAR","boolValue":"VARCHAR","bytesValue":"VARCHAR","arrayValue":"JSON","kvlistValue":"JSON"}`;
const KEY_VALUES = `[{"key":"VARCHAR","value":${ANY_VALUE}}]`;
const SPAN = `{"traceId":"VARCHAR","spanId":"VARCHAR","parentSpanId":"VARCHAR","name":"VARCHAR","kind":"VARCHAR",
"startTimeUnixNano":"VARCHAR","endTimeUnixNano":"VARCHAR","status":{"code":"VARCHAR"},"attributes":${KEY_VALUES},
"events":[{"name":"VARCHAR","timeUnixNano":"VARCHAR"}]}`;
const RESOURCE_SPANS = `[{"resource":{"attributes":${KEY_VALUES}},"scopeSpans":[{"spans":[${SPAN}]}]}]`;
/** Both the bare request and the api_v3 wrapper in one shape, so each document is parsed once. */
const DOCUMENT_SHAPE = `{"resourceSpans":${RESOURCE_SPANS},"result":{"resourceSpans":${RESOURCE_SPANS}}}`.replace(/\n/g, '');

/** AnyValue struct → its string form. */
function anyValueSql(v: string): string {
  return `coalesce(${v}.stringValue, ${v}.intValue, ${v}.doubleValue, ${v}.boolValue, ${v}.bytesValue, ${v}.arrayValue::VARCHAR, ${v}.kvlistValue::VARCHAR)`;
}

function attributesMapSql(list: string): string {
  return `map_from_entries(list_transform(coalesce(${list}, []), lambda a: {k: a.key, v: ${anyValueSql('a.value')}}))`;
}

/**
 * SELECT over otlp_lines(line, doc) producing stage rows ($1 = DOCUMENT_SHAPE): the typed struct is
 * consumed once, by the flatten, and never materialised. The resource's
 * `service.name` is attached per span; its other attributes are not copied onto every span (that
 * tripled the cost on batch files and the analysis does not read them).
 */
const FLATTEN_SQL = `
  WITH rs AS (
    SELECT line, coalesce(d.resourceSpans, d.result.resourceSpans) AS rs
    FROM (SELECT line, json_transform(doc, $1) AS d FROM otlp_lines)),
  x AS (
    SELECT line, unnest(flatten(list_transform(rs, lambda r: flatten(list_transform(r.scopeSpans, lambda s:
             list_transform(s.spans, lambda sp: {sp: sp,
               svc: list_filter(r.resource.attributes, lambda a: a.key = 'service.name')[1].value.stringValue})))))) AS x
    FROM rs),
  f AS (
    SELECT line, x.svc AS service, x.sp.traceId AS tid, x.sp.spanId AS sid, x.sp.parentSpanId AS pid, x.sp AS sp FROM x)
  SELECT line, ${normalizeIdSql('tid', 16)}, ${normalizeIdSql('sid', 8)}, ${normalizeIdSql('pid', 8)},
         sp.name, ${kindSql('sp.kind')}, service,
         TRY_CAST(sp.startTimeUnixNano AS BIGINT), TRY_CAST(sp.endTimeUnixNano AS BIGINT),
         ${otlpStatusSql('sp.status.code')}, ${attributesMapSql('sp.attributes')},
         list_transform(coalesce(sp.events, []), lambda e: {name: e.name, time_ns: TRY_CAST(e.timeUnixNano AS BIGINT)})
  FROM f`;

export async function readOtlp(ctx: ReaderContext): Promise<ReaderResult> {
  const stage = 'otlp_stage';
  await createSpanStage(ctx, stage);
  let skippedLines = 0;
  if (ctx.sniff.lineDelimited) {
    skippedLines = (await stageNdjson(ctx, 'otlp_lines')).skipped;
  } else {
    await stageDocuments(ctx);
  }
  const { docs, withSpans } = await countDocuments(ctx);
  if (withSpans === 0) {
    await ctx.store.run('DROP TABLE otlp_lines');
    await ctx.store.run(`DROP TABLE ${stage}`);
    throw new InputError(ctx.path, 1, 'OTLP JSON (an ExportTraceServiceRequest with "resourceSpans")', `${docs} JSON document(s) without resourceSpans`);
  }
  if (withSpans < docs) await recordDocumentsWithoutSpans(ctx);
  await ctx.store.run(`INSERT INTO ${stage} ${FLATTEN_SQL}`, [DOCUMENT_SHAPE]);
  await ctx.store.run('DROP TABLE otlp_lines');
  const result = await finishSpans(ctx, stage, { dedupe: 'span-id', sourceUnit: 'ns' });
  // A document without resourceSpans is skipped data too (each one has its load_issues row).
  return { records: result.records, skipped: skippedLines + result.skipped + (docs - withSpans) };
}

/**
 * Pretty-printed document(s): staged like NDJSON lines into otlp_lines(line, doc) where `line` is the
 * document's index in the file (1 for the usual single document).
 */
async function stageDocuments(ctx: ReaderContext): Promise<void> {
  try {
    await ctx.store.run(
      `CREATE OR REPLACE TEMP TABLE otlp_lines AS
       SELECT row_number() OVER () AS line, json AS doc
       FROM read_json_objects($1, format = 'auto', compression = $2, maximum_object_size = $3)`,
      [ctx.path, compressionOf(ctx), await maxDocumentBytes(ctx)],
    );
  } catch (err) {
    throw asInputError(err, ctx.path, 'a complete OTLP JSON document');
  }
}

/** Documents, and those that mention resourceSpans (a string test: no second JSON parse of big batches). */
async function countDocuments(ctx: ReaderContext): Promise<{ docs: number; withSpans: number }> {
  const [row] = await ctx.store.all<{ docs: number; with_spans: number }>(
    `SELECT count(*) AS docs, count(*) FILTER (WHERE contains(doc::VARCHAR, '"resourceSpans"')) AS with_spans FROM otlp_lines`,
  );
  return { docs: row.docs, withSpans: row.with_spans };
}

async function recordDocumentsWithoutSpans(ctx: ReaderContext): Promise<void> {
  await ctx.store.run(
    `INSERT INTO load_issues
     SELECT $1, line, 'warning', 'missing-field', 'expected an OTLP ExportTraceServiceRequest with "resourceSpans", found a JSON object without it; skipped'
     FROM otlp_lines WHERE NOT contains(doc::VARCHAR, '"resourceSpans"')`,
    [ctx.sourceId],
  );
}
