/**
 * Cleanups that must run however the process ends: a normal exit, process.exit (the CLI's exit codes,
 * Ctrl-C's 130), an uncaught exception, and SIGINT/SIGTERM/SIGHUP when nothing else handles them
 * (Node's default for those signals ends the process without its 'exit' event). What cannot be caught
 * (SIGKILL, a native crash) is swept by the next process instead (tempDirectory.ts, databaseLock.ts).
 *
 * A cleanup is synchronous (the 'exit' event runs no more asynchronous work) and must not throw. In a
 * worker thread the worker's own 'exit' runs them (signals reach the main thread only).
 */
import { isMainThread } from 'worker_threads';

const cleanups = new Set<() => void>();
let installed = false;

const FATAL_SIGNALS: readonly NodeJS.Signals[] = ['SIGINT', 'SIGTERM', 'SIGHUP'];

function runCleanups(): void {
  for (const cleanup of [...cleanups]) {
    try {
      cleanup();
    } catch {
      // A cleanup that fails must not keep the others from running.
    }
  }
  cleanups.clear();
}

function install(): void {
  if (installed) return;
  installed = true;
  process.on('exit', runCleanups);
  if (!isMainThread) return;
  for (const signal of FATAL_SIGNALS) {
    const onSignal = (): void => {
      // Another listener (the CLI's Ctrl-C, the receiver's stop) handles the signal and exits in its
      // own time, through 'exit'.
      if (process.listenerCount(signal) > 1) return;
      runCleanups();
      process.removeListener(signal, onSignal);
      // Ends the process as the signal would have (its exit status says which signal).
      process.kill(process.pid, signal);
    };
    process.on(signal, onSignal);
  }
}

/** Runs `cleanup` when the process ends (see the file header); returns a function that unregisters it. */
export function onProcessExit(cleanup: () => void): () => void {
  install();
  cleanups.add(cleanup);
  return () => {
    cleanups.delete(cleanup);
  };
}

/** Whether process `pid` runs on this machine (a process of another user counts: EPERM). */
export function processAlive(pid: number): boolean {
  if (pid === process.pid) return true;
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}
