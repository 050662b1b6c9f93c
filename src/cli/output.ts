/** Where the CLI writes: reports to stdout, everything about the run (notes, progress, errors) to stderr. */

/** Writes a line to stderr (diagnostics never go to stdout, which may be a report piped elsewhere). */
export function note(line: string): void {
  process.stderr.write(`${line}\n`);
}

/** Resolves once the text is handed to the OS, so exiting right after cannot truncate a piped report. */
export function writeStdout(text: string): Promise<void> {
  return new Promise((resolve, reject) => process.stdout.write(text, (err) => (err ? reject(err) : resolve())));
}
