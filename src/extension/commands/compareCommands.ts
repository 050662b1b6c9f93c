/**
 * Compare Runs…, Query Run… and Export Pairs…: the editor's side of `phasewise compare`, `sql` and
 * `export`. Each side of a comparison is a run of the Runs view or a database written by `phasewise
 * analyze --db`; the work runs on the run worker through the core (workerProtocol.ts CompareRuns,
 * RunSql, ExportPairs), with progress and cancel. These commands read local files only (no network),
 * so like the other commands on runs they also run in an untrusted workspace.
 */
import * as os from 'os';
import * as path from 'path';
import * as vscode from 'vscode';
import { DEFAULT_COMPARE_SETTINGS, type CompareSettings } from '../../core/compare/compareRuns';
import { exportFormatOf } from '../../core/views/exportPairs';
import type { CompareSideState, CompareViewState } from '../../protocol/compare';
import type { JsonText } from '../../protocol/schema';
import type { Comparison } from '../../core/compare/compareRuns';
import type { ComparePanels, CompareTarget, ComputeComparison } from '../panels/comparePanel';
import type { QueryPanels } from '../panels/queryPanel';
import type { RunEntry } from '../runs/runCatalog';
import type { RunManager } from '../runs/runManager';
import { readRunSettings } from '../runs/settings';
import { showRunError } from '../runs/showError';
import * as P from '../runs/workerProtocol';
import { targetRun } from './openRun';

export interface CompareCommandDeps {
  runs: RunManager;
  log: vscode.LogOutputChannel;
  compares: ComparePanels;
  queries: QueryPanels;
}

/** A side as picked: a run of the Runs view, or a database file. */
type Pick = { run: RunEntry } | { file: string };

function compareSettings(): CompareSettings {
  const c = vscode.workspace.getConfiguration('phasewise');
  const resamples = c.get<number>('compare.resamples', DEFAULT_COMPARE_SETTINGS.resamples);
  const seed = c.get<number>('compare.seed', DEFAULT_COMPARE_SETTINGS.seed);
  return {
    resamples: Number.isInteger(resamples) && resamples >= 1 ? Math.min(resamples, 1_000_000) : DEFAULT_COMPARE_SETTINGS.resamples,
    seed: Number.isInteger(seed) && seed >= 0 && seed <= 0xffffffff ? seed : DEFAULT_COMPARE_SETTINGS.seed,
    confidence: DEFAULT_COMPARE_SETTINGS.confidence,
  };
}

/** A side given by a caller: a run id (or a Runs view node), or `{ file }` / a `.duckdb` Uri. */
function givenSide(runs: RunManager, arg: unknown): Pick | undefined {
  if (arg instanceof vscode.Uri) return { file: arg.fsPath };
  if (arg !== null && typeof arg === 'object' && typeof (arg as { file?: unknown }).file === 'string') return { file: (arg as { file: string }).file };
  if (arg === undefined) return undefined;
  const run = targetRun(runs, arg);
  return run !== undefined ? { run } : undefined;
}

async function pickSide(runs: RunManager, role: 'BASE' | 'HEAD', other: Pick | undefined): Promise<Pick | undefined> {
  type Item = vscode.QuickPickItem & { pick: Pick | 'browse' };
  const otherId = other !== undefined && 'run' in other ? other.run.id : undefined;
  const items: Item[] = runs.catalog
    .list()
    .filter((r) => r.id !== otherId)
    .map((r): Item => ({ label: r.label, description: r.summary?.verdict.status.toUpperCase() ?? 'not analysed yet', detail: [...r.inputs.run, ...r.inputs.spans].map((f) => vscode.workspace.asRelativePath(f)).join(', '), pick: { run: r } }));
  items.push({ label: '$(database) A database file…', description: 'written by phasewise analyze --db', pick: 'browse' });
  const chosen = await vscode.window.showQuickPick(items, {
    title: `Phasewise: Compare Runs (${role === 'BASE' ? '1' : '2'}/2): ${role === 'BASE' ? 'BASE, the run before the change' : 'HEAD, the run after the change'}`,
    placeHolder: role === 'HEAD' && other !== undefined ? `BASE: ${'run' in other ? other.run.label : path.basename(other.file)}` : undefined,
    matchOnDescription: true,
    matchOnDetail: true,
  });
  if (chosen === undefined) return undefined;
  if (chosen.pick !== 'browse') return chosen.pick;
  const uri = await vscode.window.showOpenDialog({ canSelectMany: false, filters: { 'DuckDB database': ['duckdb', 'db'] }, title: `Phasewise: the ${role} run's database (phasewise analyze --db)` });
  return uri === undefined ? undefined : { file: uri[0].fsPath };
}

/** BASE and HEAD compared on the worker with a cancellable progress notification (also a restored panel's recompute). */
export function computeComparison(runs: RunManager): ComputeComparison {
  return (base, head, names, settings) =>
    Promise.resolve(
      vscode.window.withProgress(
        { location: vscode.ProgressLocation.Notification, title: `Phasewise: comparing ${names[0]} → ${names[1]} (${settings.resamples} resamples)`, cancellable: true },
        async (_progress, token): Promise<JsonText<Comparison>> => {
          const side = async (t: CompareTarget, label: string): Promise<P.CompareSide> => ('file' in t ? { key: null, file: t.file, label: t.file } : { key: await runs.ensure(t.run), file: null, label });
          const [b, h] = [await side(base, names[0]), await side(head, names[1])];
          return (await runs.client.job(P.CompareRuns, { base: b, head: h, settings: readRunSettings(), compare: settings }, undefined, token)).comparison;
        },
      ),
    );
}

function sideState(p: Pick): CompareSideState {
  return 'run' in p ? { run: p.run.id, file: null, label: p.run.label, inputs: p.run.inputs } : { run: null, file: p.file, label: p.file, inputs: null };
}

/**
 * `phasewise.compareRuns [base] [head]`: BASE and HEAD picked (a Runs view node gives BASE), compared
 * on the worker, shown in the comparison panel. Resolves to the comparison's JSON text (undefined
 * when cancelled or failed: the error was shown).
 */
export function compareRunsCommand(deps: CompareCommandDeps): (base?: unknown, head?: unknown) => Promise<string | undefined> {
  return async (baseArg, headArg) => {
    const base = givenSide(deps.runs, baseArg) ?? (await pickSide(deps.runs, 'BASE', undefined));
    if (base === undefined) return undefined;
    const head = givenSide(deps.runs, headArg) ?? (await pickSide(deps.runs, 'HEAD', base));
    if (head === undefined) return undefined;
    const name = (p: Pick): string => ('run' in p ? p.run.label : path.basename(p.file));
    const settings = compareSettings();
    try {
      const target = (p: Pick): CompareTarget => ('run' in p ? { run: p.run.id } : { file: p.file });
      const comparison = await computeComparison(deps.runs)(target(base), target(head), ['run' in base ? base.run.label : base.file, 'run' in head ? head.run.label : head.file], settings);
      const state: CompareViewState = { base: sideState(base), head: sideState(head), resamples: settings.resamples, seed: settings.seed, confidence: settings.confidence };
      deps.compares.show(state, `Compare: ${name(base)} → ${name(head)}`, comparison);
      deps.log.info(`compare: ${name(base)} → ${name(head)}, ${settings.resamples} resamples, seed ${settings.seed}`);
      return comparison;
    } catch (err) {
      showRunError(err, 'compare', deps.log);
      return undefined;
    }
  };
}

function usableRun(deps: CompareCommandDeps, arg: unknown, what: string): RunEntry | undefined {
  const r = targetRun(deps.runs, arg);
  if (r === undefined) void vscode.window.showErrorMessage(`Phasewise: no run selected to ${what}: open one with Phasewise: Open Run… or pick one in the Runs view`);
  else if (r.activity.kind === 'live') void vscode.window.showErrorMessage(`Phasewise: stop the trace receiver before you ${what} its live run (the receiver is writing it)`);
  else return r;
  return undefined;
}

/** `phasewise.queryRun [run]`: the run's query panel. */
export function queryRunCommand(deps: CompareCommandDeps): (arg?: unknown) => Promise<boolean> {
  return async (arg) => {
    const r = usableRun(deps, arg, 'query');
    if (r === undefined) return false;
    await deps.queries.show(r.id);
    return true;
  };
}

/** `phasewise.exportPairs [run] [path]`: the save dialog (unless `path`), then the core export with progress and cancel; resolves to the file written. */
export function exportPairsCommand(deps: CompareCommandDeps): (arg?: unknown, target?: unknown) => Promise<string | undefined> {
  return async (arg, target) => {
    const r = usableRun(deps, arg, 'export the pairs of');
    if (r === undefined) return undefined;
    const folder = vscode.workspace.workspaceFolders?.[0]?.uri ?? vscode.Uri.file(os.homedir());
    const stem = path.parse(r.label.split(' + ')[0]).name.replace(/[^A-Za-z0-9._-]+/g, '-') || 'run';
    const file =
      typeof target === 'string'
        ? target
        : (
            await vscode.window.showSaveDialog({
              title: `Phasewise: export the pairs of ${r.label} (one row per request; .parquet or .csv)`,
              defaultUri: vscode.Uri.joinPath(folder, `${stem}.pairs.parquet`),
              filters: { Parquet: ['parquet'], CSV: ['csv'] },
            })
          )?.fsPath;
    if (file === undefined) return undefined;
    const format = exportFormatOf(file);
    if (format === undefined) {
      void vscode.window.showErrorMessage(`Phasewise: ${path.basename(file)}: name the file .parquet or .csv (the name says the format)`);
      return undefined;
    }
    try {
      const key = await deps.runs.ensure(r.id);
      const { rows, bytes } = await vscode.window.withProgress(
        { location: vscode.ProgressLocation.Notification, title: `Phasewise: writing the pairs of ${r.label} to ${path.basename(file)} (${format === 'parquet' ? 'Parquet' : 'CSV'})`, cancellable: true },
        (_p, token) => deps.runs.client.job(P.ExportPairs, { key, path: file, format }, undefined, token),
      );
      deps.log.info(`export pairs: ${r.label} → ${file}: ${rows} rows, ${bytes} bytes`);
      if (typeof target !== 'string') void vscode.window.showInformationMessage(`Phasewise: ${rows.toLocaleString('en-US')} pairs written to ${file} (${(bytes / 1024).toFixed(0)} KB)`);
      return file;
    } catch (err) {
      showRunError(err, 'export pairs', deps.log);
      return undefined;
    }
  };
}
