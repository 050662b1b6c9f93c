/**
 * The query webview's protocol (webview/query.ts ⇄ the Query Run panel): a SQL box over one run's
 * documented views (core/views), run on the run worker through the same read-only session and checks
 * as `phasewise sql`. Common messages (ready, theme, copy, errors) are in common.ts.
 *
 * Order: `webview/ready` → host `query/didLoad` (the run and its views, queued until ready); the
 * webview sends `query/run` (answered with the rows, DuckDB's message made readable, or `cancelled`)
 * and `query/exportCsv` (the host asks where and writes every row, as `phasewise sql --format csv`);
 * `query/cancel` stops the query or the export in flight (DuckDB's statement is interrupted on the
 * run worker; the run and the worker stay usable). The webview saves `QueryViewState` with setState:
 * the panel's serializer reopens the run's query panel with that text after a window reload.
 */
import { runInputs } from './common';
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
export const DidLoad = notification(
  'query/didLoad',
  'toWebview',
  object({ run: string, views: array(viewDoc), views_version: number, max_rows: number, sql: string, /** Saved with the text (QueryViewState). */ state: object({ run: string, label: string, inputs: runInputs }) }),
);

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
  /** True when the user cancelled it (no rows; `ms` is how long it had run). */
  cancelled: boolean,
});
export type QueryAnswer = Infer<typeof queryAnswer>;

/** Webview → host: run one SELECT over the views. */
export const Run = request('query/run', 'toHost', object({ sql: string }), queryAnswer);

/** Webview → host: write every row of this query to a file the user picks (CSV, as `phasewise sql --format csv`). */
export const ExportCsv = notification('query/exportCsv', 'toHost', object({ sql: string }));

/** Webview → host: stop the query (answered as `cancelled`) or the CSV export in flight. */
export const Cancel = notification('query/cancel', 'toHost', object({ what: literal('query', 'export') }));

/** Host → webview: what an export did (shown beside the buttons). */
export const Exported = notification('query/exported', 'toWebview', object({ status: literal('written', 'failed', 'cancelled'), message: string }));
export type DidLoadParams = Infer<typeof DidLoad.params>;

/**
 * What the webview saves with setState (and the panel's serializer receives after a reload): the run
 * (the host's run id, opaque here), its label for the message when that run is no longer open, and
 * the text in the box.
 */
export const queryViewState = object({ run: string, label: string, inputs: runInputs, sql: string });
export type QueryViewState = Infer<typeof queryViewState>;

/** Host → webview: the run of a restored panel is no longer open; the webview offers to reopen it. */
export const RunGone = notification('query/runGone', 'toWebview', object({ label: string, sql: string, can_reopen: boolean }));
export type RunGoneParams = Infer<typeof RunGone.params>;

/** Webview → host: open the run again (Open Run… on its files) and query it. */
export const Reopen = notification('query/reopen', 'toHost', object({}));
