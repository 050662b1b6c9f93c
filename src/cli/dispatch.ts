/**
 * The `phasewise` command: dispatches to a subcommand and turns every error into a message and an exit
 * code through the error contract (errorContract.ts; the codes are in exitCodes.ts).
 */
import { PHASEWISE_VERSION } from '../core/version';
import { UsageError } from './args';
import { describeError } from './errorContract';
import { wasInterrupted } from './interrupt';
import { EXIT_PASS } from './exitCodes';
import { note, writeStdout } from './output';
import { USAGE } from './usage';

type Command = (argv: string[]) => Promise<number>;

/**
 * Each command is loaded when it runs: `validate` and `k6` need the contract library (yaml, ajv),
 * `analyze` only with --contract, and loading it up front cost every run 0.1–0.3 s.
 */
const COMMANDS: Readonly<Record<string, Command>> = {
  analyze: async (argv) => (await import('./commands/analyze')).runAnalyze(argv),
  reconcile: async (argv) => (await import('./commands/reconcile')).runReconcile(argv),
  validate: async (argv) => (await import('./commands/validate')).runValidate(argv),
  k6: async (argv) => (await import('./commands/k6')).runK6(argv),
  probe: async (argv) => (await import('./commands/probe')).runProbeCommand(argv),
  receive: async (argv) => (await import('./commands/receive')).runReceive(argv),
  sql: async (argv) => (await import('./commands/sql')).runSql(argv),
  export: async (argv) => (await import('./commands/export')).runExport(argv),
  compare: async (argv) => (await import('./commands/compare')).runCompare(argv),
};

/** Commands whose --help is the shared usage (the others print their own). */
const SHARED_USAGE_COMMANDS = new Set(['analyze', 'reconcile', 'probe', 'receive']);

export async function main(argv: string[]): Promise<number> {
  const [name, ...rest] = argv;
  try {
    if (name === undefined || name === '--help' || name === '-h' || name === 'help') {
      if (name === undefined) throw new UsageError('no command given');
      await writeStdout(USAGE);
      return EXIT_PASS;
    }
    if (name === '--version' || name === '-v') {
      await writeStdout(`${PHASEWISE_VERSION}\n`);
      return EXIT_PASS;
    }
    const command = COMMANDS[name];
    if (!command) throw new UsageError(`unknown command '${name}' (expected ${Object.keys(COMMANDS).join(', ')})`);
    // The commands without a usage of their own print the shared one (receive --help exited 4).
    if (SHARED_USAGE_COMMANDS.has(name) && (rest.includes('--help') || rest.includes('-h'))) {
      await writeStdout(USAGE);
      return EXIT_PASS;
    }
    return await command(rest);
  } catch (err) {
    return reportError(err);
  }
}

/** Prints what the error contract says about `err` and returns its exit code. */
export function reportError(err: unknown): number {
  const outcome = describeError(err, wasInterrupted());
  for (const line of outcome.lines) note(line);
  if (process.env.PHASEWISE_DEBUG) for (const text of outcome.debug) for (const line of text.split('\n')) note(`debug: ${line}`);
  return outcome.code;
}
