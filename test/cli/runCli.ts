import { spawn } from 'child_process';
import * as fs from 'fs';
import * as path from 'path';
import { repoRoot } from '../helpers/paths';

export const cliPath = path.join(repoRoot, 'dist', 'cli.js');

export interface CliResult {
  status: number | null;
  stdout: string;
  stderr: string;
  /** Set when CliOptions.timeoutMs ran out and the CLI was killed. */
  timedOut?: boolean;
}

export interface CliOptions {
  /** PHASEWISE_DEBUG=1 (the default here: a failing test shows DuckDB's message); false as a user runs it. */
  debug?: boolean;
  /**
   * Run as an unprivileged user when the tests run as root (root reads and writes through file
   * permissions, so a read-only or unreadable file would not be one); a no-op otherwise.
   */
  unprivileged?: boolean;
  /** Kill the CLI (SIGKILL) after this long; it then resolves with status null and `timedOut`. */
  timeoutMs?: number;
}

/** uid/gid of `nobody`, for CliOptions.unprivileged. */
export const UNPRIVILEGED_ID = 65534;

export function runsAsRoot(): boolean {
  return typeof process.getuid === 'function' && process.getuid() === 0;
}

/** Runs the built CLI (`npm run build` first: `npm test` does) in a child process. */
export function runCli(args: readonly string[], cwd = repoRoot, options: CliOptions = {}): Promise<CliResult> {
  if (!fs.existsSync(cliPath)) throw new Error(`${cliPath} is missing: run npm run build`);
  const env: NodeJS.ProcessEnv = { ...process.env };
  if (options.debug === false) delete env.PHASEWISE_DEBUG;
  else env.PHASEWISE_DEBUG = '1';
  const ids = options.unprivileged && runsAsRoot() ? { uid: UNPRIVILEGED_ID, gid: UNPRIVILEGED_ID } : {};
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [cliPath, ...args], { cwd, env, ...ids });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d: Buffer) => (stdout += d.toString('utf8')));
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString('utf8')));
    let timedOut = false;
    const timer = options.timeoutMs === undefined ? undefined : setTimeout(() => {
      timedOut = true;
      child.kill('SIGKILL');
    }, options.timeoutMs);
    child.on('error', reject);
    child.on('close', (status) => {
      if (timer) clearTimeout(timer);
      resolve({ status, stdout, stderr, ...(timedOut ? { timedOut } : {}) });
    });
  });
}

/** numpy.percentile's default (linear interpolation at (n−1)·p), written out to check DuckDB's quantile_cont. */
export function linearQuantile(values: readonly number[], p: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  const pos = (sorted.length - 1) * p;
  const lo = Math.floor(pos);
  const hi = Math.ceil(pos);
  return sorted[lo] + (sorted[hi] - sorted[lo]) * (pos - lo);
}
