/**
 * Query Run…: one panel per run with a SQL box over its documented views. Each query runs on the run
 * worker through the read-only session of `phasewise sql` (the core's checks: one SELECT, external
 * access off); Export CSV writes every row of the query as `phasewise sql --format csv` does.
 */
import * as os from 'os';
import * as path from 'path';
import * as vscode from 'vscode';
import * as Q from '../../protocol/query';
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

  constructor(
    panel: vscode.WebviewPanel,
    readonly runId: string,
    private readonly runs: RunManager,
    extensionUri: vscode.Uri,
    log: vscode.LogOutputChannel,
    onGone: () => void,
  ) {
    super(panel, 'query', extensionUri, log, onGone);
    this.onActive = () => runs.catalog.select(runId);
    this.channel.onRequest(Q.Run, async ({ sql }) => {
      const key = await runs.ensure(runId);
      return runs.client.job(P.RunSql, { key, sql, max_rows: maxRows() });
    });
    this.channel.onNotification(Q.ExportCsv, ({ sql }) => void this.exportCsv(sql));
  }

  async load(): Promise<void> {
    try {
      const { views, version } = await this.runs.ask(this.runId, P.ViewDocs, {});
      const entry = this.runs.catalog.get(this.runId);
      this.loaded = { run: entry?.label ?? this.runId, views, views_version: version, max_rows: maxRows(), sql: this.loaded?.sql ?? FIRST_QUERY };
      this.send();
    } catch (err) {
      this.showError({ message: `The run's views could not be listed: ${err instanceof Error ? err.message : String(err)}` });
    }
  }

  protected send(): void {
    if (this.loaded !== undefined) this.channel.notify(Q.DidLoad, this.loaded);
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
      const { rows, bytes } = await vscode.window.withProgress({ location: vscode.ProgressLocation.Notification, title: `Phasewise: writing ${path.basename(file)}`, cancellable: true }, (_p, token) =>
        this.runs.client.job(P.SqlToCsv, { key, sql, path: file }, undefined, token),
      );
      this.channel.notify(Q.Exported, { status: 'written', message: `${rows.toLocaleString('en-US')} rows written to ${file} (${(bytes / 1024).toFixed(0)} KB).` });
      return file;
    } catch (err) {
      const text = showRunError(err, 'export', this.output);
      this.channel.notify(Q.Exported, text === undefined ? { status: 'cancelled', message: 'Export cancelled.' } : { status: 'failed', message: text });
      return undefined;
    }
  }
}

export class QueryPanels implements vscode.Disposable {
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
    const p = new QueryPanel(panel, runId, this.runs, this.extensionUri, this.log, () => {
      if (this.panels.get(runId) === p) this.panels.delete(runId);
    });
    this.panels.set(runId, p);
    await p.load();
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
