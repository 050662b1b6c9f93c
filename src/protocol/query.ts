/**
 * The query webview's protocol (webview/query.ts ⇄ the Query Run panel): a SQL box over one run's
 * documented views (core/views), run on the run worker through the same read-only session and checks
 * as `phasewise sql`. Common messages (ready, theme, copy, errors) are in common.ts.
 *
 * Order: `webview/ready` → host `query/didLoad` (the run and its views, queued until ready); the
 * webview sends `query/run` (answered with the rows or DuckDB's message made readable) and
 * `query/exportCsv` (the host asks where and writes every row, as `phasewise sql --format csv`).
 */
import { notification, request } from './ipc';
import { array, boolean, literal, nullable, number, object, scalar, string, type Infer } from './schema';

/** A documented view and its columns (core/views/catalog.ts under the run's phase mapping). */
export const viewDoc = object({
  name: string,
  meaning: string,
  columns: array(object({ name: string, type: string, meaning: string })),
});
export type ViewDoc = Infer<typeof viewDoc>;

/** Host → webview: which run the box queries and its views. */
export const DidLoad = notification('query/didLoad', 'toWebview', object({ run: string, views: array(viewDoc), views_version: number, max_rows: number, sql: string }));

/** A query's rows (at most max_rows; `truncated` when more exist), or why it did not run. */
export const queryAnswer = object({
  columns: array(string),
  types: array(string),
  /** Cells as JSON scalars: lists, structs and times as their text (cellText, as the CLI's table shows them). */
  rows: array(array(scalar)),
  truncated: boolean,
  ms: number,
  /** DuckDB's or the check's message, one readable line (what to fix in the SQL); null when it ran. */
  error: nullable(string),
});
export type QueryAnswer = Infer<typeof queryAnswer>;

/** Webview → host: run one SELECT over the views. */
export const Run = request('query/run', 'toHost', object({ sql: string }), queryAnswer);

/** Webview → host: write every row of this query to a file the user picks (CSV, as `phasewise sql --format csv`). */
export const ExportCsv = notification('query/exportCsv', 'toHost', object({ sql: string }));

/** Host → webview: what an export did (shown beside the buttons). */
export const Exported = notification('query/exported', 'toWebview', object({ status: literal('written', 'failed', 'cancelled'), message: string }));
export type DidLoadParams = Infer<typeof DidLoad.params>;
