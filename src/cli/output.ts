/**
 * Where the CLI writes: reports to stdout, everything about the run (notes, progress, errors) to
 * stderr. Both sinks escape control characters (report/escape.ts): text from input files reaches
 * them in messages and reports, and must never drive the terminal.
 *
 * The two streams are the process's own, except while runInProcess (inProcess.ts) runs a command with
 * its own capture: every write of the CLI goes through here, so both paths share every other line.
 */
import { escapeLine, escapeText } from '../core/escape';

/** What the CLI needs of stdout or stderr. */
export interface CliStream {
  /** Calls `done` once the text is handed on (with the error of a failed write). */
  write(text: string, done: (err?: Error | null) => void): void;
  /** Whether it is a terminal (live progress lines only go to one). */
  readonly isTTY: boolean;
}

export interface CliStreams {
  stdout: CliStream;
  stderr: CliStream;
}

function processStream(stream: NodeJS.WriteStream): CliStream {
  return {
    write: (text, done) => void stream.write(text, done),
    get isTTY() {
      return stream.isTTY === true;
    },
  };
}

const PROCESS_STREAMS: CliStreams = { stdout: processStream(process.stdout), stderr: processStream(process.stderr) };
let streams: CliStreams = PROCESS_STREAMS;

/** Sends the CLI's output to `next` until the returned function restores the previous streams. */
export function redirectOutput(next: CliStreams): () => void {
  const previous = streams;
  streams = next;
  return () => {
    streams = previous;
  };
}

/** Writes one line to stderr (diagnostics never go to stdout, which may be a report piped elsewhere). */
export function note(line: string): void {
  writeStderr(`${escapeLine(line)}\n`);
}

/** Writes text to stderr as it is (progress lines built by the caller). */
export function writeStderr(text: string): void {
  streams.stderr.write(text, () => undefined);
}

/** Whether stderr is a terminal: progress is live there and silent in CI logs and pipes. */
export function stderrIsTerminal(): boolean {
  return streams.stderr.isTTY;
}

/**
 * Resolves once the text is handed to the OS, so exiting right after cannot truncate a piped report.
 * A failed write (a closed pipe, a full disk) rejects with the OS error, which the error contract
 * reports as bad output, not as a bug.
 */
export function writeStdout(text: string, options: RawOption = {}): Promise<void> {
  const out = options.raw ? text : escapeText(text);
  return new Promise((resolve, reject) => streams.stdout.write(out, (err) => (err ? reject(err) : resolve())));
}

/**
 * `raw`: the text is written as it is. Only for the self-contained HTML export, whose scripts are
 * allowed by the hash of their exact text (escaping would change it) and which escapes what it embeds
 * itself (report/html).
 */
export interface RawOption {
  raw?: boolean;
}
