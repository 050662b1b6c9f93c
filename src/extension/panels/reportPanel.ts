/**
 * The run report: one panel per run, reused (shown again, refreshed after a re-analysis), restored by
 * a WebviewPanelSerializer after a reload from the state the webview saved. Every request of the
 * report protocol is answered: a window's or a histogram bucket's traces (the worker's listTraces),
 * open a trace (its waterfall), open the contract at a gate's line, export, copy.
 */
import * as vscode from 'vscode';
import * as R from '../../protocol/report';
import type { JsonText } from '../../protocol/schema';
import type { ReportViewModel } from '../../core/report/view/types';
import type { RunManager } from '../runs/runManager';
import * as P from '../runs/workerProtocol';
import { openAt } from '../runs/showError';
import { PanelHost } from './panelHost';
import { exportReportTo } from './exports';

export const REPORT_VIEW_TYPE = 'phasewise.report';

export interface PanelDeps {
  extensionUri: vscode.Uri;
  runs: RunManager;
  log: vscode.LogOutputChannel;
  /** Opens a trace's waterfall (WaterfallPanels.show). */
  openTrace: (runId: string, traceId: string) => Promise<void>;
}

class ReportPanel extends PanelHost {
  private model: JsonText<ReportViewModel> | undefined;

  constructor(
    panel: vscode.WebviewPanel,
    readonly runId: string,
    private readonly deps: PanelDeps,
    state: R.ReportViewState | null,
    onGone: () => void,
  ) {
    super(panel, 'report', deps.extensionUri, deps.log, onGone);
    this.savedState = state;
    this.onActive = () => deps.runs.catalog.select(runId);
    this.channel.onRequest(R.ListTraces, (p) => deps.runs.ask(runId, P.ListTraces, { selection: p.selection, limit: p.limit }));
    this.channel.onNotification(R.OpenTrace, (p) => void deps.openTrace(runId, p.trace_id));
    this.channel.onNotification(R.OpenContract, (p) => void openAt(p.path, p.line).catch((err: unknown) => this.showError({ message: `Cannot open the contract ${p.path}: ${err instanceof Error ? err.message : String(err)}` })));
    this.channel.onNotification(R.ExportReport, (p) => void exportReportTo(deps.runs, runId, p.format, deps.log));
    this.channel.onNotification(R.SaveState, (p) => (this.savedState = p.state));
  }

  /** Fetches the report model of the run's current analysis and shows it (again, after a re-analysis). */
  refresh(): Promise<void> {
    return (async () => {
      try {
        const { model } = await this.deps.runs.ask(this.runId, P.ReportView, {});
        if (this.isDisposed) return;
        this.model = model;
        const entry = this.deps.runs.catalog.get(this.runId);
        if (entry !== undefined) this.panel.title = `Report: ${entry.label}`;
        this.send();
      } catch (err) {
        this.showError({ message: `The report could not be built: ${err instanceof Error ? err.message : String(err)}` });
      }
    })();
  }


  /** Queued by the channel until the webview is ready. */
  protected send(): void {
    if (this.model === undefined) return;
    this.channel.notify(R.DidLoad, { run: this.runId, model: this.model, state: (this.savedState as R.ReportViewState | null) ?? null });
  }

}

export class ReportPanels implements vscode.WebviewPanelSerializer<R.ReportViewState>, vscode.Disposable {
  private readonly panels = new Map<string, ReportPanel>();

  constructor(private readonly deps: PanelDeps) {}

  /** Shows the run's report, creating its panel or revealing (and refreshing) the one it has. */
  async show(runId: string, column: vscode.ViewColumn = vscode.ViewColumn.Active): Promise<void> {
    const existing = this.panels.get(runId);
    if (existing !== undefined) {
      existing.panel.reveal(column);
      return existing.refresh();
    }
    const entry = this.deps.runs.catalog.get(runId);
    const panel = vscode.window.createWebviewPanel(REPORT_VIEW_TYPE, `Report: ${entry?.label ?? 'run'}`, column, {
      enableScripts: true,
      enableFindWidget: true,
      localResourceRoots: [vscode.Uri.joinPath(this.deps.extensionUri, 'dist', 'webview')],
    });
    await this.adopt(panel, runId, null).refresh();
  }

  /** The run was re-analysed: its open report shows the new analysis. */
  refresh(runId: string): void {
    void this.panels.get(runId)?.refresh();
  }

  close(runId: string): void {
    this.panels.get(runId)?.dispose();
  }

  async deserializeWebviewPanel(panel: vscode.WebviewPanel, state: R.ReportViewState | undefined): Promise<void> {
    const runId = state?.run ?? null;
    if (runId === null || this.deps.runs.catalog.get(runId) === undefined) {
      panel.dispose();
      return;
    }
    await this.adopt(panel, runId, state ?? null).refresh();
  }

  /** Open panels (the integration suite reads their message logs). */
  all(): { runId: string; host: PanelHost }[] {
    return [...this.panels].map(([runId, host]) => ({ runId, host }));
  }

  private adopt(panel: vscode.WebviewPanel, runId: string, state: R.ReportViewState | null): ReportPanel {
    const p = new ReportPanel(panel, runId, this.deps, state, () => {
      if (this.panels.get(runId) === p) this.panels.delete(runId);
    });
    this.panels.set(runId, p);
    return p;
  }

  dispose(): void {
    for (const p of [...this.panels.values()]) p.dispose();
  }
}
