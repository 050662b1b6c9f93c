// Every process the harness starts goes through here, so it can be stopped by PID on success, failure,
// timeout or Ctrl-C. Each child is started in its own process group (detached): the VS Code server forks
// an extension host and Chromium forks renderers, and signalling the group (-pid) reaches those children
// without touching anything the harness did not start.
import { ChildProcess, spawn, SpawnOptions } from 'child_process';

export interface Started {
  readonly name: string;
  readonly child: ChildProcess;
  readonly pid: number;
  /** Resolves with the exit code (or signal name) once the process has exited. */
  readonly exited: Promise<string>;
}

const started: Started[] = [];
/** Every process group ever started, kept after stopping so that survivors can be detected. */
const everStarted: number[] = [];

function log(message: string): void {
  process.stderr.write(`[harness] ${message}\n`);
}

export function startProcess(name: string, cmd: string, args: readonly string[], options: SpawnOptions): Started {
  const child = spawn(cmd, args, { ...options, detached: true });
  if (child.pid === undefined) throw new Error(`could not start ${name} (${cmd})`);
  const exited = new Promise<string>((resolve) => {
    child.once('exit', (code, signal) => resolve(signal !== null ? signal : String(code)));
    child.once('error', (err) => resolve(`error: ${err.message}`));
  });
  const entry: Started = { name, child, pid: child.pid, exited };
  started.push(entry);
  everStarted.push(entry.pid);
  log(`started ${name} pid ${child.pid}`);
  return entry;
}

function signalGroup(pid: number, signal: NodeJS.Signals): void {
  try {
    process.kill(-pid, signal);
  } catch {
    // The group is already gone; fall back to the single PID in case it never formed a group.
    try {
      process.kill(pid, signal);
    } catch {
      /* already exited */
    }
  }
}

function isGroupAlive(pid: number): boolean {
  try {
    process.kill(-pid, 0);
    return true;
  } catch {
    return false;
  }
}

async function sleep(ms: number): Promise<void> {
  await new Promise((r) => setTimeout(r, ms));
}

/** SIGTERM, then SIGKILL after graceMs, for one started process group. */
export async function stopProcess(entry: Started, graceMs = 5000): Promise<void> {
  signalGroup(entry.pid, 'SIGTERM');
  const deadline = Date.now() + graceMs;
  while (Date.now() < deadline && isGroupAlive(entry.pid)) await sleep(100);
  if (isGroupAlive(entry.pid)) {
    log(`${entry.name} (pid ${entry.pid}) ignored SIGTERM; sending SIGKILL`);
    signalGroup(entry.pid, 'SIGKILL');
    await sleep(200);
  }
  const i = started.indexOf(entry);
  if (i >= 0) started.splice(i, 1);
  log(`stopped ${entry.name} pid ${entry.pid}`);
}

/** Stops everything still running, newest first (the browser before the server it talks to). */
export async function stopAll(): Promise<void> {
  for (const entry of [...started].reverse()) await stopProcess(entry);
}

/** Process groups started by this process that are still alive (must be empty after stopAll). */
export function stillRunning(): number[] {
  return everStarted.filter((pid) => isGroupAlive(pid));
}

/** Resolves with the first stdout/stderr line matching `pattern`, or rejects on exit or timeout. */
export function waitForOutput(entry: Started, pattern: RegExp, timeoutMs: number): Promise<RegExpMatchArray> {
  return new Promise((resolve, reject) => {
    let buffer = '';
    const onData = (chunk: Buffer): void => {
      buffer += chunk.toString('utf8');
      const lines = buffer.split('\n');
      buffer = lines.pop() ?? '';
      for (const line of lines) {
        const m = line.match(pattern);
        if (m !== null) {
          cleanup();
          resolve(m);
          return;
        }
      }
    };
    const timer = setTimeout(() => {
      cleanup();
      reject(new Error(`${entry.name}: no output matching ${String(pattern)} within ${timeoutMs} ms`));
    }, timeoutMs);
    const onExit = (): void => {
      cleanup();
      reject(new Error(`${entry.name} exited before printing ${String(pattern)}`));
    };
    const cleanup = (): void => {
      clearTimeout(timer);
      entry.child.stdout?.off('data', onData);
      entry.child.stderr?.off('data', onData);
      entry.child.off('exit', onExit);
    };
    entry.child.stdout?.on('data', onData);
    entry.child.stderr?.on('data', onData);
    entry.child.once('exit', onExit);
  });
}
