/**
 * The query views: the tables a user queries with `phasewise sql` (and `phasewise export` writes),
 * declared once with their columns and meanings. `--help`, the `phasewise_views` and
 * `phasewise_columns` views and the docs are generated from these declarations; a test checks that
 * every view has exactly its declared columns and types.
 *
 * They are views over the loaded and derived tables (store/schema.ts, analysis/catalog/), so those may
 * change: a view keeps its name, its columns and their meaning for as long as VIEWS_VERSION stays the
 * same. Adding a view or a column at the end is compatible; renaming, removing or changing the meaning
 * of one bumps the version.
 *
 * Nothing here exposes span attributes, URLs or anything else that could hold prompt text, response
 * text or secrets.
 *
 * Version history:
 *   1: requests, pairs, server_roots, spans, span_events, windows, outcomes, run_counters, sources,
 *      load_issues, k6_summary, phasewise_views, phasewise_columns.
 */
import { vcol, type ViewColumn, type ViewContext, type ViewDecl } from './declarations';
import { PAIRS, REQUESTS, WINDOWS } from './requestViews';
import { SERVER_ROOTS, SPANS } from './traceViews';

export const VIEWS_VERSION = 1;

/** A view that passes a loaded table's columns on under their own names. */
function passThrough(name: string, table: string, meaning: string, columns: readonly ViewColumn[]): ViewDecl {
  return {
    name,
    meaning,
    columns: () => [...columns],
    sql: (ctx) => `SELECT ${columns.map((c) => c.name).join(', ')} FROM ${ctx.table(table)}`,
  };
}

/** Every query view, in the order `--help` lists them. */
export const VIEWS: readonly ViewDecl[] = [
  PAIRS,
  REQUESTS,
  WINDOWS,
  {
    name: 'outcomes',
    meaning: 'One row per outcome of the started requests: the outcome ledger (docs/metrics.md §2), with generator drops in run_counters.',
    columns: () => [
      vcol('outcome', 'VARCHAR', 'succeeded | rejected | timed_out | transport_failed | canceled | failed'),
      vcol('requests', 'BIGINT', 'started requests with this outcome'),
      vcol('share', 'DOUBLE', 'their share of the started requests'),
    ],
    sql: (ctx) => `SELECT outcome, count(*) AS requests, count(*) / sum(count(*)) OVER () AS share
FROM ${ctx.table('client_requests')} GROUP BY outcome ORDER BY requests DESC, outcome`,
  },
  SERVER_ROOTS,
  SPANS,
  passThrough('span_events', 'span_events', 'One row per loaded span event (first token, content chunks, …).', [
    vcol('trace_id', 'VARCHAR', 'trace ID of its span'),
    vcol('span_id', 'VARCHAR', 'span ID of its span'),
    vcol('name', 'VARCHAR', 'event name'),
    vcol('time_ns', 'BIGINT', 'event time, epoch ns'),
  ]),
  passThrough('run_counters', 'run_counters', "The generator's counters per file (k6 iterations, dropped_iterations, vus_peak; records' scheduled and dropped).", [
    vcol('source_id', 'INTEGER', 'the file'),
    vcol('metric', 'VARCHAR', 'iterations | dropped_iterations | vus_peak | http_reqs | scheduled'),
    vcol('value', 'DOUBLE', 'the counter, summed over the file'),
  ]),
  passThrough('sources', 'sources', 'One row per loaded file.', [
    vcol('source_id', 'INTEGER', 'its number'),
    vcol('path', 'VARCHAR', 'absolute path when loaded'),
    vcol('format', 'VARCHAR', 'the format it was read as'),
    vcol('side', 'VARCHAR', 'client | server | summary'),
    vcol('bytes', 'BIGINT', 'size on disk'),
    vcol('records', 'BIGINT', 'rows it contributed'),
    vcol('skipped', 'BIGINT', 'lines or elements skipped (each in load_issues)'),
  ]),
  {
    name: 'load_issues',
    meaning: 'Every skipped line and every warning about a file, with where it is.',
    columns: () => [
      vcol('source_id', 'INTEGER', 'the file'),
      vcol('path', 'VARCHAR', 'its path'),
      vcol('line', 'BIGINT', 'the line or element, when there is one'),
      vcol('severity', 'VARCHAR', 'error | warning | info'),
      vcol('code', 'VARCHAR', 'e.g. malformed-json, missing-field, prompt-text-dropped'),
      vcol('message', 'VARCHAR', 'what was wrong'),
    ],
    sql: (ctx) => `SELECT i.source_id, s.path, i.line, i.severity, i.code, i.message
FROM ${ctx.table('load_issues')} i LEFT JOIN ${ctx.table('sources')} s USING (source_id)`,
  },
  passThrough('k6_summary', 'k6_summary', "k6 end-of-test summaries, long format (k6's own aggregates, shown beside Phasewise's figures).", [
    vcol('source_id', 'INTEGER', 'the file'),
    vcol('metric', 'VARCHAR', 'k6 metric'),
    vcol('stat', 'VARCHAR', 'avg | min | med | max | p(90) | p(95) | p(99) | count | rate | value | passes | fails'),
    vcol('value', 'DOUBLE', 'as k6 reported it'),
  ]),
];

/** The views that describe the views: generated from the declarations. */
export function describingViews(ctx: ViewContext): ViewDecl[] {
  const quote = (s: string): string => `'${s.replace(/'/g, "''")}'`;
  return [
    {
      name: 'phasewise_views',
      meaning: 'The query views: name, meaning and the version of the view layer.',
      columns: () => [vcol('view', 'VARCHAR', 'view name'), vcol('version', 'INTEGER', 'VIEWS_VERSION'), vcol('meaning', 'VARCHAR', 'what a row is')],
      sql: () => `SELECT * FROM (VALUES ${VIEWS.map((v) => `(${quote(v.name)}, ${VIEWS_VERSION}, ${quote(v.meaning)})`).join(', ')}) t(view, version, meaning)`,
    },
    {
      name: 'phasewise_columns',
      meaning: 'Every column of every query view, with its type and meaning.',
      columns: () => [
        vcol('view', 'VARCHAR', 'view name'),
        vcol('position', 'INTEGER', '1-based column position'),
        vcol('column_name', 'VARCHAR', 'column name'),
        vcol('type', 'VARCHAR', 'DuckDB type'),
        vcol('meaning', 'VARCHAR', 'what it holds'),
      ],
      sql: () => {
        const rows = VIEWS.flatMap((v) => v.columns(ctx).map((c, i) => `(${quote(v.name)}, ${i + 1}, ${quote(c.name)}, ${quote(c.type)}, ${quote(c.meaning)})`));
        return `SELECT * FROM (VALUES ${rows.join(', ')}) t(view, position, column_name, type, meaning)`;
      },
    },
  ];
}

/** Every view a session creates: the query views and the two that describe them. */
export function allViews(ctx: ViewContext): ViewDecl[] {
  return [...VIEWS, ...describingViews(ctx)];
}
