/**
 * OTLP JSON reader (docs/metrics.md §3.2): ExportTraceServiceRequest documents, one per line (Collector
 * `file` exporter, SDK HTTP/JSON captures), one pretty-printed document, or the Jaeger api_v3
 * `{"result": …}` wrapper; plain or gzip.
 *
 * Why this SQL shape (measured on a 160 MB file of real OpenTelemetry JS batches, see the report in
 * spansOtlp.test.ts): each document is parsed ONCE by `json_transform` into a narrow typed struct
 * holding only the fields we keep, the resourceSpans → scopeSpans → spans nesting is flattened with
 * list lambdas, and one `unnest` yields the span rows. Extracting every field with `->>`/json_extract
 * re-parses the JSON text per field, and `read_json` with nested STRUCT columns was several times slower.
 */
import { InputError } from '../../errors';
import { recordSkips } from '../skips';
import { asInputError, maxDocumentBytes } from './spanDocument';
import { compressionOf, isDataError, numberedReadIsExact, stageNdjson } from '../input/ndjsonLines';
import { checkStage, checksCiteLines, createSpanStage, finishSpans, publishLoadedEvents, publishStage, type FinishOptions } from './spanStage';
import { runScan, runUnordered } from '../../store/insertOrder';
import { scanProgress } from '../input/scanProgress';
import { kindSql, normalizeIdSql, otlpStatusSql } from './spanSql';
import { OTLP_KEY_VALUES } from '../../store/spanAttributes';
import { storeLimits } from '../../store/limits';
import { withJsonReadPlan, type JsonReadPlan } from '../input/jsonReadPlan';
import type { Params } from '../../store/duckStore';
import type { ReaderContext, ReaderResult } from '../types';

const SPAN = `{"traceId":"VARCHAR","spanId":"VARCHAR","parentSpanId":"VARCHAR","name":"VARCHAR","kind":"VARCHAR",
"startTimeUnixNano":"VARCHAR","endTimeUnixNano":"VARCHAR","status":{"code":"VARCHAR"},"attributes":"JSON",
"events":[{"name":"VARCHAR","timeUnixNano":"VARCHAR"}]}`;
const SCOPE_SPANS = `[{"spans":[${SPAN}]}]`;
const RESOURCE_SPANS = `[{"resource":{"attributes":${OTLP_KEY_VALUES}},"scopeSpans":${SCOPE_SPANS}}]`;
/** The same with the pre-1.0 name of scopeSpans (OTLP before 0.15, still written by old SDKs and collectors). */
const RESOURCE_SPANS_LEGACY = `[{"resource":{"attributes":${OTLP_KEY_VALUES}},"scopeSpans":${SCOPE_SPANS},"instrumentationLibrarySpans":${SCOPE_SPANS}}]`;
/** The bare request and the api_v3 wrapper, and the legacy key, in one shape, so each document is parsed once. */
const DOCUMENT_SHAPE = `{"resourceSpans":${RESOURCE_SPANS_LEGACY},"result":{"resourceSpans":${RESOURCE_SPANS_LEGACY}}}`.replace(/\n/g, '');
/**
 * The fast path's shape: the bare request only. Typing the wrapper's copy of the nesting too cost
 * ≈ 1/3 more CPU per document (bench 100k run); a wrapped file shows up as marker rows and is read
 * again with DOCUMENT_SHAPE.
 */
const REQUEST_SHAPE = `{"resourceSpans":${RESOURCE_SPANS}}`.replace(/\n/g, '');

/**
 * SELECT over `source`(line, doc) producing (line, marker, sp, service[, legacy]) rows, one per span
 * ($1 = the document shape): the typed struct is consumed once and never materialised. The nesting is taken
 * apart by one `unnest` per level (resourceSpans, scopeSpans, spans), each a streaming step, and the
 * resource's `service.name` is read once per resource and carried down as a column. Why (measured,
 * CPU, on a shared 2-core machine, so ranges): flattening with nested list lambdas, zipping a
 * per-resource service list onto the spans with list_resize, then one unnest, cost 2.4–5.5 s for this
 * statement on the bench 10k run and 15–19.5 s on the 100k run; the per-level unnests 1.7–3.1 s and
 * 13–15.5 s, same rows. The other resource attributes are not copied onto every span (that tripled
 * the cost on batch files, and the analysis does not read them).
 * Whatever holds no span where the nesting expects one yields one `marker` row with a NULL span (a
 * `[NULL]` list is unnested in its place), so that the single parse also finds what to report: a
 * document without resourceSpans ('document'), a resource that is null or has no scope list
 * ('resource'), a scope that is null or whose `spans` is not a list ('scope'), a null span ('span').
 * `wrapped`: $1 is DOCUMENT_SHAPE, which also reads the api_v3 `result` wrapper and the pre-1.0 key
 * `instrumentationLibrarySpans` (in place of scopeSpans; `legacy` says where), else REQUEST_SHAPE.
 */
function flattenSql(source: string, wrapped: boolean): string {
  const scopeList = wrapped ? 'coalesce(r.scopeSpans, r.instrumentationLibrarySpans)' : 'r.scopeSpans';
  return `
  WITH resources AS (
    SELECT line, rs IS NULL AS no_rs, unnest(CASE WHEN rs IS NULL THEN [NULL] ELSE rs END) AS r
    FROM (SELECT line, ${wrapped ? 'coalesce(d.resourceSpans, d.result.resourceSpans)' : 'd.resourceSpans'} AS rs
          FROM (SELECT line, json_transform(doc, $1) AS d FROM ${source}))),
  scopes AS (
    SELECT line,
           CASE WHEN no_rs THEN 'document' WHEN r IS NULL OR ${scopeList} IS NULL THEN 'resource' END AS m,
           list_filter(r.resource.attributes, lambda a: a.key = 'service.name')[1].value.stringValue AS service,
           ${wrapped ? 'r.scopeSpans IS NULL AND r.instrumentationLibrarySpans IS NOT NULL' : 'false'} AS legacy,
           unnest(CASE WHEN no_rs OR r IS NULL OR ${scopeList} IS NULL THEN [NULL] ELSE ${scopeList} END) AS ss
    FROM resources),
  spans AS (
    SELECT line, coalesce(m, CASE WHEN ss IS NULL OR ss.spans IS NULL THEN 'scope' END) AS m, service, legacy,
           unnest(CASE WHEN m IS NOT NULL OR ss IS NULL OR ss.spans IS NULL THEN [NULL] ELSE ss.spans END) AS sp
    FROM scopes)
  SELECT line, coalesce(m, CASE WHEN sp IS NULL THEN 'span' END) AS marker, sp, service${wrapped ? ', legacy' : ''}
  FROM spans`;
}

/**
 * The per-span projection (ID normalisation, kind, status, events, attributes) over flattened rows
 * (line, marker, sp, service); `lineSql` gives each row's line (negative for a marker row, whose
 * `name` is its marker kind: see takeMarkers).
 * The span attributes stay the JSON text the document shape gives them (spans.otlp_attributes; the
 * MAP column stays NULL): they are typed on demand by spanAttributes.ts. Typing them here was a third
 * of this statement (bench 100k run, written to a database file: 9.6 → 6.5 CPU s).
 */
function projectSql(rows: string, lineSql: string): string {
  return `
  WITH g AS (SELECT line, marker, service, sp, sp.traceId AS tid, sp.spanId AS sid, sp.parentSpanId AS pid FROM ${rows})
  SELECT ${lineSql}, ${normalizeIdSql('tid', 16, 'none')}, ${normalizeIdSql('sid', 8, 'none')}, ${normalizeIdSql('pid', 8, 'none')},
         coalesce(marker, sp.name), ${kindSql('sp.kind')}, service,
         TRY_CAST(sp.startTimeUnixNano AS BIGINT), TRY_CAST(sp.endTimeUnixNano AS BIGINT),
         ${otlpStatusSql('sp.status.code')}, NULL,
         list_transform(coalesce(sp.events, []), lambda e: {name: e.name, time_ns: TRY_CAST(e.timeUnixNano AS BIGINT)}),
         sp.attributes::VARCHAR
  FROM g`;
}

/** Line of a flattened row with a real line number: negative for a marker row (takeMarkers). */
const NUMBERED_LINE = 'CASE WHEN marker IS NOT NULL THEN -line ELSE line END';
/** The stage columns projectSql fills (follows_from, a Jaeger reference type, stays NULL: OTLP links are not parents). */
const STAGE_COLUMNS = 'line, trace_id, span_id, parent_span_id, name, kind, service, start_ns, end_ns, status, attributes, events, otlp_attributes';

/**
 * Numbered path: parses `source`(line, doc) into a flattened table, then projects it into the stage.
 * Why two statements: `row_number() OVER ()` (the line numbers) keeps the parse on one thread, and
 * with few, large batch lines (≈ 2,200 at 100k requests) the projection would run on that thread
 * too; over a materialised table of spans it runs on every thread, by row group (≈ 25 % less CPU).
 * The spans read under the pre-1.0 key instrumentationLibrarySpans are reported (info).
 */
async function flattenInto(ctx: ReaderContext, stage: string, source: string, params: Params): Promise<void> {
  await runScan(ctx.store, `CREATE OR REPLACE TEMP TABLE otlp_flat AS ${flattenSql(source, true)}`, params, scanProgress(ctx));
  await publishFlat(ctx, stage);
}

/** Projects otlp_flat into the stage, reports the spans read under the pre-1.0 key, drops otlp_flat. */
async function publishFlat(ctx: ReaderContext, stage: string): Promise<void> {
  await ctx.store.run(`INSERT INTO ${stage} (${STAGE_COLUMNS}) ${projectSql('otlp_flat', NUMBERED_LINE)}`);
  const [legacy] = await ctx.store.all<{ n: number; first: number | null }>(
    'SELECT count(*) AS n, min(line) AS first FROM otlp_flat WHERE legacy AND marker IS NULL',
  );
  if (legacy.n > 0) {
    await ctx.store.run(`INSERT INTO load_issues VALUES ($1, $2, 'info', 'legacy-otlp', $3)`, [
      ctx.sourceId,
      legacy.first,
      `${legacy.n} span(s) are under the pre-1.0 OTLP key instrumentationLibrarySpans (first at line ${legacy.first}); read as scopeSpans`,
    ]);
  }
  await ctx.store.run('DROP TABLE otlp_flat');
}

/**
 * NDJSON read directly (no line staging), `line` = row_number in file order. The Collector and the
 * SDK exporters never write blank lines, which this reader would not count.
 * $2 path, $3 compression, $4 maximum line size.
 */
const NUMBERED_SOURCE = `(SELECT row_number() OVER () AS line, json AS doc
  FROM read_ndjson_objects($2, compression = $3, maximum_object_size = $4))`;

/** The same documents without line numbers, so that DuckDB parses them on every thread. */
const UNNUMBERED_SOURCE = `(SELECT NULL::BIGINT AS line, json AS doc
  FROM read_ndjson_objects($2, compression = $3, maximum_object_size = $4))`;

/**
 * maximum_object_size tried in turn: DuckDB sizes its read buffers from this value (2× per buffer),
 * so reading with 256 MiB up front allocated 512 MiB blocks and ran out of memory under a 1.2 GB
 * memory_limit even on a 37 MB file (bench, 10k run). SDK/Collector batches are well under 16 MiB
 * (512 spans ≈ 0.3 MB); a file with larger lines is re-read with the large limit.
 */
const LINE_LIMITS = [16 * 1024 * 1024, 256 * 1024 * 1024];

/** The read failed because a line is larger than maximum_object_size (retry with a larger one). */
function isObjectSizeError(err: unknown): boolean {
  return /maximum_object_size/i.test(err instanceof Error ? err.message : String(err));
}

/** Runs `fill(limit)` with each maximum_object_size in turn, calling `reset` between tries. */
async function withLineLimits(fill: (limit: number) => Promise<void>, reset: () => Promise<void>): Promise<void> {
  for (let i = 0; i < LINE_LIMITS.length; i++) {
    try {
      await fill(LINE_LIMITS[i]);
      return;
    } catch (err) {
      if (i === LINE_LIMITS.length - 1 || !isObjectSizeError(err)) throw err;
      await reset();
    }
  }
}

const FINISH: FinishOptions = { dedupe: 'span-id', sourceUnit: 'ns' };

/** What the fast path did: loaded the file, or found that it needs line numbers (or bad-line handling). */
type FastOutcome = { done: ReaderResult } | { next: 'numbered' | 'line-by-line' };

/**
 * Fast path for a clean NDJSON file: ONE statement parses every document on every thread, without
 * line numbers (spans.line stays NULL: nothing in a clean file is cited by line). Measured on the
 * bench 100k run (373 MB, 690k spans): the numbered path costs ≈ 2× the wall time, because
 * row_number() and an order-preserving insert both keep the parse on one thread.
 * Where the rows go depends on the file's size against DuckDB's memory_limit (directTarget):
 * - straight into `spans` (events kept in spans.events and copied to span_events afterwards): no
 *   staging table to copy (the copy is a third of the staged path: 19.5 of 58 s at 1M requests);
 * - into the staging table, then published: an insert into `spans` is held in memory (or DuckDB's
 *   temp files) until it commits, and at 1M requests (3.7 GB, 6.8M spans, memory_limit 1200MB) the
 *   direct insert spilled 2.6 GB to the temp directory and took 156 s, against ≈ 110 s staged on the
 *   same shared machine (58 s staged on a quiet one).
 * Anything a report would cite by line sends the file to the numbered path, which reads it again
 * (after this source's rows are deleted): documents without resourceSpans (or the api_v3 wrapper),
 * duplicate spans, spans without IDs, doubtful times or IDs; a malformed line goes to line-by-line
 * staging. A failed statement inserts nothing (each statement is its own transaction).
 */
async function readFast(ctx: ReaderContext, stage: string, plan: JsonReadPlan): Promise<FastOutcome> {
  const id = ctx.sourceId;
  if (!Number.isSafeInteger(id)) throw new Error(`invalid source id ${id}`);
  const direct = await directTarget(ctx);
  const columns = STAGE_COLUMNS;
  const rows = projectSql(`(${flattenSql(UNNUMBERED_SOURCE, false)})`, 'CASE WHEN marker IS NOT NULL THEN -1 END');
  const sql = direct
    ? `INSERT INTO spans
       SELECT $5, line, trace_id, span_id, parent_span_id, name, kind, service, start_ns, end_ns,
              (end_ns - start_ns) / 1e6, status, attributes, events, otlp_attributes, NULL
       FROM (${rows}) p(${columns})`
    : `INSERT INTO ${stage} (${columns}) ${rows}`;
  if (!direct) await createSpanStage(ctx, stage);
  try {
    await withLineLimits(
      (limit) => runUnordered(ctx.store, sql, [REQUEST_SHAPE, plan.files, plan.compression, limit, ...(direct ? [id] : [])], scanProgress(ctx)),
      async () => (direct ? undefined : ctx.store.run(`DELETE FROM ${stage}`)),
    );
  } catch (err) {
    if (!isDataError(err)) throw err;
    return { next: 'line-by-line' };
  }
  // The rows just read: this source's rows of `spans`, or the stage (the id is our integer, checked above).
  const loaded = direct ? 'otlp_loaded' : stage;
  if (direct) await ctx.store.run(`CREATE OR REPLACE TEMP VIEW ${loaded} AS SELECT * FROM spans WHERE source_id = ${id}`);
  const undo = async (): Promise<FastOutcome> => {
    if (direct) {
      await ctx.store.run(`DROP VIEW IF EXISTS ${loaded}`);
      await ctx.store.run('DELETE FROM spans WHERE source_id = $1', [id]);
    }
    return { next: 'numbered' };
  };
  const [row] = await ctx.store.all<{ markers: number }>(`SELECT count(*) AS markers FROM ${loaded} WHERE line = -1`);
  if (row.markers > 0) return undo();
  const checks = await checkStage(ctx, loaded, FINISH);
  if (checksCiteLines(checks)) return undo();
  if (!direct) return { done: await publishStage(ctx, stage, checks, FINISH) };
  await ctx.store.run(`DROP VIEW ${loaded}`);
  await publishLoadedEvents(ctx);
  return { done: { records: checks.total, skipped: 0 } };
}

/**
 * Up to this share of memory_limit, the file goes straight into `spans`. The 100k run (373 MB) loaded
 * that way with RSS 860 MB under a 1200MB limit; the 1M run (3.7 GB) spilled (see readFast).
 */
const DIRECT_SHARE_OF_MEMORY = 0.5;

/** Whether the fast path should insert straight into `spans` (see readFast). Gzip files count ×8. */
async function directTarget(ctx: ReaderContext): Promise<boolean> {
  if (ctx.bytes === undefined) return false;
  const limit = (await storeLimits(ctx.store)).memoryBytes;
  if (limit === undefined) return false;
  return ctx.bytes * (ctx.sniff.gzip ? 8 : 1) <= limit * DIRECT_SHARE_OF_MEMORY;
}

// Kept importable from here (tests and older callers); the definition lives with the other store limits.
export { parseByteSize } from '../../memorySettings';

export async function readOtlp(ctx: ReaderContext): Promise<ReaderResult> {
  // NDJSON reaches DuckDB's JSON reader within the memory limit (jsonReadPlan.ts): whole, or in pieces.
  return ctx.sniff.lineDelimited ? withJsonReadPlan(ctx, (plan) => readOtlpWith(ctx, plan)) : readOtlpWith(ctx, undefined);
}

/** readOtlp for a line-delimited file read through `plan`, or a single document (`plan` undefined). */
async function readOtlpWith(ctx: ReaderContext, plan: JsonReadPlan | undefined): Promise<ReaderResult> {
  const stage = 'otlp_stage';
  let next: 'numbered' | 'line-by-line' = 'numbered';
  if (plan) {
    const fast = await readFast(ctx, stage, plan);
    if ('done' in fast) return fast.done;
    next = fast.next;
    ctx.progress?.(next === 'numbered' ? 'OTLP JSON needs line numbers for its report; reading it again with them' : 'OTLP JSON has bad lines; reading it line by line');
  }
  await createSpanStage(ctx, stage);
  let skipped = 0;
  if (plan) {
    // A numbered read skips blank lines without counting them: a file with one is staged line by line.
    let lineByLine = next === 'line-by-line' || !(await numberedReadIsExact(ctx));
    if (!lineByLine) {
      try {
        await withLineLimits(
          (limit) => flattenInto(ctx, stage, NUMBERED_SOURCE, [DOCUMENT_SHAPE, plan.files, plan.compression, limit]),
          () => ctx.store.run(`DELETE FROM ${stage}`),
        );
      } catch (err) {
        if (!isDataError(err)) throw err;
        lineByLine = true;
      }
    }
    if (lineByLine) {
      // Not clean (malformed or truncated line): stage line by line, record bad lines, read the rest.
      await ctx.store.run(`DELETE FROM ${stage}`);
      skipped = (await stageNdjson(ctx, 'otlp_lines')).skipped;
      await flattenStaged(ctx, stage, plan.pieceMiB ?? STAGED_SLICE_MIB);
    }
  } else {
    await stageDocuments(ctx);
    await flattenStaged(ctx, stage);
  }
  skipped += await takeMarkers(ctx, stage);
  if (!ctx.sniff.lineDelimited) {
    // One document holds every span, so its number says nothing: use the span's position in the
    // document (rowid follows insertion order, which follows the document) like Jaeger/Zipkin do.
    await ctx.store.run(`UPDATE ${stage} SET line = rowid + 1`);
  }
  const result = await finishSpans(ctx, stage, FINISH);
  return { records: result.records, skipped: skipped + result.skipped };
}

/** What a marker row stands for (flattenSql), for its load issue. */
const MARKER_FINDINGS: Readonly<Record<string, string>> = {
  resource: 'expected a resourceSpans entry with a scopeSpans list, found null or an entry without it',
  scope: 'expected a scopeSpans entry with a list of spans, found null or "spans" that is not a list',
  span: 'expected a span object in the spans list, found null',
};

/**
 * Records (and removes) the marker rows (flattenSql): a document without resourceSpans is a line of
 * another format in an NDJSON file ('foreign-line'), or a document that is not OTLP
 * ('malformed-document'); a resource, scope or span entry that holds nothing is a 'malformed-element'.
 * A file in which no document has resourceSpans is not OTLP. Returns the units skipped.
 */
async function takeMarkers(ctx: ReaderContext, stage: string): Promise<number> {
  const [row] = await ctx.store.all<{ documents: number; elements: number; spans: number; first: number | null }>(
    `SELECT count(*) FILTER (WHERE line < 0 AND name = 'document') AS documents,
            count(*) FILTER (WHERE line < 0 AND name <> 'document') AS elements,
            count(*) FILTER (WHERE line > 0) AS spans,
            min(-line) FILTER (WHERE line < 0 AND name = 'document') AS first FROM ${stage}`,
  );
  if (row.documents + row.elements === 0) return 0;
  if (row.spans === 0 && row.elements === 0) {
    await ctx.store.run(`DROP TABLE ${stage}`);
    throw new InputError(ctx.path, row.first ?? 1, 'OTLP JSON (an ExportTraceServiceRequest with "resourceSpans")', `${row.documents} JSON document(s) without resourceSpans`);
  }
  const lineDelimited = ctx.sniff.lineDelimited;
  const documentCode = lineDelimited ? 'foreign-line' : 'malformed-document';
  await ctx.store.run(
    `INSERT INTO load_issues
     SELECT $1, -line, 'warning', CASE WHEN name = 'document' THEN $2 ELSE 'malformed-element' END,
            CASE name WHEN 'document' THEN 'expected an OTLP ExportTraceServiceRequest with "resourceSpans" on this ${lineDelimited ? 'line' : 'document'}, found a JSON object without it; skipped'
                      ${Object.entries(MARKER_FINDINGS).map(([k, m]) => `WHEN '${k}' THEN '${m}; skipped'`).join(' ')} END
     FROM ${stage} WHERE line < 0 ORDER BY -line`,
    [ctx.sourceId, documentCode],
  );
  await recordSkips(ctx.store, ctx.sourceId, documentCode, row.documents);
  await recordSkips(ctx.store, ctx.sourceId, 'malformed-element', row.elements);
  await ctx.store.run(`DELETE FROM ${stage} WHERE line < 0`);
  return row.documents + row.elements;
}

/**
 * JSON text per json_transform chunk in flattenStaged when the plan read the file whole: a chunk holds
 * up to 2048 staged lines, and 2048 request bodies of 116 KB are 237 MB of JSON parsed at once per
 * thread (a 46 MB file with one bad line ran out of memory under the default 1200MB limit). 8 MiB is
 * the largest piece jsonReadPlan.ts plans (≈ 122 MiB of parse per thread); under a lower limit, the
 * plan's own piece size.
 */
const STAGED_SLICE_MIB = 8;

/**
 * Flattens the staged otlp_lines(line, doc) into the stage, then drops them: in one statement when
 * its chunks stay small, else in slices of consecutive line numbers of at most `sliceMiB` of the
 * longest line each (a filtered scan hands json_transform only the slice's rows).
 */
async function flattenStaged(ctx: ReaderContext, stage: string, sliceMiB = STAGED_SLICE_MIB): Promise<void> {
  const [s] = await ctx.store.all<{ lo: number | null; hi: number | null; longest: number | null }>(
    'SELECT min(line) AS lo, max(line) AS hi, max(strlen(doc::VARCHAR)) AS longest FROM otlp_lines',
  );
  const width = Math.max(1, Math.floor((sliceMiB * 2 ** 20) / Math.max(1, s.longest ?? 1)));
  if (s.lo === null || s.hi === null || width >= 2048) {
    await flattenInto(ctx, stage, 'otlp_lines', [DOCUMENT_SHAPE]);
  } else {
    const slice = '(SELECT line, doc FROM otlp_lines WHERE line BETWEEN $2 AND $3)';
    await ctx.store.run(`CREATE OR REPLACE TEMP TABLE otlp_flat AS ${flattenSql(slice, true)}`, [DOCUMENT_SHAPE, s.lo, s.lo + width - 1]);
    for (let from = s.lo + width; from <= s.hi; from += width) {
      await ctx.store.run(`INSERT INTO otlp_flat ${flattenSql(slice, true)}`, [DOCUMENT_SHAPE, from, from + width - 1]);
    }
    await publishFlat(ctx, stage);
  }
  await ctx.store.run('DROP TABLE otlp_lines');
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
    throw await asInputError(err, ctx.path, ctx.sniff.gzip, 'a complete OTLP JSON document');
  }
}
