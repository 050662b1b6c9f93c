// Runs the CLI that ships inside the installed extension (same bundle, same DuckDB binding as the
// extension), so the suite can compare what the editor command returns with what the CLI prints.
import { spawnSync } from 'child_process';
import * as path from 'path';
import { phasewise } from './context';

export interface CliResult {
  status: number | null;
  stdout: string;
  stderr: string;
}

export function runCli(args: readonly string[]): CliResult {
  const cli = path.join(phasewise().extensionPath, 'dist', 'cli.js');
  // In the extension host process.execPath may be Electron; PHASEWISE_NODE (set by the drivers) or the
  // `node` on PATH runs the CLI as a user would.
  const node = process.env.PHASEWISE_NODE !== undefined && process.env.PHASEWISE_NODE !== '' ? process.env.PHASEWISE_NODE : 'node';
  const res = spawnSync(node, [cli, ...args], { encoding: 'utf8', maxBuffer: 256 * 1024 * 1024, timeout: 120_000 });
  if (res.error !== undefined) throw res.error;
  return { status: res.status, stdout: res.stdout, stderr: res.stderr };
}
