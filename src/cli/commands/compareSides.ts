/**
 * The two sides of `phasewise compare`: each a run database (`analyze --db`), opened read-only, or a
 * set of inputs (`--base PATH...` / `--head PATH...`: files and folders sorted by content as the
 * editor's Open Run… sorts them) loaded into an in-memory store through the same session as
 * `analyze` without --db (same readers, progress, Ctrl-C and error contract) and dropped on close.
 */
import { stat } from 'fs/promises';
import * as path from 'path';
import type { AnalysisOptions, GateSpec } from '../../core/analysis/options';
import { InputError } from '../../core/errors';
import { checkReadableFile } from '../../core/formats/input/inputFile';
import { sniffFile } from '../../core/formats/sniff';
import { classifyPaths } from '../../core/run/classifyInputs';
import { hasDuckDbHeader } from '../../core/store/databaseFile';
import { openLoadedViews, openRunViews, type OpenRunOptions, type RunViews } from '../../core/views/session';
import { UsageError, type ParsedArgs } from '../args';
import { note } from '../output';
import { openSession, resolveAnalysis, storedJoinKeyHook } from '../session';

/** One side as given on the command line, resolved: a database file, or the inputs to load. */
export type SideSpec =
  | { kind: 'db'; label: string; file: string; contract: string | undefined }
  | { kind: 'inputs'; label: string; run: string[]; spans: string[]; contract: string | undefined };

/** The flags of compare that shape a side's analysis or its load (passed on to the analyze session). */
const SESSION_KEYS = ['window', 'join-by', 'trace-tag', 'memory-limit', 'threads', 'progress'] as const;

/**
 * `--base`/`--head` PATH...: one run database alone, or input files and folders. A named file that is
 * missing, unreadable or of no known format is an InputError naming it; a folder's other files are
 * noted as skipped (never silently). A contract among the paths is the side's unless one was given.
 */
export async function resolveSide(name: 'base' | 'head', paths: readonly string[], given: string | undefined): Promise<SideSpec> {
  const label = paths.join(' + ');
  const databases: string[] = [];
  for (const p of paths) {
    const info = await stat(p).catch(() => undefined);
    if (info === undefined) throw new InputError(path.resolve(p), undefined, `an input file or folder for --${name}`, 'no such file or folder');
    if (info.isDirectory()) continue;
    // A named file is loaded or refused, never skipped (a pipe or a device first: reading its header would wait forever).
    await checkReadableFile(p, `an input file or folder for --${name}`);
    // A DuckDB file is a database side; openRunViews refuses one Phasewise did not write, naming it.
    if (await hasDuckDbHeader(path.resolve(p))) {
      databases.push(p);
      continue;
    }
    // The reader's own error names what was expected.
    if (!/\.loadcontract\.(ya?ml|json)$/i.test(p)) await sniffFile(path.resolve(p));
  }
  if (databases.length > 0) {
    if (paths.length > 1) throw new UsageError(`--${name}: ${databases[0]} is a run database; give it alone (a database and input files do not mix in one side)`);
    return { kind: 'db', label, file: databases[0], contract: given };
  }
  const c = await classifyPaths(paths);
  for (const s of [...c.skipped, ...c.ignored]) note(`phasewise: --${name}: skipped ${s.path}: ${s.reason}`);
  if (c.run.length === 0 && c.spans.length === 0) throw new InputError(path.resolve(paths[0]), undefined, `run artifacts or span exports for --${name}`, 'no input file of a known format');
  let contract = given;
  if (contract === undefined && c.contracts.length > 1) throw new UsageError(`--${name} holds ${c.contracts.length} load contracts (${c.contracts.join(', ')}): give the side's one with --${name}-contract`);
  if (contract === undefined && c.contracts.length === 1) {
    contract = c.contracts[0];
    note(`phasewise: --${name}: using the load contract ${contract}`);
  }
  return { kind: 'inputs', label, run: c.run.map((f) => f.path), spans: c.spans.map((f) => f.path), contract };
}

/** Every file a side reads (the --out check: writing over one would replace it). */
export function sideFiles(side: SideSpec): string[] {
  const files = side.kind === 'db' ? [side.file] : [...side.run, ...side.spans];
  return side.contract !== undefined ? [...files, side.contract] : files;
}

/** The analyze session's arguments for one side: its files, its contract and compare's session flags. */
function sessionArgs(args: ParsedArgs, side: SideSpec): ParsedArgs {
  const flags = new Map<string, string[]>();
  for (const k of SESSION_KEYS) {
    const v = args.flags.get(k);
    if (v !== undefined) flags.set(k, v);
  }
  if (side.contract !== undefined) flags.set('contract', [side.contract]);
  if (side.kind === 'inputs') {
    if (side.run.length > 0) flags.set('run', side.run);
    if (side.spans.length > 0) flags.set('spans', side.spans);
  }
  return { flags, positional: [] };
}

/** A side's analysis options (defaults ← its contract ← --window, --join-by), resolved as analyze resolves them. */
export async function sideAnalysis(args: ParsedArgs, side: SideSpec): Promise<{ options: AnalysisOptions; gates: GateSpec[] }> {
  return resolveAnalysis(sessionArgs(args, side));
}

/**
 * Opens a side for comparison: a database read-only (analysed first if its derived tables are stale),
 * or its inputs loaded in memory and analysed for `resolved.options`. The views own the store.
 */
export async function openSide(args: ParsedArgs, side: SideSpec, resolved: { options: AnalysisOptions; gates: GateSpec[] }, open: OpenRunOptions): Promise<RunViews> {
  if (side.kind === 'db') return openRunViews(side.file, resolved.options, { ...open, onStoredJoinKey: storedJoinKeyHook(sessionArgs(args, side), resolved.options, side.file) });
  const session = await openSession(sessionArgs(args, side), resolved);
  try {
    const views = await openLoadedViews(session.store, resolved.options, open);
    // Ctrl-C stays wired to this store until the views are closed.
    return { ...views, close: () => session.close() };
  } catch (err) {
    await session.close();
    throw err;
  }
}
