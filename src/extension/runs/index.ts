/**
 * The editor's runs, assembled once at activation (nothing here starts the worker or touches a
 * database): the catalog, the run worker's client, the Runs and Slow Traces views, the status bar
 * item, the report and waterfall panels with their serializers, and the commands on runs.
 */
import * as vscode from 'vscode';
import { addFilesCommand, openRunCommand } from '../commands/openRun';
import {
  analyzeRunCommand,
  clearCacheCommand,
  copyTraceIdCommand,
  exportReportCommand,
  orderSlowTracesCommand,
  reanalyzeCommand,
  reloadRunCommand,
  removeRunCommand,
  showReportCommand,
  showTraceCommand,
  type RunCommandDeps,
} from '../commands/runCommands';
import { compareRunsCommand, computeComparison, exportPairsCommand, queryRunCommand } from '../commands/compareCommands';
import { COMPARE_VIEW_TYPE, ComparePanels } from '../panels/comparePanel';
import type { LoggedMessage } from '../panels/panelHost';
import { QUERY_VIEW_TYPE, QueryPanels } from '../panels/queryPanel';
import { REPORT_VIEW_TYPE, ReportPanels } from '../panels/reportPanel';
import { WATERFALL_VIEW_TYPE, WaterfallPanels } from '../panels/waterfallPanel';
import type { Registry } from '../registry';
import { RunsTree, type RunNode } from '../views/runsView';
import { SlowTracesTree } from '../views/slowTracesView';
import { VerdictStatusBar } from '../views/statusBar';
import { RunCatalog, type RunEntry } from './runCatalog';
import { RunClient, type ReceiverEventMessage } from './runClient';
import { RunManager } from './runManager';
import { affectsAnalysis } from './settings';

/** What the integration suite reads and drives (through the extension's exports). */
export interface TestHooks {
  panels(): { view: 'report' | 'waterfall' | 'query'; runId: string; traceId: string | null; title: string; messages: LoggedMessage[] }[];
  /** Comparison panels by BASE and HEAD (run ids, or database files). */
  comparePanels(): { base: string; head: string; title: string; messages: LoggedMessage[] }[];
  /** Feeds a message to a panel as if its webview had sent it. */
  deliver(view: 'report' | 'waterfall' | 'query', runId: string, traceId: string | null, message: unknown): boolean;
  /** Query Run…'s Export CSV of `sql` on the run's open query panel, to `target` (no dialog). */
  exportQueryCsv(runId: string, sql: string, target: string): Promise<string | undefined>;
  slowTraces(): SlowTracesTree['listed'];
  runs(): RunEntry[];
  statusBarText(): string;
  workerStarted(): boolean;
  /** The Runs view's tree items under a node (undefined: the runs). */
  runItems(node?: RunNode): { node: RunNode; item: vscode.TreeItem }[];
  /** Drops files onto the Runs view (as the Explorer or the OS would). */
  drop(paths: string[]): Promise<void>;
}

export interface RunFeatures {
  runs: RunManager;
  reports: ReportPanels;
  waterfalls: WaterfallPanels;
  testHooks: TestHooks;
}

export function registerRunFeatures(registry: Registry, context: vscode.ExtensionContext, onReceiverEvent: (e: ReceiverEventMessage) => void): RunFeatures {
  const log = registry.log;
  const client = new RunClient({
    onLog: (level, m) => log[level](m),
    onReceiverEvent,
    onExit: (detail) => log.warn(`${detail}; it restarts on the next request`),
  });
  const catalog = new RunCatalog(context.workspaceState);
  const runs = new RunManager(catalog, client, () => context.globalStorageUri.fsPath, log);
  const waterfalls = new WaterfallPanels({ extensionUri: context.extensionUri, runs, log });
  const reports = new ReportPanels({ extensionUri: context.extensionUri, runs, log, openTrace: waterfalls.show });
  const compares = new ComparePanels(context.extensionUri, log, runs, computeComparison(runs));
  const queries = new QueryPanels(runs, context.extensionUri, log);
  const showReport = (runId: string): Promise<void> => reports.show(runId);
  const openDeps = { runs, log, showReport };

  const runsTree = new RunsTree(catalog, (uris) => openRunCommand(openDeps)(uris[0], uris));
  const runsView = vscode.window.createTreeView('phasewise.runs', { treeDataProvider: runsTree, dragAndDropController: runsTree, showCollapseAll: true, canSelectMany: false });
  const slowTree = new SlowTracesTree(catalog, runs, log);
  const slowView = vscode.window.createTreeView('phasewise.slowTraces', { treeDataProvider: slowTree });
  slowTree.view = slowView;
  const status = new VerdictStatusBar(catalog);

  // Selecting anything of a run selects the run (the Slow Traces view and the status bar follow it).
  runsView.onDidChangeSelection((e) => {
    const node = e.selection[0];
    if (node !== undefined) catalog.select(node.runId);
  });
  // …and the other way: a run selected elsewhere (opened, its report brought to the front) is shown
  // selected in the tree, without taking the focus.
  catalog.onDidChangeSelection((r) => {
    if (r === undefined || !runsView.visible || runsView.selection[0]?.runId === r.id) return;
    void Promise.resolve(runsView.reveal(runsTree.runNode(r.id), { select: true, focus: false })).catch(() => undefined);
  });
  const setContext = (): void => {
    void vscode.commands.executeCommand('setContext', 'phasewise.hasSelectedRun', catalog.selected !== undefined);
    void vscode.commands.executeCommand('setContext', 'phasewise.hasRuns', catalog.list().length > 0);
  };
  catalog.onDidChangeSelection(setContext);
  catalog.onDidChange(setContext);
  setContext();

  // A new analysis of a run refreshes its open report and waterfalls.
  const analysedAt = new Map<string, number>();
  catalog.onDidChange((e) => {
    if (e?.summary === null || e === undefined) return;
    const at = e.summary.analyzed_at;
    const before = analysedAt.get(e.id);
    analysedAt.set(e.id, at);
    if (before !== undefined && before !== at) {
      reports.refresh(e.id);
      waterfalls.refreshRun(e.id);
    }
  });
  for (const r of catalog.list()) if (r.summary !== null) analysedAt.set(r.id, r.summary.analyzed_at);

  const deps: RunCommandDeps = { ...openDeps, showTrace: waterfalls.show, reloadSlowTraces: () => slowTree.reload(true) };
  registry.registerCommand('openRun', openRunCommand(openDeps));
  registry.registerCommand('openAsRun', openRunCommand(openDeps));
  registry.registerCommand('analyzeRun', analyzeRunCommand(deps));
  registry.registerCommand('addSpanExport', addFilesCommand(openDeps, 'spans'));
  registry.registerCommand('addRunArtifact', addFilesCommand(openDeps, 'run'));
  registry.registerCommand('addToRun', addFilesCommand(openDeps, 'any'));
  registry.registerCommand('showReport', showReportCommand(deps));
  registry.registerCommand('reanalyzeWithContract', reanalyzeCommand(deps));
  registry.registerCommand('reanalyzeWithThisContract', reanalyzeCommand(deps));
  registry.registerCommand('exportReport', exportReportCommand(deps));
  registry.registerCommand('removeRun', removeRunCommand({ ...deps, closePanels: (id) => (reports.close(id), waterfalls.closeRun(id), queries.close(id)) }));
  registry.registerCommand('reloadRun', reloadRunCommand(deps));
  registry.registerCommand('clearRunCache', clearCacheCommand(deps));
  registry.registerCommand('showTrace', showTraceCommand(deps));
  registry.registerCommand('openTrace', async (runId: unknown, traceId: unknown) => {
    if (typeof runId !== 'string' || typeof traceId !== 'string') return false;
    await waterfalls.show(runId, traceId);
    return true;
  });
  registry.registerCommand('orderSlowTraces', orderSlowTracesCommand(deps));
  registry.registerCommand('copyTraceId', copyTraceIdCommand());
  const compareDeps = { runs, log, compares, queries };
  registry.registerCommand('compareRuns', compareRunsCommand(compareDeps));
  registry.registerCommand('queryRun', queryRunCommand(compareDeps));
  registry.registerCommand('exportPairs', exportPairsCommand(compareDeps));

  registry.subscribe(
    catalog,
    runsView,
    slowView,
    status,
    reports,
    waterfalls,
    compares,
    queries,
    vscode.window.registerWebviewPanelSerializer(REPORT_VIEW_TYPE, reports),
    vscode.window.registerWebviewPanelSerializer(WATERFALL_VIEW_TYPE, waterfalls),
    vscode.window.registerWebviewPanelSerializer(COMPARE_VIEW_TYPE, compares),
    vscode.window.registerWebviewPanelSerializer(QUERY_VIEW_TYPE, queries),
    vscode.workspace.onDidChangeConfiguration((e) => {
      if (affectsAnalysis(e)) void runs.settingsChanged();
      if (e.affectsConfiguration('phasewise.slowTraces')) void slowTree.reload(true);
    }),
    { dispose: () => void client.dispose() },
  );
  // Off activation's path: which runs' files changed on disk since they were loaded (a few stats).
  const stale = setTimeout(() => void runs.checkStale().catch((err: unknown) => log.warn(`checking the runs' files: ${String(err)}`)), 1000);
  registry.subscribe({ dispose: () => clearTimeout(stale) });
  void slowTree.reload();

  const testHooks: TestHooks = {
    panels: () => [
      ...reports.all().map((p) => ({ view: 'report' as const, runId: p.runId, traceId: null, title: p.host.panel.title, messages: [...p.host.log] })),
      ...waterfalls.all().map((p) => ({ view: 'waterfall' as const, runId: p.runId, traceId: p.traceId, title: p.host.panel.title, messages: [...p.host.log] })),
      ...queries.all().map((p) => ({ view: 'query' as const, runId: p.runId, traceId: null, title: p.host.panel.title, messages: [...p.host.log] })),
    ],
    comparePanels: () => compares.all().map((p) => ({ base: p.base, head: p.head, title: p.host.panel.title, messages: [...p.host.log] })),
    deliver: (view, runId, traceId, message) => {
      const host =
        view === 'report'
          ? reports.all().find((p) => p.runId === runId)?.host
          : view === 'query'
            ? queries.all().find((p) => p.runId === runId)?.host
            : waterfalls.all().find((p) => p.runId === runId && p.traceId === traceId)?.host;
      return host?.deliver(message) ?? false;
    },
    exportQueryCsv: (runId, sql, target) => queries.exportCsv(runId, sql, target),
    slowTraces: () => slowTree.listed,
    runs: () => catalog.list(),
    statusBarText: () => status.text,
    workerStarted: () => client.started,
    runItems: (node) => runsTree.getChildren(node).map((n) => ({ node: n, item: runsTree.getTreeItem(n) })),
    drop: (paths) => {
      const data = new vscode.DataTransfer();
      data.set('text/uri-list', new vscode.DataTransferItem(paths.map((p) => vscode.Uri.file(p).toString()).join('\r\n')));
      return runsTree.handleDrop(undefined, data);
    },
  };
  return { runs, reports, waterfalls, testHooks };
}
