// Starts the VS Code server (server-main.js, not the code-server wrapper, whose CLI rejects development
// flags) on loopback with a throwaway profile, and headless Chromium with a fresh profile, each as a
// tracked process that is stopped by PID.
import * as fs from 'fs';
import * as http from 'http';
import * as net from 'net';
import * as path from 'path';
import { startProcess, Started, waitForOutput } from './processes';
import type { Toolchain } from './provision';

export interface ServerDirs {
  userDataDir: string;
  serverDataDir: string;
  extensionsDir: string;
}

export interface RunningServer {
  proc: Started;
  port: number;
  /** Workbench URL with the folder opened. */
  url: string;
  logFile: string;
}

export async function freePort(): Promise<number> {
  return await new Promise((resolve, reject) => {
    const srv = net.createServer();
    srv.once('error', reject);
    srv.listen(0, '127.0.0.1', () => {
      const addr = srv.address();
      const port = typeof addr === 'object' && addr !== null ? addr.port : 0;
      srv.close(() => resolve(port));
    });
  });
}

/** GET on loopback: status and body (status 0 when nothing answers within 2 s). */
export function httpGet(url: string): Promise<{ status: number; body: string }> {
  return new Promise((resolve) => {
    const req = http.get(url, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body: Buffer.concat(chunks).toString('utf8') }));
      res.on('error', () => resolve({ status: 0, body: '' }));
    });
    req.on('error', () => resolve({ status: 0, body: '' }));
    req.setTimeout(2000, () => {
      req.destroy();
      resolve({ status: 0, body: '' });
    });
  });
}

export async function startServer(
  tc: Toolchain,
  dirs: ServerDirs,
  folder: string,
  opts: { port?: number; env?: NodeJS.ProcessEnv; logFile: string; timeoutMs?: number },
): Promise<RunningServer> {
  const port = opts.port ?? (await freePort());
  const args = [
    tc.serverMain,
    '--host',
    '127.0.0.1',
    '--port',
    String(port),
    '--without-connection-token',
    '--accept-server-license-terms',
    '--disable-telemetry',
    '--user-data-dir',
    dirs.userDataDir,
    '--server-data-dir',
    dirs.serverDataDir,
    '--extensions-dir',
    dirs.extensionsDir,
  ];
  const env: NodeJS.ProcessEnv = {
    ...process.env,
    ...opts.env,
    // Node 24 first, so that the extension host, and whatever it spawns as `node`, is the provisioned one.
    PATH: `${path.dirname(tc.nodeBin)}${path.delimiter}${process.env.PATH ?? ''}`,
  };
  fs.mkdirSync(path.dirname(opts.logFile), { recursive: true });
  const log = fs.createWriteStream(opts.logFile);
  const proc = startProcess('vscode-server', tc.nodeBin, args, { env, stdio: ['ignore', 'pipe', 'pipe'] });
  proc.child.stdout?.pipe(log);
  proc.child.stderr?.pipe(log);
  const deadline = Date.now() + (opts.timeoutMs ?? 60_000);
  const base = `http://127.0.0.1:${port}`;
  let dead = false;
  void proc.exited.then(() => {
    dead = true;
  });
  while ((await httpGet(`${base}/`)).status !== 200) {
    if (dead) throw new Error(`VS Code server exited during start-up; see ${opts.logFile}`);
    if (Date.now() > deadline) throw new Error(`VS Code server not answering on ${base} in time; see ${opts.logFile}`);
    await new Promise((r) => setTimeout(r, 250));
  }
  return { proc, port, url: `${base}/?folder=${folder.split(path.sep).map(encodeURIComponent).join('/')}`, logFile: opts.logFile };
}

export const CHROMIUM = process.env.PHASEWISE_CHROMIUM ?? '/usr/bin/chromium';

/** Starts headless Chromium with a fresh profile and returns its DevTools endpoint for connectOverCDP. */
export async function startChromium(profileDir: string): Promise<{ proc: Started; wsEndpoint: string }> {
  if (!fs.existsSync(CHROMIUM)) throw new Error(`${CHROMIUM} not found: apt-get install -y chromium`);
  const args = [
    '--no-sandbox',
    '--headless',
    '--disable-gpu',
    '--disable-background-networking',
    '--disable-component-update',
    '--disable-sync',
    '--no-first-run',
    '--no-default-browser-check',
    '--disable-dev-shm-usage',
    '--window-size=1400,900',
    `--user-data-dir=${profileDir}`,
    '--remote-debugging-address=127.0.0.1',
    '--remote-debugging-port=0',
    'about:blank',
  ];
  const proc = startProcess('chromium', CHROMIUM, args, { stdio: ['ignore', 'pipe', 'pipe'] });
  const m = await waitForOutput(proc, /DevTools listening on (ws:\/\/\S+)/, 30_000);
  return { proc, wsEndpoint: m[1] };
}
