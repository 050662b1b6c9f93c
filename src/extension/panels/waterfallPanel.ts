/**
 * The waterfall: one panel per trace (of a run), reused when the same trace is opened again, restored
 * after a reload by its serializer. Answers the waterfall protocol: compare with the typical trace of
 * the route, open another trace, export, selection and state for the serializer. A probe's trace gets
 * the probe's banner (the propagation check) on top.
 */
import * as vscode from 'vscode';
import type { TraceModel } from '../../core/analysis/trace/types';
import { normalizeTraceId } from '../../core/traceId';
import type { JsonText } from '../../protocol/schema';
import * as W from '../../protocol/waterfall';
import * as P from '../runs/workerProtocol';
import { exportTraceTo } from './exports';
import { PanelHost, type ViewName } from './panelHost';
import type { PanelDeps } from './reportPanel';

export const WATERFALL_VIEW_TYPE = 'phasewise.waterfall';

class WaterfallPanel extends PanelHost {
  private trace: JsonText<TraceModel> | null | undefined;
  selectedSpan: string | null = null;

  constructor(
    panel: vscode.WebviewPanel,
    readonly runId: string,
    readonly traceId: string,
    private readonly deps: Omit<PanelDeps, 'openTrace'> & { openTrace: (runId: string, traceId: string) => Promise<void> },
    state: W.WaterfallViewState | null,
    onGone: () => void,
  ) {
    super(panel, 'waterfall' satisfies ViewName, deps.extensionUri, deps.log, onGone);
    this.savedState = state;
    this.onActive = () => deps.runs.catalog.select(runId);
    this.channel.onRequest(W.Compare, (p) => deps.runs.ask(runId, P.Compare, { trace_id: p.trace_id }));
    this.channel.onNotification(W.Select, (p) => (this.selectedSpan = p.span_id));
    this.channel.onNotification(W.OpenTrace, (p) => void deps.openTrace(runId, p.trace_id));
    this.channel.onNotification(W.ExportTrace, (p) => void exportTraceTo(deps.runs, runId, traceId, p.format, deps.log));
    this.channel.onNotification(W.SaveState, (p) => (this.savedState = p.state));
  }

  async refresh(): Promise<void> {
    try {
      const { trace } = await this.deps.runs.ask(this.runId, P.Trace, { trace_id: this.traceId });
      if (this.isDisposed) return;
      this.trace = trace;
      if (trace === null) {
        this.showError({ message: `Trace ${this.traceId} is in neither side of this run.` });
        return;
      }
      this.send();
    } catch (err) {
      this.showError({ message: `The trace could not be read: ${err instanceof Error ? err.message : String(err)}` });
    }
  }

  protected send(): void {
    if (this.trace === undefined || this.trace === null) return;
    const probe = this.deps.runs.catalog.get(this.runId)?.probes?.[this.traceId] ?? null;
    const state = (this.savedState as W.WaterfallViewState | null) ?? null;
    this.channel.notify(W.DidLoad, { run: this.runId, trace: this.trace, state: state?.trace_id === this.traceId ? state : null, probe });
  }

}

export class WaterfallPanels implements vscode.WebviewPanelSerializer<W.WaterfallViewState>, vscode.Disposable {
  private readonly panels = new Map<string, WaterfallPanel>();

  constructor(private readonly deps: Omit<PanelDeps, 'openTrace'>) {}

  private static key(runId: string, traceId: string): string {
    return `${runId}\n${traceId}`;
  }

  /** Shows the trace's waterfall (beside the report), creating its panel or revealing the one it has. */
  show = async (runId: string, traceId: string): Promise<void> => {
    // The stored form (16-digit Zipkin IDs padded): one panel per trace however its ID was typed.
    const id = normalizeTraceId(traceId) ?? traceId.trim().toLowerCase();
    const existing = this.panels.get(WaterfallPanels.key(runId, id));
    if (existing !== undefined) {
      existing.panel.reveal(existing.panel.viewColumn ?? vscode.ViewColumn.Beside);
      return;
    }
    // Waterfalls share one editor group (the last one's), beside the report: not a new column per trace.
    const column = [...this.panels.values()].reverse().find((p) => p.panel.viewColumn !== undefined)?.panel.viewColumn ?? vscode.ViewColumn.Beside;
    const panel = vscode.window.createWebviewPanel(WATERFALL_VIEW_TYPE, `Trace ${id.slice(0, 8)}…`, { viewColumn: column, preserveFocus: false }, {
      enableScripts: true,
      enableFindWidget: true,
      localResourceRoots: [vscode.Uri.joinPath(this.deps.extensionUri, 'dist', 'webview')],
    });
    await this.adopt(panel, runId, id, null).refresh();
  };

  async deserializeWebviewPanel(panel: vscode.WebviewPanel, state: W.WaterfallViewState | undefined): Promise<void> {
    const runId = state?.run ?? null;
    if (state === undefined || runId === null || this.deps.runs.catalog.get(runId) === undefined) {
      panel.dispose();
      return;
    }
    await this.adopt(panel, runId, state.trace_id, state).refresh();
  }

  /** The run's analysis changed (another contract): its open waterfalls are read again. */
  refreshRun(runId: string): void {
    for (const p of this.panels.values()) if (p.runId === runId) void p.refresh();
  }

  closeRun(runId: string): void {
    for (const p of [...this.panels.values()]) if (p.runId === runId) p.dispose();
  }

  all(): { runId: string; traceId: string; host: PanelHost }[] {
    return [...this.panels.values()].map((p) => ({ runId: p.runId, traceId: p.traceId, host: p }));
  }

  private adopt(panel: vscode.WebviewPanel, runId: string, traceId: string, state: W.WaterfallViewState | null): WaterfallPanel {
    const key = WaterfallPanels.key(runId, traceId);
    const p = new WaterfallPanel(panel, runId, traceId, { ...this.deps, openTrace: this.show }, state, () => {
      if (this.panels.get(key) === p) this.panels.delete(key);
    });
    this.panels.set(key, p);
    return p;
  }

  dispose(): void {
    for (const p of [...this.panels.values()]) p.dispose();
  }
}
