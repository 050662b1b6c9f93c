/**
 * Whether the user pressed Ctrl-C during this command. DuckDB reports an interrupted query as an
 * ordinary error; this flag is how the error handler tells it apart from a real failure (exit 130).
 */
let interrupted = false;

export function markInterrupted(): void {
  interrupted = true;
}

export function wasInterrupted(): boolean {
  return interrupted;
}

/** A new command starts uninterrupted (several run in one process through runInProcess). */
export function clearInterrupted(): void {
  interrupted = false;
}
