/**
 * Query Run…: a SQL box (Ctrl+Enter or Run), the result as a table (column names with their DuckDB
 * types, NULL shown as such, numbers right-aligned), Copy (the rows shown, TSV) and Export CSV (every
 * row, written by the host as `phasewise sql --format csv`). A refused or failing query shows the
 * reason the core gives (DuckDB's first line). While a query runs the status line counts its seconds
 * and a Cancel button (or Escape anywhere in the view) stops it on the run worker; an export in flight
 * has its own Cancel. The run's documented views are listed beside the box; each can be put into the
 * box. The box's text is saved with setState (a window reload brings it back). Text nodes only.
 */
import type { ShowErrorParams } from '../../src/protocol/common';
import { Copy } from '../../src/protocol/common';
import * as Q from '../../src/protocol/query';
import type { Bridge } from '../shared/host';
import { h, replaceChildren, vs } from '../shared/dom';
import { errorBanner, guarded } from '../shared/errors';
import { fmtInt } from '../shared/format';

const NUMERIC = /^(TINYINT|SMALLINT|INTEGER|BIGINT|HUGEINT|UTINYINT|USMALLINT|UINTEGER|UBIGINT|FLOAT|DOUBLE|DECIMAL)/;

/** A cell as one line of text (TSV and the table): NULL as empty in TSV, tabs and line breaks as spaces. */
function tsvCell(v: string | number | boolean | null): string {
  return v === null ? '' : String(v).replace(/[\t\r\n]/g, ' ');
}

/** The rows shown as TSV with a header line. */
export function resultTsv(a: Q.QueryAnswer): string {
  return `${[a.columns.map(tsvCell).join('\t'), ...a.rows.map((r) => r.map(tsvCell).join('\t'))].join('\n')}\n`;
}

export class QueryApp {
  private loaded: Q.DidLoadParams | undefined;
  private answer: Q.QueryAnswer | undefined;
  private readonly errorSlot = h('div');
  private readonly box = h('textarea', {
    class: 'qr-box pw-mono',
    attrs: { 'aria-label': 'SQL query (Ctrl+Enter runs it)', spellcheck: 'false', rows: 6, 'data-testid': 'sql' },
    on: {
      keydown: (e) => {
        if (e.key === 'Enter' && (e.ctrlKey || e.metaKey)) {
          e.preventDefault();
          void this.run();
        }
      },
      input: () => this.saveSoon(),
    },
  });
  private readonly status = h('div', { class: 'qr-status', role: 'status', attrs: { 'aria-live': 'polite', 'data-testid': 'status' } });
  private readonly problem = h('div', { class: 'qr-problem', attrs: { 'data-testid': 'problem' } });
  private readonly result = h('div', { class: 'qr-result', attrs: { 'data-testid': 'result' } });
  private readonly exportNote = h('span', { class: 'pw-muted', attrs: { 'aria-live': 'polite', 'data-testid': 'export-note' } });
  private readonly cancelSlot = h('span', { class: 'qr-cancel' });
  private seq = 0;
  /** The query in flight: when it started, and the timer that counts its seconds. */
  private running: { started: number; timer: ReturnType<typeof setInterval>; cancelling: boolean } | undefined;
  private exporting = false;

  constructor(
    private readonly root: HTMLElement,
    private readonly bridge: Bridge,
  ) {
    bridge.endpoint.onNotification(Q.DidLoad, (p) => this.guard(() => this.load(p)));
    bridge.endpoint.onNotification(Q.Exported, (p) => {
      this.exporting = false;
      replaceChildren(this.exportNote, p.message);
    });
    bridge.endpoint.onNotification(Q.RunGone, (p) => this.guard(() => this.gone(p)));
    // Escape anywhere in the view stops what is in flight (the query first).
    window.addEventListener('keydown', (e) => {
      if (e.key !== 'Escape' || (this.running === undefined && !this.exporting)) return;
      e.preventDefault();
      this.cancel(this.running !== undefined ? 'query' : 'export');
    });
  }

  showError(p: ShowErrorParams): void {
    if (!this.root.contains(this.errorSlot)) this.root.prepend(this.errorSlot);
    replaceChildren(this.errorSlot, errorBanner(p));
  }

  redraw(): void {
    // CSS variables only: a theme change needs no redraw.
  }

  private guard(fn: () => void): void {
    guarded(this.bridge.endpoint, 'query view', (p) => this.showError(p), fn);
  }

  load(p: Q.DidLoadParams): void {
    const first = this.loaded === undefined;
    this.loaded = p;
    if (first) (this.box as HTMLTextAreaElement).value = p.sql;
    this.save();
    const button = (label: string, testid: string, title: string, onClick: () => void, secondary = true): HTMLElement =>
      vs('vscode-button', { secondary }, { attrs: { 'data-testid': testid, title }, on: { click: onClick } }, label);
    replaceChildren(
      this.root,
      h(
        'main',
        { class: 'qr-app' },
        h(
          'div',
          { class: 'qr-main' },
          h('header', { class: 'qr-head' }, h('h1', null, 'Query: ', p.run), h('span', { class: 'pw-muted' }, `one read-only SELECT over the views (version ${p.views_version})`)),
          this.box,
          h(
            'div',
            { class: 'qr-actions' },
            button('Run', 'run', 'Run the query (Ctrl+Enter)', () => void this.run(), false),
            button('Copy (TSV)', 'copy', 'Copy the rows shown as tab-separated values', () => this.copy()),
            button('Export CSV…', 'export', 'Write every row of the query to a CSV file', () => this.exportCsv()),
            this.exportNote,
          ),
          this.problem,
          h('div', { class: 'qr-status-row' }, this.status, this.cancelSlot),
          this.result,
        ),
        viewsList(p.views, (sql) => {
          (this.box as HTMLTextAreaElement).value = sql;
          this.box.focus();
        }),
      ),
    );
  }

  /** A restored panel whose run is no longer open: say so, keep the text, offer to reopen the run. */
  private gone(p: Q.RunGoneParams): void {
    (this.box as HTMLTextAreaElement).value = p.sql;
    const reopen = p.can_reopen
      ? vs('vscode-button', {}, { attrs: { 'data-testid': 'reopen', title: 'Open the run again from its files and query it' }, on: { click: () => this.bridge.endpoint.notify(Q.Reopen, {}) } }, 'Reopen the run')
      : null;
    replaceChildren(
      this.root,
      h(
        'main',
        { class: 'qr-app qr-gone', attrs: { 'data-testid': 'run-gone' } },
        h(
          'div',
          { class: 'qr-main' },
          h('header', { class: 'qr-head' }, h('h1', null, 'Query: ', p.label)),
          h('div', { class: 'pw-error-banner', role: 'alert' }, `The run ${p.label} is no longer open (it was removed from the Runs view), so this query cannot run.`, p.can_reopen ? ' Reopen it from its files to query it again.' : ' Open it again with Phasewise: Open Run….'),
          h('div', { class: 'qr-actions' }, reopen),
          h('pre', { class: 'qr-box pw-mono', attrs: { 'aria-label': 'the saved query' } }, p.sql),
        ),
      ),
    );
  }

  /** Runs the box's query; a later run's answer wins over an earlier one still in flight (the host cancels that one). */
  async run(): Promise<void> {
    const sql = (this.box as HTMLTextAreaElement).value;
    const seq = ++this.seq;
    this.startRunning();
    replaceChildren(this.problem);
    this.save();
    try {
      const a = await this.bridge.endpoint.request(Q.Run, { sql });
      if (seq !== this.seq) return;
      this.stopRunning();
      this.guard(() => this.show(a));
    } catch (err) {
      if (seq !== this.seq) return;
      this.stopRunning();
      replaceChildren(this.status);
      replaceChildren(this.problem, h('div', { class: 'pw-error-banner', role: 'alert' }, err instanceof Error ? err.message : String(err)));
    }
  }

  /** Asks the host to stop the query (its answer says `cancelled`) or the export in flight. */
  cancel(what: 'query' | 'export'): void {
    if (what === 'query' && this.running !== undefined) {
      // The ticking status says so from now on (it said "Running…" again a second later).
      this.running.cancelling = true;
      replaceChildren(this.status, `Cancelling after ${seconds(performance.now() - this.running.started)}…`);
    }
    if (what === 'export') replaceChildren(this.exportNote, 'Cancelling the export…');
    this.bridge.endpoint.notify(Q.Cancel, { what });
  }

  private startRunning(): void {
    this.stopRunning();
    const started = performance.now();
    const tick = (): void => {
      if (this.running?.cancelling === true) return;
      replaceChildren(this.status, h('span', { class: 'qr-spinner', attrs: { 'aria-hidden': 'true' } }), `Running… ${seconds(performance.now() - started)}`);
    };
    tick();
    this.running = { started, timer: setInterval(tick, 1000), cancelling: false };
    const cancel = vs('vscode-button', { secondary: true }, { attrs: { 'data-testid': 'cancel', title: 'Stop the query (Escape)' }, on: { click: () => this.cancel('query') } }, 'Cancel');
    replaceChildren(this.cancelSlot, cancel, h('span', { class: 'pw-muted' }, ' Escape also cancels.'));
  }

  private stopRunning(): void {
    if (this.running !== undefined) clearInterval(this.running.timer);
    this.running = undefined;
    replaceChildren(this.cancelSlot);
  }

  private show(a: Q.QueryAnswer): void {
    if (a.cancelled) {
      replaceChildren(this.status, `Cancelled after ${seconds(a.ms)}; the run is unchanged and answers the next query.`);
      return;
    }
    if (a.error !== null) {
      this.answer = undefined;
      replaceChildren(this.status);
      replaceChildren(this.problem, h('div', { class: 'pw-error-banner', role: 'alert' }, a.error));
      replaceChildren(this.result);
      return;
    }
    this.answer = a;
    const n = a.rows.length;
    const max = this.loaded?.max_rows ?? n;
    replaceChildren(this.status, `${fmtInt(n)} row${n === 1 ? '' : 's'} in ${a.ms < 10 ? a.ms.toFixed(1) : Math.round(a.ms)} ms`, a.truncated ? ` · the first ${fmtInt(max)} are shown; more exist (Export CSV writes every row)` : '');
    replaceChildren(this.result, resultTable(a));
  }

  private copy(): void {
    if (this.answer === undefined) {
      replaceChildren(this.exportNote, 'Run a query first.');
      return;
    }
    this.bridge.endpoint.notify(Copy, { text: resultTsv(this.answer), what: `${this.answer.rows.length} rows (TSV)` });
  }

  private exportCsv(): void {
    this.exporting = true;
    const cancel = h('button', { class: 'pw-link', attrs: { type: 'button', 'data-testid': 'cancel-export', title: 'Stop the export (Escape); nothing is left half-written' }, on: { click: () => this.cancel('export') } }, 'Cancel');
    replaceChildren(this.exportNote, 'Exporting… ', cancel);
    this.bridge.endpoint.notify(Q.ExportCsv, { sql: (this.box as HTMLTextAreaElement).value });
  }

  private saveTimer: ReturnType<typeof setTimeout> | undefined;
  private saveSoon(): void {
    if (this.saveTimer !== undefined) clearTimeout(this.saveTimer);
    delete this.box.dataset.saved;
    this.saveTimer = setTimeout(() => this.save(), 300);
  }

  /**
   * The run and the box's text, for the panel's serializer after a reload. `data-saved` on the box says
   * that its current text is the saved one (the e2e reloads the window once it is).
   */
  private save(): void {
    if (this.loaded === undefined) return;
    const state: Q.QueryViewState = { ...this.loaded.state, sql: (this.box as HTMLTextAreaElement).value };
    this.bridge.setState(state);
    this.box.dataset.saved = 'true';
  }
}

/** Elapsed time as the status line says it: `0.4 s`, `12 s`. */
function seconds(ms: number): string {
  return ms < 10_000 ? `${(ms / 1000).toFixed(1)} s` : `${Math.round(ms / 1000)} s`;
}

function resultTable(a: Q.QueryAnswer): HTMLElement {
  const numeric = a.types.map((t) => NUMERIC.test(t));
  const head = h('tr', null, ...a.columns.map((c, i) => h('th', { class: numeric[i] ? 'pw-num' : undefined, attrs: { scope: 'col' } }, h('div', null, c), h('div', { class: 'qr-type' }, a.types[i]))));
  const body = a.rows.map((r) => h('tr', null, ...r.map((v, i) => (v === null ? h('td', { class: numeric[i] ? 'qr-null pw-num' : 'qr-null' }, 'NULL') : h('td', { class: numeric[i] ? 'pw-num' : undefined }, String(v))))));
  return h('div', { class: 'qr-scroll', tabIndex: 0, attrs: { 'aria-label': 'query result' } }, h('table', { class: 'pw-table qr-table', attrs: { 'data-testid': 'rows' } }, h('thead', null, head), h('tbody', null, ...body)));
}

function viewsList(views: Q.ViewDoc[], use: (sql: string) => void): HTMLElement {
  return h(
    'aside',
    { class: 'qr-views', attrs: { 'aria-labelledby': 'qr-views-h', 'data-testid': 'views' } },
    h('h2', { id: 'qr-views-h' }, 'Views'),
    h('p', { class: 'pw-muted' }, 'Documented and stable; other tables are internal. phasewise_views and phasewise_columns list them in SQL.'),
    ...views.map((v) =>
      h(
        'details',
        { attrs: { 'data-view': v.name } },
        h('summary', null, h('span', { class: 'pw-mono' }, v.name), ' ', h('span', { class: 'pw-muted' }, v.meaning)),
        h('button', { class: 'pw-link', attrs: { type: 'button' }, on: { click: () => use(`SELECT * FROM ${v.name} LIMIT 100`) } }, `SELECT * FROM ${v.name} LIMIT 100`),
        h('table', { class: 'pw-table qr-cols' }, h('tbody', null, ...v.columns.map((c) => h('tr', null, h('td', { class: 'pw-mono' }, c.name), h('td', { class: 'qr-type' }, c.type), h('td', null, c.meaning))))),
      ),
    ),
  );
}
