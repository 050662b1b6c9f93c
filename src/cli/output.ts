/**
 * Where the CLI writes: reports to stdout, everything about the run (notes, progress, errors) to
 * stderr. Both sinks escape control characters (report/escape.ts): text from input files reaches
 * them in messages and reports, and must never drive the terminal.
 */
import { escapeLine, escapeText } from '../core/escape';

/** Writes one line to stderr (diagnostics never go to stdout, which may be a report piped elsewhere). */
export function note(line: string): void {
  process.stderr.write(`${escapeLine(line)}\n`);
}

/**
 * Resolves once the text is handed to the OS, so exiting right after cannot truncate a piped report.
 * A failed write (a closed pipe, a full disk) rejects with the OS error, which the error contract
 * reports as bad output, not as a bug.
 */
export function writeStdout(text: string, options: RawOption = {}): Promise<void> {
  const out = options.raw ? text : escapeText(text);
  return new Promise((resolve, reject) => process.stdout.write(out, (err) => (err ? reject(err) : resolve())));
}

/**
 * `raw`: the text is written as it is. Only for the self-contained HTML export, whose scripts are
 * allowed by the hash of their exact text (escaping would change it) and which escapes what it embeds
 * itself (report/html).
 */
export interface RawOption {
  raw?: boolean;
}
