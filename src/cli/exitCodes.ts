/**
 * The exit codes, written once: the constants the commands return, the usage text's table and the
 * README's table (test/cli/errorContract.test.ts checks the README against exitCodeMarkdown()).
 * Exit codes are the CLI's API for CI pipelines: a job can tell "the service got slower" (1) from
 * "the load generator did not deliver the workload" (2) from "the measurement itself is broken" (3)
 * from "you gave me the wrong file" (4) from "Phasewise has a bug" (5).
 */
import type { VerdictStatus } from '../core/report/model';

export interface ExitCodeEntry {
  code: number;
  /** Short label (usage text). */
  label: string;
  /** What it means for `analyze` and `reconcile`. */
  meaning: string;
  /** What it means for `validate` and `k6` (empty: they never return it). */
  contract: string;
  /** What it means for `probe` (empty: it never returns it). */
  probe: string;
  /** What it means for `sql`, `export` and `compare` (empty: they never return it). */
  runs: string;
}

export const EXIT_CODE_TABLE: readonly ExitCodeEntry[] = [
  { code: 0, label: 'pass (or no gates)', meaning: 'pass: the workload was delivered and every gate passed (or there were no gates)', contract: '`validate`: no error; `k6`: the script was written', probe: 'ok: the request succeeded and its trace arrived complete', runs: '`sql`: the query ran; `export`: the pairs were written; `compare`: every `--fail-on` rule passed (or none was given)' },
  { code: 1, label: 'fail', meaning: 'fail: a gate broke; the report names the phase whose budget broke', contract: '`validate`: the contract has errors (with `--strict`, warnings too)', probe: 'the request failed (429, 5xx, timeout, refused)', runs: '`compare`: the whole interval of a `--fail-on` rule is above its threshold' },
  { code: 2, label: 'inconclusive', meaning: 'inconclusive: the workload was not delivered, join coverage is too low, or the steady window is too short', contract: '', probe: 'the trace did not arrive in time', runs: '`compare`: only the point difference is above a `--fail-on` threshold, or the runs are different experiments' },
  { code: 3, label: 'instrumentation failure', meaning: 'instrumentation failure: counters do not reconcile, too many negative envelopes, unparsable content events', contract: '', probe: 'propagation broken or phase spans missing', runs: '' },
  { code: 4, label: 'bad input or usage', meaning: 'bad input or usage: the message names the file, the line (when there is one) and what was expected; a memory limit too small for the input names the flag to raise', contract: 'a file that cannot be read, a usage mistake; `k6`: a contract with errors', probe: 'bad input or usage', runs: 'not a complete Phasewise run (refused untouched: another DuckDB database, a newer schema, an unfinished load), a query that is not one SELECT or that DuckDB rejects, a usage mistake' },
  { code: 5, label: 'internal error', meaning: 'internal error: a bug in Phasewise, never blamed on the input', contract: 'the same', probe: 'the same', runs: 'the same' },
  { code: 130, label: 'interrupted', meaning: 'interrupted (Ctrl-C); a `--db` load that was interrupted leaves the database as it was', contract: 'the same', probe: 'the same', runs: 'the same' },
];

function codeOf(label: string): number {
  const entry = EXIT_CODE_TABLE.find((e) => e.label === label);
  if (!entry) throw new Error(`no exit code labelled '${label}'`);
  return entry.code;
}

export const EXIT_PASS = codeOf('pass (or no gates)');
export const EXIT_FAIL = codeOf('fail');
export const EXIT_INCONCLUSIVE = codeOf('inconclusive');
export const EXIT_INSTRUMENTATION_FAILURE = codeOf('instrumentation failure');
export const EXIT_BAD_INPUT = codeOf('bad input or usage');
/** A bug in Phasewise (not in the input): distinct from 4 so that bad input is never blamed for it. */
export const EXIT_INTERNAL_ERROR = codeOf('internal error');
/** 128 + SIGINT, the shell convention for an interrupted command. */
export const EXIT_INTERRUPTED = codeOf('interrupted');

export function exitCodeForVerdict(status: VerdictStatus): number {
  switch (status) {
    case 'pass':
    case 'not_evaluated':
      return EXIT_PASS;
    case 'fail':
      return EXIT_FAIL;
    case 'inconclusive':
      return EXIT_INCONCLUSIVE;
    case 'instrumentation_failure':
      return EXIT_INSTRUMENTATION_FAILURE;
  }
}

/** The usage text's table: labels, two or three to a line. */
export function exitCodeUsage(): string {
  const cells = EXIT_CODE_TABLE.map((e) => `${e.code} ${e.label}`);
  return `exit codes\n  ${cells.slice(0, 4).join('   ')}\n  ${cells.slice(4).join('   ')}\n`;
}

/** The README's table (Markdown). */
export function exitCodeMarkdown(): string {
  const rows = EXIT_CODE_TABLE.map((e) => `| ${e.code} | ${e.meaning} | ${e.contract || '–'} | ${e.probe || '–'} | ${e.runs || '–'} |`);
  return ['| exit | `analyze`, `reconcile` | `validate`, `k6` | `probe` | `sql`, `export`, `compare` |', '|---:|---|---|---|---|', ...rows].join('\n') + '\n';
}
