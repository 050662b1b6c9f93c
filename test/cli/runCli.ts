import { spawn } from 'child_process';
import * as fs from 'fs';
import * as path from 'path';
import { runInProcess } from '../../src/cli/inProcess';
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

/**
 * Runs `phasewise <args>` with `cwd` as the working directory. In this process by default (the CLI's
 * own dispatch, output captured: runInProcess), which spares each command Node's and DuckDB's start;
 * through the built dist/cli.js in a child process when the command must run as another user
 * (`unprivileged` under root) or when PHASEWISE_CLI_SUBPROCESS=1 (the slow tier runs the CLI suites
 * that way too, proving the binary gives the same results).
 */
export function runCli(args: readonly string[], cwd = repoRoot, options: CliOptions = {}): Promise<CliResult> {
  const asAnotherUser = options.unprivileged === true && runsAsRoot();
  if (asAnotherUser || process.env.PHASEWISE_CLI_SUBPROCESS === '1') return runCliProcess(args, cwd, options);
  return runCliInProcess(args, cwd, options);
}

/** Runs the built CLI (`npm run build` first: `npm test` does) in a child process. */
export function runCliProcess(args: readonly string[], cwd = repoRoot, options: CliOptions = {}): Promise<CliResult> {
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

/** Commands run here one after another: the working directory and environment are the process's. */
let queue: Promise<unknown> = Promise.resolve();

/** Runs the CLI's own dispatch in this process (runInProcess), whatever PHASEWISE_CLI_SUBPROCESS says. */
export function runCliInProcess(args: readonly string[], cwd = repoRoot, options: CliOptions = {}): Promise<CliResult> {
  const run = queue.then(async () => {
    const before = { cwd: process.cwd(), debug: process.env.PHASEWISE_DEBUG };
    if (options.debug === false) delete process.env.PHASEWISE_DEBUG;
    else process.env.PHASEWISE_DEBUG = '1';
    process.chdir(cwd);
    try {
      return await runInProcess(args);
    } finally {
      process.chdir(before.cwd);
      if (before.debug === undefined) delete process.env.PHASEWISE_DEBUG;
      else process.env.PHASEWISE_DEBUG = before.debug;
    }
  });
  queue = run.catch(() => undefined);
  return run;
}

/** numpy.percentile's default (linear interpolation at (n−1)·p), written out to check DuckDB's quantile_cont. */
export function linearQuantile(values: readonly number[], p: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  const pos = (sorted.length - 1) * p;
  const lo = Math.floor(pos);
  const hi = Math.ceil(pos);
  return sorted[lo] + (sorted[hi] - sorted[lo]) * (pos - lo);
}
