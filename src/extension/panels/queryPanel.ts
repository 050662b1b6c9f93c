/**
 * Query Run…: one panel per run with a SQL box over its documented views. Each query runs on the run
 * worker through the read-only session of `phasewise sql` (the core's checks: one SELECT, external
 * access off); Export CSV writes every row of the query as `phasewise sql --format csv` does. Cancel
 * (or a newer query) interrupts DuckDB's statement on the worker through the job's cancel. After a
 * window reload the serializer reopens the panel with the saved text; a run removed meanwhile gets a
 * "no longer open" message with Reopen (Open Run… on its saved files) instead of a blank panel.
 */
import * as os from 'os';
import * as path from 'path';
import * as vscode from 'vscode';
import { CancelledError } from '../../core/errors';
import * as Q from '../../protocol/query';
import type { RunInputs } from '../runs/workerProtocol';
import type { RunManager } from '../runs/runManager';
import { showRunError } from '../runs/showError';
import * as P from '../runs/workerProtocol';
import { PanelHost } from './panelHost';

export const QUERY_VIEW_TYPE = 'phasewise.query';

/** The query the box starts with: the first rows of the pairs view. */
export const FIRST_QUERY = 'SELECT * FROM pairs ORDER BY request_no LIMIT 100';

function maxRows(): number {
  const n = vscode.workspace.getConfiguration('phasewise').get<number>('query.maxRows', 10_000);
  return Number.isInteger(n) && n >= 1 ? Math.min(n, 1_000_000) : 10_000;
}

class QueryPanel extends PanelHost {
  private loaded: Q.DidLoadParams | undefined;
  /** What a restored panel knows of its run (its label and files, for the "no longer open" message). */
  private restored: Q.QueryViewState | undefined;
  private gone: Q.RunGoneParams | undefined;
  private query: vscode.CancellationTokenSource | undefined;
  private exporting: vscode.CancellationTokenSource | undefined;

  constructor(
    panel: vscode.WebviewPanel,
    public runId: string,
    private readonly runs: RunManager,
    extensionUri: vscode.Uri,
    log: vscode.LogOutputChannel,
    onGone: () => void,
    restored?: Q.QueryViewState,
    private readonly reopened?: (from: string, to: string) => void,
  ) {
    super(panel, 'query', extensionUri, log, onGone);
    this.restored = restored;
    this.onActive = () => runs.catalog.select(this.runId);
    this.channel.onRequest(Q.Run, ({ sql }) => this.run(sql));
    this.channel.onNotification(Q.ExportCsv, ({ sql }) => void this.exportCsv(sql));
    this.channel.onNotification(Q.Cancel, ({ what }) => (what === 'query' ? this.query : this.exporting)?.cancel());
    this.channel.onNotification(Q.Reopen, () => void this.reopen());
  }

  /** One query at a time: a newer one cancels the one in flight (the webview shows only the newest answer). */
  private async run(sql: string): Promise<Q.QueryAnswer> {
    this.query?.cancel();
    const cts = new vscode.CancellationTokenSource();
    this.query = cts;
    const t0 = performance.now();
    try {
      const key = await this.runs.ensure(this.runId);
      return await this.runs.client.job(P.RunSql, { key, sql, max_rows: maxRows() }, undefined, cts.token);
    } catch (err) {
      if (!(err instanceof CancelledError)) throw err;
      return { columns: [], types: [], rows: [], truncated: false, ms: performance.now() - t0, error: null, cancelled: true };
    } finally {
      if (this.query === cts) this.query = undefined;
      cts.dispose();
    }
  }

  async load(): Promise<void> {
    const entry = this.runs.catalog.get(this.runId);
    if (entry === undefined) {
      const r = this.restored;
      this.gone = { label: r?.label ?? 'this run', sql: r?.sql ?? FIRST_QUERY, can_reopen: r !== undefined && r.inputs.run.length + r.inputs.spans.length > 0 };
      this.send();
      return;
    }
    try {
      const { views, version } = await this.runs.ask(this.runId, P.ViewDocs, {});
      const sql = this.loaded?.sql ?? this.restored?.sql ?? FIRST_QUERY;
      this.gone = undefined;
      this.loaded = { run: entry.label, views, views_version: version, max_rows: maxRows(), sql, state: { run: this.runId, label: entry.label, inputs: entry.inputs } };
      this.panel.title = `Query: ${entry.label}`;
      this.send();
    } catch (err) {
      this.showError({ message: `The run's views could not be listed: ${err instanceof Error ? err.message : String(err)}` });
    }
  }

  /** Open Run… on the saved files of a run that is gone, then this panel queries it. */
  private async reopen(): Promise<void> {
    const inputs: RunInputs | undefined = this.restored?.inputs;
    if (inputs === undefined) return;
    try {
      const entry = await this.runs.open(inputs);
      if (entry === undefined || this.isDisposed) return;
      const from = this.runId;
      this.runId = entry.id;
      this.reopened?.(from, entry.id);
      await this.load();
    } catch (err) {
      this.showError({ message: `The run could not be reopened: ${err instanceof Error ? err.message : String(err)}` });
    }
  }

  protected send(): void {
    if (this.gone !== undefined) this.channel.notify(Q.RunGone, this.gone);
    else if (this.loaded !== undefined) this.channel.notify(Q.DidLoad, this.loaded);
  }

  override dispose(): void {
    this.query?.cancel();
    this.exporting?.cancel();
    super.dispose();
  }

  /** Asks where (unless `target`), writes every row as CSV with progress and cancel; returns the file. */
  async exportCsv(sql: string, target?: string): Promise<string | undefined> {
    const entry = this.runs.catalog.get(this.runId);
    const folder = vscode.workspace.workspaceFolders?.[0]?.uri ?? vscode.Uri.file(os.homedir());
    const file = target ?? (await vscode.window.showSaveDialog({ title: `Phasewise: export the query's rows of ${entry?.label ?? 'the run'} as CSV`, defaultUri: vscode.Uri.joinPath(folder, 'query.csv'), filters: { CSV: ['csv'] } }))?.fsPath;
    if (file === undefined) {
      this.channel.notify(Q.Exported, { status: 'cancelled', message: 'Export cancelled.' });
      return undefined;
    }
    try {
      const key = await this.runs.ensure(this.runId);
      // Cancelled from the notification or from the view's own Cancel.
      const cts = new vscode.CancellationTokenSource();
      this.exporting = cts;
      let written: { rows: number; bytes: number };
      try {
        written = await vscode.window.withProgress({ location: vscode.ProgressLocation.Notification, title: `Phasewise: writing ${path.basename(file)}`, cancellable: true }, (_p, token) => {
          token.onCancellationRequested(() => cts.cancel());
          return this.runs.client.job(P.SqlToCsv, { key, sql, path: file }, undefined, cts.token);
        });
      } finally {
        if (this.exporting === cts) this.exporting = undefined;
        cts.dispose();
      }
      const { rows, bytes } = written;
      this.channel.notify(Q.Exported, { status: 'written', message: `${rows.toLocaleString('en-US')} rows written to ${file} (${(bytes / 1024).toFixed(0)} KB).` });
      return file;
    } catch (err) {
      const text = showRunError(err, 'export', this.output);
      this.channel.notify(Q.Exported, text === undefined ? { status: 'cancelled', message: 'Export cancelled.' } : { status: 'failed', message: text });
      return undefined;
    }
  }
}

export class QueryPanels implements vscode.WebviewPanelSerializer<Q.QueryViewState>, vscode.Disposable {
  private readonly panels = new Map<string, QueryPanel>();

  constructor(
    private readonly runs: RunManager,
    private readonly extensionUri: vscode.Uri,
    private readonly log: vscode.LogOutputChannel,
  ) {}

  /** Shows the run's query panel (created, or revealed). */
  async show(runId: string): Promise<void> {
    const existing = this.panels.get(runId);
    if (existing !== undefined) {
      existing.panel.reveal();
      return;
    }
    const label = this.runs.catalog.get(runId)?.label ?? 'run';
    const panel = vscode.window.createWebviewPanel(QUERY_VIEW_TYPE, `Query: ${label}`, vscode.ViewColumn.Active, { enableScripts: true, enableFindWidget: true, retainContextWhenHidden: true });
    await this.adopt(panel, runId).load();
  }

  /** After a window reload: the run's panel with its saved text, or the "no longer open" message. */
  async deserializeWebviewPanel(panel: vscode.WebviewPanel, state: unknown): Promise<void> {
    if (Q.queryViewState.check(state, 'state') !== undefined) {
      // No state (saved by an older build): nothing to restore into.
      panel.dispose();
      return;
    }
    const saved = state as Q.QueryViewState;
    if (this.panels.has(saved.run)) {
      panel.dispose();
      return;
    }
    await this.adopt(panel, saved.run, saved).load();
  }

  private adopt(panel: vscode.WebviewPanel, runId: string, restored?: Q.QueryViewState): QueryPanel {
    const p: QueryPanel = new QueryPanel(
      panel,
      runId,
      this.runs,
      this.extensionUri,
      this.log,
      () => {
        if (this.panels.get(p.runId) === p) this.panels.delete(p.runId);
      },
      restored,
      (from, to) => {
        if (this.panels.get(from) === p) this.panels.delete(from);
        this.panels.get(to)?.dispose();
        this.panels.set(to, p);
      },
    );
    this.panels.set(runId, p);
    return p;
  }

  /** Writes the rows of `sql` on the run's panel to `target` (the integration suite's entry). */
  exportCsv(runId: string, sql: string, target: string): Promise<string | undefined> {
    const p = this.panels.get(runId);
    return p === undefined ? Promise.resolve(undefined) : p.exportCsv(sql, target);
  }

  close(runId: string): void {
    this.panels.get(runId)?.dispose();
  }

  all(): { runId: string; host: PanelHost }[] {
    return [...this.panels].map(([runId, host]) => ({ runId, host }));
  }

  dispose(): void {
    for (const p of [...this.panels.values()]) p.dispose();
  }
}
