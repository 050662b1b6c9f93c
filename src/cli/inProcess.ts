/**
 * The CLI run inside the calling process: the same dispatch (main) as dist/cli.js, with stdout and
 * stderr captured instead of written and the exit code returned instead of exiting. Tests use it to
 * run hundreds of commands without starting Node and DuckDB for each; subprocess tests of dist/cli.js
 * prove the binary adds nothing but the streams and process.exit (main.ts).
 */
import { main, reportError } from './dispatch';
import { clearInterrupted } from './interrupt';
import { redirectOutput, type CliStream } from './output';

export interface InProcessResult {
  /** The exit code dist/cli.js would exit with. */
  status: number;
  stdout: string;
  stderr: string;
}

let running = false;

/**
 * Runs `phasewise <argv>` and resolves with its exit code and output. One at a time: the output
 * streams, the working directory and the environment are the process's own, so a second call while
 * one runs is refused rather than mixing their output.
 */
export async function runInProcess(argv: readonly string[]): Promise<InProcessResult> {
  if (running) throw new Error('runInProcess: a command is already running in this process');
  running = true;
  const stdout: string[] = [];
  const stderr: string[] = [];
  const capture = (into: string[]): CliStream => ({
    isTTY: false,
    write: (text, done) => {
      into.push(text);
      done();
    },
  });
  const restore = redirectOutput({ stdout: capture(stdout), stderr: capture(stderr) });
  clearInterrupted();
  try {
    // As main.ts: main reports its own errors; a rejection would be one outside its try.
    const status = await main([...argv]).catch(reportError);
    return { status, stdout: stdout.join(''), stderr: stderr.join('') };
  } finally {
    restore();
    running = false;
  }
}
