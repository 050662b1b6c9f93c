import { spawn } from 'child_process';
import * as fs from 'fs';
import * as path from 'path';
import { repoRoot } from '../helpers/paths';

export const cliPath = path.join(repoRoot, 'dist', 'cli.js');

export interface CliResult {
  status: number | null;
  stdout: string;
  stderr: string;
}

/** Runs the built CLI (`npm run build` first: `npm test` does) in a child process. */
export function runCli(args: readonly string[], cwd = repoRoot): Promise<CliResult> {
  if (!fs.existsSync(cliPath)) throw new Error(`${cliPath} is missing: run npm run build`);
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [cliPath, ...args], { cwd, env: { ...process.env, PHASEWISE_DEBUG: '1' } });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d: Buffer) => (stdout += d.toString('utf8')));
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString('utf8')));
    child.on('error', reject);
    child.on('close', (status) => resolve({ status, stdout, stderr }));
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
