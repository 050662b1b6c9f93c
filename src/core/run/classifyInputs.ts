/**
 * Sorting what the user picked (files, folders, or both) into run artifacts, span exports and load
 * contracts. Data files are recognised by their content (formats/sniff.ts), never their names; a
 * contract by its name (`*.loadcontract.yaml|yml|json`), as the editor registers it. A folder's files
 * are looked at one level deep; anything recognised as neither is listed as skipped, with why.
 * The editor's Open Run… and `phasewise compare --base/--head` sort their picks with it.
 *
 * A folder's symbolic links are followed only to files inside the folder (a link to the user's
 * credentials must not be read because it sits in a run folder), and a file found in a folder that
 * is no known format is skipped without quoting any of it (sniff.ts SniffOptions.quote): the user
 * named the folder, not the file. A file reached twice (a link to a file beside it) counts once.
 */
import { lstat, readdir, realpath, stat } from 'fs/promises';
import * as path from 'path';
import { InputError } from '../errors';
import { describeKind } from '../formats/input/inputFile';
import { sniffFile } from '../formats/sniff';

const CONTRACT = /\.loadcontract\.(ya?ml|json)$/i;
/** In a folder, only files that can hold a run or spans are opened (not a README, not a script). */
const DATA_FILE = /\.(json|jsonl|ndjson|csv|gz)$/i;
/** A folder with more entries than this is not a run folder: the rest is listed as skipped. */
const MAX_FOLDER_FILES = 500;

/** What the picks hold, each path absolute. */
export interface Classification {
  run: Array<{ path: string; format: string }>;
  spans: Array<{ path: string; format: string }>;
  contracts: string[];
  skipped: Array<{ path: string; reason: string }>;
  /**
   * A folder's entries that were not opened, with why: names that do not hold data, subfolders,
   * pipes and devices, links that lead nowhere. Listed apart from `skipped` (files that looked like
   * data and could not be read), so the editor's Open Run… does not take a README for a problem.
   */
  ignored: Array<{ path: string; reason: string }>;
  /** The picks that were folders (their files were looked at). */
  folders: string[];
}

export async function classifyPaths(paths: readonly string[]): Promise<Classification> {
  const out: Classification = { run: [], spans: [], contracts: [], skipped: [], ignored: [], folders: [] };
  const seen = new Set<string>();
  const consider = async (file: string, fromFolder: boolean): Promise<void> => {
    const abs = path.resolve(file);
    const key = await realpath(abs).catch(() => abs);
    if (seen.has(key)) return;
    seen.add(key);
    if (CONTRACT.test(abs)) {
      out.contracts.push(abs);
      return;
    }
    if (fromFolder && !DATA_FILE.test(abs)) {
      out.ignored.push({ path: abs, reason: 'not a data file (Phasewise reads .json, .jsonl, .ndjson, .csv and .gz files in a folder)' });
      return;
    }
    try {
      const sniff = await sniffFile(abs, { quote: !fromFolder });
      (sniff.side === 'server' ? out.spans : out.run).push({ path: abs, format: sniff.format });
    } catch (err) {
      out.skipped.push({ path: abs, reason: err instanceof InputError ? err.message : `cannot be read (${err instanceof Error ? err.message : String(err)})` });
    }
  };
  for (const p of paths) {
    const info = await stat(p).catch(() => undefined);
    if (info === undefined) {
      out.skipped.push({ path: path.resolve(p), reason: 'no such file or folder' });
    } else if (info.isDirectory()) {
      out.folders.push(path.resolve(p));
      const folder = await realpath(p);
      const names = (await readdir(p)).sort();
      for (const [i, name] of names.entries()) {
        const full = path.join(p, name);
        if (i >= MAX_FOLDER_FILES) {
          out.skipped.push({ path: full, reason: `not looked at: the folder has more than ${MAX_FOLDER_FILES} entries` });
          continue;
        }
        const link = (await lstat(full).catch(() => undefined))?.isSymbolicLink() === true;
        if (link) {
          const target = await realpath(full).catch((err: NodeJS.ErrnoException) => err);
          if (target instanceof Error) {
            out.ignored.push({ path: path.resolve(full), reason: unreadableEntry(target) });
            continue;
          }
          if (path.dirname(target) !== folder && !target.startsWith(folder + path.sep)) {
            out.skipped.push({ path: path.resolve(full), reason: `a symbolic link to ${target}, outside the folder (not followed)` });
            continue;
          }
        }
        const entry = await stat(full).catch((err: NodeJS.ErrnoException) => err);
        if (entry instanceof Error) out.ignored.push({ path: full, reason: unreadableEntry(entry) });
        else if (entry.isFile()) await consider(full, true);
        else if (entry.isDirectory()) out.ignored.push({ path: full, reason: 'a folder (folders are read one level deep)' });
        else out.ignored.push({ path: full, reason: `${describeKind(entry)}, not a regular file` });
      }
    } else {
      await consider(p, false);
    }
  }
  return out;
}

/** Why a folder entry could not be looked at (a looping or dangling link, or no permission). */
function unreadableEntry(err: NodeJS.ErrnoException): string {
  if (err.code === 'ELOOP') return 'a loop of symbolic links';
  if (err.code === 'ENOENT') return 'a symbolic link to nothing';
  return `cannot be read (${err.code ?? err.message})`;
}
