/**
 * The commands on a run (the Runs view's context menu, the palette acting on the selected run):
 * Show Report, Re-analyse with Contract…, Export Report…, Remove, Reload, Clear Run Cache, Show Trace…,
 * Order Slow Traces By…, Copy Trace ID, and Analyze Run… (the palette's older entry point: it opens the
 * files as a run and returns the Report to executeCommand callers).
 */
import * as path from 'path';
import * as vscode from 'vscode';
import type { Report } from '../../core/report/model';
import { normalizeTraceId } from '../../core/traceId';
import { exportReportTo } from '../panels/exports';
import type { RunManager } from '../runs/runManager';
import { ORDER_LABELS, slowTraceOrder, SLOW_TRACE_ORDERS } from '../runs/settings';
import { showRunError } from '../runs/showError';
import * as P from '../runs/workerProtocol';
import { openRunCommand, targetRun, type OpenDeps } from './openRun';

export interface RunCommandDeps extends OpenDeps {
  runs: RunManager;
  showTrace: (runId: string, traceId: string) => Promise<void>;
  /** The Slow Traces view re-reads its list. */
  reloadSlowTraces: () => Promise<void>;
}

function noRun(): undefined {
  void vscode.window.showErrorMessage('Phasewise: no run selected: open one with Phasewise: Open Run… or pick one in the Runs view');
  return undefined;
}

export function showReportCommand(deps: RunCommandDeps): (arg?: unknown) => Promise<boolean> {
  return async (arg) => {
    const r = targetRun(deps.runs, arg);
    if (r === undefined) return noRun() ?? false;
    deps.runs.catalog.select(r.id);
    await deps.showReport(r.id);
    return true;
  };
}

/** Re-analyse with Contract…: a contract of the workspace, another file, or none; `contract` skips the pick (null: none). */
export function reanalyzeCommand(deps: RunCommandDeps): (arg?: unknown, contract?: unknown) => Promise<P.RunSummary | undefined> {
  return async (arg, contractArg) => {
    // From the Explorer on a contract file: the selected run with that contract.
    const fromExplorer = arg instanceof vscode.Uri ? arg.fsPath : undefined;
    const r = targetRun(deps.runs, fromExplorer !== undefined ? undefined : arg);
    if (r === undefined) return noRun();
    let contract: string | null | undefined = fromExplorer ?? (typeof contractArg === 'string' || contractArg === null ? (contractArg as string | null) : undefined);
    if (contract === undefined) {
      const found = await vscode.workspace.findFiles('**/*.loadcontract.{yaml,yml,json}', '**/node_modules/**', 200);
      type Item = vscode.QuickPickItem & { pick: string | null | 'browse' };
      const items: Item[] = [
        ...found.map((u): Item => ({ label: path.basename(u.fsPath), description: vscode.workspace.asRelativePath(u), pick: u.fsPath, picked: u.fsPath === r.inputs.contract })),
        { label: '$(folder-opened) Browse…', pick: 'browse' },
        { label: '$(circle-slash) No contract', description: 'figures only: no gates, verdict not evaluated', pick: null },
      ];
      const chosen = await vscode.window.showQuickPick(items, { title: `Phasewise: re-analyse ${r.label} with which load contract?`, placeHolder: r.inputs.contract !== null ? `now: ${path.basename(r.inputs.contract)}` : 'now: no contract' });
      if (chosen === undefined) return undefined;
      if (chosen.pick === 'browse') {
        const uri = await vscode.window.showOpenDialog({ canSelectMany: false, filters: { 'Load contract': ['yaml', 'yml', 'json'] }, title: 'Phasewise: the load contract' });
        if (uri === undefined) return undefined;
        contract = uri[0].fsPath;
      } else contract = chosen.pick;
    }
    // A contract open with unsaved edits is analysed as saved on disk: say so rather than surprise.
    const dirty = vscode.workspace.textDocuments.find((d) => d.uri.fsPath === contract && d.isDirty);
    if (dirty !== undefined) await dirty.save();
    return deps.runs.analyze(r.id, contract);
  };
}

export function exportReportCommand(deps: RunCommandDeps): (arg?: unknown, options?: unknown) => Promise<string | undefined> {
  return async (arg, options) => {
    const r = targetRun(deps.runs, arg);
    if (r === undefined) return noRun();
    const given = options !== null && typeof options === 'object' ? (options as { format?: unknown; path?: unknown }) : {};
    let format: 'markdown' | 'json' | 'html' | undefined = given.format === 'markdown' || given.format === 'json' || given.format === 'html' ? given.format : undefined;
    if (format === undefined) {
      const pick = await vscode.window.showQuickPick(
        [
          { label: 'Markdown', description: 'the report as text', format: 'markdown' as const },
          { label: 'JSON', description: 'the report model (phasewise analyze --format json)', format: 'json' as const },
          { label: 'HTML', description: 'one self-contained file: charts, and the waterfall of every slow trace', format: 'html' as const },
        ],
        { title: `Phasewise: export the report of ${r.label} as` },
      );
      if (pick === undefined) return undefined;
      format = pick.format;
    }
    return exportReportTo(deps.runs, r.id, format, deps.log, typeof given.path === 'string' ? given.path : undefined);
  };
}

export function removeRunCommand(deps: RunCommandDeps & { closePanels: (runId: string) => void }): (arg?: unknown) => Promise<boolean> {
  return async (arg) => {
    const r = targetRun(deps.runs, arg);
    if (r === undefined) return false;
    if (r.activity.kind === 'live') {
      void vscode.window.showErrorMessage('Phasewise: stop the trace receiver before removing its live run');
      return false;
    }
    deps.closePanels(r.id);
    await deps.runs.remove(r.id);
    return true;
  };
}

/** Reload Run: the files changed on disk; load their new content (a new cache database). */
export function reloadRunCommand(deps: RunCommandDeps): (arg?: unknown) => Promise<P.RunSummary | undefined> {
  return async (arg) => {
    const r = targetRun(deps.runs, arg);
    if (r === undefined) return noRun();
    const done = await deps.runs.open(r.inputs, { extend: r.id, title: `Phasewise: reloading ${r.label}` });
    return done?.summary ?? undefined;
  };
}

export function clearCacheCommand(deps: RunCommandDeps): (confirmed?: unknown) => Promise<number | undefined> {
  return async (confirmed) => {
    if (confirmed !== true) {
      const ok = await vscode.window.showWarningMessage(
        'Phasewise: delete every cached run database? The runs stay listed and are loaded from their files again when opened.',
        { modal: true },
        'Clear Run Cache',
      );
      if (ok !== 'Clear Run Cache') return undefined;
    }
    try {
      const deleted = await deps.runs.clearCache();
      deps.log.info(`run cache: deleted ${deleted} files`);
      void vscode.window.showInformationMessage(`Phasewise: run cache cleared (${deleted} file${deleted === 1 ? '' : 's'} deleted)`);
      return deleted;
    } catch (err) {
      showRunError(err, 'clear run cache', deps.log);
      return undefined;
    }
  };
}

/** Show Trace…: any trace ID of the run (typed or pasted); `traceId` skips the prompt. */
export function showTraceCommand(deps: RunCommandDeps): (arg?: unknown, traceId?: unknown) => Promise<boolean> {
  return async (arg, traceArg) => {
    const r = targetRun(deps.runs, arg);
    if (r === undefined) return noRun() ?? false;
    const raw =
      typeof traceArg === 'string'
        ? traceArg
        : await vscode.window.showInputBox({
            title: `Phasewise: show a trace of ${r.label}`,
            prompt: 'A W3C trace ID (32 hex digits) or a 16-digit Zipkin ID',
            placeHolder: r.summary?.slow_traces[0]?.trace.trace_id ?? '4bf92f3577b34da6a3ce929d0e0e4736',
            validateInput: (v) => (v.trim() === '' || normalizeTraceId(v) !== undefined ? undefined : 'expected 32 hex digits (or 16), not all zero'),
          });
    if (raw === undefined || raw.trim() === '') return false;
    const id = normalizeTraceId(raw);
    if (id === undefined) {
      void vscode.window.showErrorMessage(`Phasewise: '${raw.slice(0, 80)}' is not a trace ID (32 hex digits, or 16 for Zipkin)`);
      return false;
    }
    try {
      const { trace } = await deps.runs.ask(r.id, P.Trace, { trace_id: id });
      if (trace === null) {
        void vscode.window.showErrorMessage(`Phasewise: trace ${id} is in neither the client files nor the span exports of ${r.label}`);
        return false;
      }
    } catch (err) {
      showRunError(err, 'show trace', deps.log);
      return false;
    }
    await deps.showTrace(r.id, id);
    return true;
  };
}

export function orderSlowTracesCommand(deps: RunCommandDeps): (order?: unknown) => Promise<string | undefined> {
  return async (orderArg) => {
    let order = typeof orderArg === 'string' && (SLOW_TRACE_ORDERS as readonly string[]).includes(orderArg) ? orderArg : undefined;
    if (order === undefined) {
      const now = slowTraceOrder();
      const pick = await vscode.window.showQuickPick(
        SLOW_TRACE_ORDERS.map((o) => ({ label: ORDER_LABELS[o], description: o === now ? 'current' : undefined, order: o })),
        { title: 'Phasewise: order slow traces by' },
      );
      if (pick === undefined) return undefined;
      order = pick.order;
    }
    const config = vscode.workspace.getConfiguration('phasewise');
    const target = config.inspect('slowTraces.orderBy')?.workspaceValue !== undefined ? vscode.ConfigurationTarget.Workspace : vscode.ConfigurationTarget.Global;
    await config.update('slowTraces.orderBy', order, target);
    await deps.reloadSlowTraces();
    return order;
  };
}

export function copyTraceIdCommand(): (node?: unknown) => Promise<string | undefined> {
  return async (node) => {
    const id = (node as { row?: { trace?: { trace_id?: unknown } } } | undefined)?.row?.trace?.trace_id;
    if (typeof id !== 'string') return undefined;
    await vscode.env.clipboard.writeText(id);
    vscode.window.setStatusBarMessage(`Phasewise: copied trace ID ${id}`, 3000);
    return id;
  };
}

/** Arguments of Analyze Run… for programmatic callers (they get the Report; the user gets the report panel). */
interface AnalyzeRunArgs {
  run?: string[];
  spans?: string[];
  contract?: string;
}

function isAnalyzeArgs(value: unknown): value is AnalyzeRunArgs {
  if (value === null || typeof value !== 'object') return false;
  const v = value as Record<string, unknown>;
  const list = (x: unknown): boolean => x === undefined || (Array.isArray(x) && x.every((e) => typeof e === 'string'));
  return ('run' in v || 'spans' in v) && list(v.run) && list(v.spans) && (v.contract === undefined || typeof v.contract === 'string');
}

/** `Phasewise: Analyze Run…`: Open Run…, resolving to the Report model (the CLI's `--format json`). */
export function analyzeRunCommand(deps: RunCommandDeps): (args?: unknown) => Promise<Report | undefined> {
  const open = openRunCommand(deps);
  return async (args) => {
    const opened = isAnalyzeArgs(args) ? await open({ run: args.run ?? [], spans: args.spans ?? [], contract: args.contract ?? null }) : await open();
    if (opened === undefined) return undefined;
    const { report } = await deps.runs.ask(opened.runId, P.GetReport, {});
    return JSON.parse(report) as Report;
  };
}
