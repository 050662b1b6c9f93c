/**
 * Opening runs: `Phasewise: Open Run…` (one dialog: run artifacts, span exports and optionally a
 * contract, or a folder whose files are sniffed), `Add Span Export…` / `Add Run Artifact…` to a run,
 * the Explorer's context menu, and drops onto the Runs view. Files are sorted by their content in the
 * worker; where the pick is ambiguous (a folder, two client formats, several contracts) a checklist
 * says what was recognised and lets the user choose.
 */
import * as path from 'path';
import * as vscode from 'vscode';
import type { RunEntry } from '../runs/runCatalog';
import type { RunManager } from '../runs/runManager';
import { showRunError } from '../runs/showError';
import * as P from '../runs/workerProtocol';

/** Arguments for programmatic callers (tests, tasks, other extensions): no dialog, no checklist. */
export interface OpenRunArgs {
  /** Files and folders, sorted by content like a dialog pick. */
  paths?: string[];
  run?: string[];
  spans?: string[];
  contract?: string | null;
  /** Open the report once analysed (default true). */
  showReport?: boolean;
}

export interface OpenDeps {
  runs: RunManager;
  log: vscode.LogOutputChannel;
  showReport: (runId: string) => Promise<void>;
}

interface PickItem extends vscode.QuickPickItem {
  file?: string;
  role?: 'run' | 'spans' | 'contract';
}

function isOpenArgs(v: unknown): v is OpenRunArgs {
  if (v === null || typeof v !== 'object' || v instanceof vscode.Uri) return false;
  const o = v as Record<string, unknown>;
  const list = (x: unknown): boolean => x === undefined || (Array.isArray(x) && x.every((e) => typeof e === 'string'));
  return ('paths' in o || 'run' in o || 'spans' in o) && list(o.paths) && list(o.run) && list(o.spans);
}

function classify(runs: RunManager, paths: readonly string[]): Thenable<P.Classification> {
  return vscode.window.withProgress({ location: vscode.ProgressLocation.Window, title: 'Phasewise: recognising files' }, () => runs.client.call(P.Classify, { paths: [...paths] }));
}

/**
 * The checklist for an ambiguous pick. Pre-checked: every span export; the client files of one
 * family (k6 output if there is any, else per-request records: two descriptions of the same requests
 * would count each twice); the contract when there is exactly one.
 */
async function confirmPick(c: P.Classification, title: string): Promise<P.RunInputs | undefined> {
  const k6 = c.run.filter((f) => f.format.startsWith('k6'));
  const client = k6.length > 0 ? k6 : c.run;
  const items: PickItem[] = [];
  const section = (label: string): void => void items.push({ label, kind: vscode.QuickPickItemKind.Separator });
  const base = (f: string): string => path.basename(f);
  if (c.run.length > 0) section('Run artifacts (client side)');
  for (const f of c.run) items.push({ label: base(f.path), description: f.format, detail: f.path, picked: client.includes(f), file: f.path, role: 'run' });
  if (c.spans.length > 0) section('Span exports (server side)');
  for (const f of c.spans) items.push({ label: base(f.path), description: f.format, detail: f.path, picked: true, file: f.path, role: 'spans' });
  if (c.contracts.length > 0) section('Load contract (one)');
  for (const f of c.contracts) items.push({ label: base(f), description: 'load contract', detail: f, picked: c.contracts.length === 1, file: f, role: 'contract' });
  const skipped = c.skipped.length > 0 ? ` · ${c.skipped.length} skipped (see the Phasewise log)` : '';
  const picked = await vscode.window.showQuickPick(items, { canPickMany: true, title: `${title}${skipped}`, placeHolder: 'Check the files that make up the run, then press Enter', ignoreFocusOut: true });
  if (picked === undefined) return undefined;
  const contracts = picked.filter((p) => p.role === 'contract').map((p) => p.file as string);
  let contract: string | null = contracts[0] ?? null;
  if (contracts.length > 1) {
    const one = await vscode.window.showQuickPick(contracts.map((f) => ({ label: base(f), detail: f, file: f })), { title: 'Phasewise: which load contract does the run claim?' });
    if (one === undefined) return undefined;
    contract = one.file;
  }
  return {
    run: picked.filter((p) => p.role === 'run').map((p) => p.file as string),
    spans: picked.filter((p) => p.role === 'spans').map((p) => p.file as string),
    contract,
  };
}

/** Sorts a pick into a run; asks only when it is ambiguous. Undefined when the user gave up or nothing is usable. */
async function inputsOf(deps: OpenDeps, paths: readonly string[], interactive: boolean): Promise<P.RunInputs | undefined> {
  const c = await classify(deps.runs, paths);
  for (const s of c.skipped) deps.log.warn(`open run: skipped ${s.reason}`);
  const ambiguous = c.folders.length > 0 || c.contracts.length > 1 || new Set(c.run.map((f) => f.format.startsWith('k6'))).size > 1 || (c.skipped.length > 0 && c.run.length + c.spans.length > 0);
  if (c.run.length + c.spans.length === 0) {
    const why = c.skipped[0]?.reason ?? 'no run artifact or span export among the files';
    void vscode.window.showErrorMessage(`Phasewise: nothing to open as a run: ${why}`);
    return undefined;
  }
  if (interactive && ambiguous) return confirmPick(c, 'Phasewise: Open Run');
  if (c.contracts.length > 1) throw new Error(`give one load contract, not ${c.contracts.length}`);
  return { run: c.run.map((f) => f.path), spans: c.spans.map((f) => f.path), contract: c.contracts[0] ?? null };
}

/** `Phasewise: Open Run…` and the Explorer's "Open as Phasewise Run"; resolves to the run opened. */
export function openRunCommand(deps: OpenDeps): (arg?: unknown, all?: unknown) => Promise<{ runId: string; summary: P.RunSummary | null } | undefined> {
  return async (arg, all) => {
    let inputs: P.RunInputs | undefined;
    let show = true;
    try {
      if (isOpenArgs(arg)) {
        show = arg.showReport !== false;
        inputs =
          arg.paths !== undefined
            ? await inputsOf(deps, arg.paths, false)
            : { run: arg.run ?? [], spans: arg.spans ?? [], contract: arg.contract ?? null };
      } else {
        // The Explorer passes the clicked resource and every selected one.
        const uris = Array.isArray(all) && all.every((u) => u instanceof vscode.Uri) ? (all as vscode.Uri[]) : arg instanceof vscode.Uri ? [arg] : undefined;
        const picked =
          uris ??
          (await vscode.window.showOpenDialog({
            canSelectFiles: true,
            canSelectFolders: true,
            canSelectMany: true,
            openLabel: 'Open Run',
            title: 'Phasewise: Open Run: run artifacts (k6, records), span exports (OTLP, Jaeger, Zipkin) and optionally a load contract, or their folder',
          }));
        if (picked === undefined || picked.length === 0) return undefined;
        inputs = await inputsOf(deps, picked.map((u) => u.fsPath), true);
      }
    } catch (err) {
      showRunError(err, 'open run', deps.log);
      return undefined;
    }
    if (inputs === undefined) return undefined;
    if (inputs.run.length + inputs.spans.length === 0) {
      void vscode.window.showErrorMessage('Phasewise: give at least one run artifact or span export');
      return undefined;
    }
    const entry = await deps.runs.open(inputs);
    if (entry === undefined) return undefined;
    if (show) await deps.showReport(entry.id);
    return { runId: entry.id, summary: entry.summary };
  };
}

/** The run a command acts on: the tree node it was invoked on, a run id, or the selected run. */
export function targetRun(runs: RunManager, arg: unknown): RunEntry | undefined {
  const id = typeof arg === 'string' ? arg : arg !== null && typeof arg === 'object' && typeof (arg as { runId?: unknown }).runId === 'string' ? (arg as { runId: string }).runId : undefined;
  return id !== undefined ? runs.catalog.get(id) : runs.catalog.selected;
}

/**
 * `Add Span Export…` / `Add Run Artifact…` (and Explorer's "Add to Selected Phasewise Run"): the run
 * is extended, its database copied and only the new files loaded. `files` skips the dialog.
 */
export function addFilesCommand(deps: OpenDeps, side: 'spans' | 'run' | 'any'): (arg?: unknown, files?: unknown) => Promise<P.RunSummary | undefined> {
  return async (arg, filesArg) => {
    const explorer = arg instanceof vscode.Uri ? (Array.isArray(filesArg) ? (filesArg as vscode.Uri[]) : [arg]) : undefined;
    const entry = targetRun(deps.runs, explorer !== undefined ? undefined : arg);
    if (entry === undefined || entry.kind === 'live') {
      void vscode.window.showErrorMessage(entry === undefined ? 'Phasewise: open a run first (Phasewise: Open Run…)' : 'Phasewise: the live run takes spans from the trace receiver only');
      return undefined;
    }
    const given = explorer?.map((u) => u.fsPath) ?? (Array.isArray(filesArg) && filesArg.every((f) => typeof f === 'string') ? (filesArg as string[]) : undefined);
    const files =
      given ??
      (
        await vscode.window.showOpenDialog({
          canSelectMany: true,
          openLabel: side === 'spans' ? 'Add Span Export' : 'Add Run Artifact',
          title: side === 'spans' ? `Phasewise: span exports to add to ${entry.label} (OTLP, Jaeger or Zipkin JSON)` : `Phasewise: run artifacts to add to ${entry.label} (k6 JSON/CSV, summary, per-request records)`,
        })
      )?.map((u) => u.fsPath);
    if (files === undefined || files.length === 0) return undefined;
    try {
      const c = await classify(deps.runs, files);
      const wrong = side === 'spans' ? c.run : side === 'run' ? c.spans : [];
      if (wrong.length > 0) {
        const w = wrong[0];
        throw new Error(`${w.path} is ${w.format}, not ${side === 'spans' ? 'a span export (use Add Run Artifact…)' : 'a run artifact (use Add Span Export…)'}`);
      }
      if (c.skipped.length > 0) throw new Error(c.skipped[0].reason);
      const inputs: P.RunInputs = {
        run: [...entry.inputs.run, ...c.run.map((f) => f.path)],
        spans: [...entry.inputs.spans, ...c.spans.map((f) => f.path)],
        contract: c.contracts[0] ?? entry.inputs.contract,
      };
      const done = await deps.runs.open(inputs, { extend: entry.id, title: `Phasewise: adding ${files.map((f) => path.basename(f)).join(', ')} to ${entry.label}` });
      return done?.summary ?? undefined;
    } catch (err) {
      showRunError(err, `adding files to ${entry.label}`, deps.log);
      return undefined;
    }
  };
}
