/**
 * The error contract (docs/metrics.md §7) as one function: whatever a command throws becomes an exit code from
 * exitCodes.ts and the lines printed on stderr. Bad input names the file, the line and what was
 * expected (exit 4); DuckDB's own messages, SQL and stack traces never reach the user (with
 * PHASEWISE_DEBUG=1 they are printed too, for a bug report); a failure that is ours is exit 5 and
 * says so.
 */
import { CancelledError, ContractError, InputError, OutOfMemoryError, StoreError } from '../core/errors';
import { osReason } from '../core/outputFile';
import { UsageError } from './args';
import { EXIT_BAD_INPUT, EXIT_INTERNAL_ERROR, EXIT_INTERRUPTED } from './exitCodes';

export interface ErrorOutcome {
  code: number;
  /** Lines for stderr (escaped by the writer). */
  lines: string[];
  /** Only with PHASEWISE_DEBUG: DuckDB's message, the SQL, the stack. */
  debug: string[];
}

/** Maps a thrown value to its exit code and message; `interrupted` is true after Ctrl-C. */
export function describeError(err: unknown, interrupted: boolean): ErrorOutcome {
  if (err instanceof UsageError) {
    return { code: EXIT_BAD_INPUT, lines: [`phasewise: ${err.message}`, "run 'phasewise --help' for usage"], debug: [] };
  }
  if (err instanceof InputError) return { code: EXIT_BAD_INPUT, lines: [`phasewise: ${err.message}`], debug: [] };
  if (err instanceof ContractError) return { code: EXIT_BAD_INPUT, lines: err.lines, debug: [] };
  // After Ctrl-C, whatever the interrupted query threw is the interruption, not a failure.
  if (err instanceof CancelledError || interrupted) return { code: EXIT_INTERRUPTED, lines: ['phasewise: interrupted'], debug: [] };
  // A memory limit too small for a step that cannot spill: the message names the flag to change (a
  // setting too small for this input, like a usage problem: exit 4, not our bug).
  if (err instanceof OutOfMemoryError) return { code: EXIT_BAD_INPUT, lines: [`phasewise: ${err.message}`], debug: debugLines(err) };
  const os = osReason(err);
  if (os) {
    const what = os.syscall === 'write' || os.syscall === 'open' ? `cannot ${os.syscall}` : 'cannot use';
    return { code: EXIT_BAD_INPUT, lines: [`phasewise: ${os.path ?? 'a file'}: ${what} it: ${os.reason}`], debug: debugLines(err) };
  }
  if (err instanceof StoreError) {
    const memory = /^Out of Memory Error/.test(err.message);
    const line = memory
      ? `phasewise: DuckDB ran out of memory${err.context ? ` ${err.context}` : ''}; the machine needs more free memory for this run (not a problem in your files)`
      : `phasewise: internal error: a DuckDB statement failed${err.context ? ` ${err.context}` : ''}; this is a bug in Phasewise, not in your files (PHASEWISE_DEBUG=1 shows DuckDB's message)`;
    return { code: EXIT_INTERNAL_ERROR, lines: [line], debug: [err.message, err.sql, ...debugLines(err)] };
  }
  const message = err instanceof Error ? err.message : String(err);
  return {
    code: EXIT_INTERNAL_ERROR,
    lines: [`phasewise: internal error: ${firstLine(message)}; this is a bug in Phasewise, not in your files (PHASEWISE_DEBUG=1 shows more)`],
    debug: debugLines(err),
  };
}

function debugLines(err: unknown): string[] {
  return err instanceof Error && err.stack ? [err.stack] : [];
}

/** DuckDB's messages run over several lines (the SQL, a caret); an internal message keeps only its first. */
function firstLine(text: string): string {
  const line = text.split('\n')[0];
  // An internal error that quotes a DuckDB message must not pass it on (docs/metrics.md §7).
  return /\b(Binder|Parser|Catalog|Conversion|Invalid Input|Constraint|Out of Range|INTERNAL|Not implemented|Serialization|Transaction|IO) Error\b/.test(line)
    ? 'a DuckDB statement failed'
    : line;
}
