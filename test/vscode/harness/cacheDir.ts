// One cached install: a folder that exists under its final name only once it is complete and checked.
// The install runs in a staging folder beside the final one (same file system, so the rename is atomic),
// the checks run there, a marker with the versions is written, and only then is it renamed into place.
// An interrupted run leaves a staging folder, never a half-written final one; the next run removes it.
import * as fs from 'fs';
import * as path from 'path';

/** The marker of a checked install (`.provisioned.json`): what was installed, for what, what the checks saw. */
export interface InstallMarker {
  /** What was installed and for which Node; an install is reused only when this is what the run wants. */
  readonly install: string;
  /** When the checks passed. */
  readonly checkedAt: string;
  /** What the checks report (versions, counts). */
  readonly [detail: string]: string | number;
}

/** What the checks of an install report, stored in its marker. */
export type CheckReport = Readonly<Record<string, string | number>>;

export const MARKER = '.provisioned.json';
/** Written by installs from before the checks existed: trusted only after the checks pass once. */
export const LEGACY_MARKER = '.complete';

export function readMarker(dir: string): InstallMarker | undefined {
  try {
    const parsed: unknown = JSON.parse(fs.readFileSync(path.join(dir, MARKER), 'utf8'));
    return typeof parsed === 'object' && parsed !== null && typeof (parsed as { install?: unknown }).install === 'string'
      ? (parsed as InstallMarker)
      : undefined;
  } catch {
    return undefined;
  }
}

function writeMarker(dir: string, key: string, report: CheckReport): void {
  const marker: InstallMarker = { ...report, install: key, checkedAt: new Date().toISOString() };
  const tmp = path.join(dir, `${MARKER}.${process.pid}`);
  fs.writeFileSync(tmp, `${JSON.stringify(marker, null, 2)}\n`);
  fs.renameSync(tmp, path.join(dir, MARKER));
}

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/** Staging folder names carry the pid of the run that made them, so a live concurrent run's is left alone. */
export function stagingDir(root: string, name: string, kind: 'partial' | 'stale', pid = process.pid): string {
  return path.join(root, `.${name}.${kind}-${pid}`);
}

/** Removes the staging folders of `name` whose run is no longer alive (interrupted installs); returns them. */
export function removeAbandoned(root: string, name: string): string[] {
  const removed: string[] = [];
  const prefix = `.${name}.`;
  for (const entry of fs.readdirSync(root)) {
    if (!entry.startsWith(prefix)) continue;
    const m = /^(?:partial|stale)-(\d+)$/.exec(entry.slice(prefix.length));
    if (m !== null && !isAlive(Number(m[1]))) {
      fs.rmSync(path.join(root, entry), { recursive: true, force: true });
      removed.push(entry);
    }
  }
  return removed;
}

export interface InstallSpec {
  /** Cache root; the install lives in `<root>/<name>`. */
  readonly root: string;
  readonly name: string;
  /** Identity stored in the marker; a final folder with another one is replaced. */
  readonly key: string;
  /** Installs into the (empty, existing) staging folder. */
  readonly install: (staging: string) => Promise<void>;
  /** Throws unless the install in `dir` works; its report goes into the marker. */
  readonly check: (dir: string) => Promise<CheckReport>;
  readonly log: (message: string) => void;
}

/**
 * Makes `<root>/<name>` a checked install of `key` and returns its path: reused when its marker says
 * `key`; an install with only the legacy marker is checked in place once; otherwise installed and checked
 * in `<root>/.<name>.partial-<pid>` and renamed into place. Concurrent runs each install into their own
 * staging folder; the first rename wins and the others use its result.
 */
export async function ensureInstalled(spec: InstallSpec): Promise<string> {
  const { root, name, key, log } = spec;
  const final = path.join(root, name);
  if (readMarker(final)?.install === key) return final;
  fs.mkdirSync(root, { recursive: true });
  for (const entry of removeAbandoned(root, name)) log(`removed ${path.join(root, entry)}, left by an interrupted run`);
  if (fs.existsSync(path.join(final, LEGACY_MARKER)) && !fs.existsSync(path.join(final, MARKER))) {
    try {
      writeMarker(final, key, await spec.check(final));
      log(`${final}: an earlier install, checked now and kept`);
      return final;
    } catch (err) {
      log(`${final} fails its checks, installing again: ${err instanceof Error ? err.message : String(err)}`);
    }
  }
  const staging = stagingDir(root, name, 'partial');
  fs.rmSync(staging, { recursive: true, force: true });
  fs.mkdirSync(staging, { recursive: true });
  await spec.install(staging);
  let report: CheckReport;
  try {
    report = await spec.check(staging);
  } catch (err) {
    // Kept for its install log; the next run removes it.
    throw new Error(`the fresh install in ${staging} fails its checks: ${err instanceof Error ? err.message : String(err)}`);
  }
  writeMarker(staging, key, report);
  if (fs.existsSync(final)) {
    if (readMarker(final)?.install === key) {
      log(`${final} was provisioned by another run meanwhile; using it`);
      fs.rmSync(staging, { recursive: true, force: true });
      return final;
    }
    // Half-finished, unchecked or of another version: moved aside first, so the final name never holds a partial tree.
    const stale = stagingDir(root, name, 'stale');
    fs.renameSync(final, stale);
    fs.rmSync(stale, { recursive: true, force: true });
    log(`replaced ${final}, which held no checked install of ${key}`);
  }
  try {
    fs.renameSync(staging, final);
  } catch (err) {
    if (readMarker(final)?.install !== key) throw err;
    fs.rmSync(staging, { recursive: true, force: true });
  }
  return final;
}
