/**
 * The `phasewise` command: dispatches to a subcommand and turns every error into a message and an exit
 * code (never a stack trace for bad input; see exitCodes.ts).
 */
import { CancelledError, ContractError, InputError } from '../core/errors';
import { PHASEWISE_VERSION } from '../core/version';
import { UsageError } from './args';
import { wasInterrupted } from './interrupt';
import { EXIT_BAD_INPUT, EXIT_INTERNAL_ERROR, EXIT_INTERRUPTED, EXIT_PASS } from './exitCodes';
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
};

export async function main(argv: string[]): Promise<number> {
  const [name, ...rest] = argv;
  if (name === undefined || name === '--help' || name === '-h' || name === 'help') {
    process.stdout.write(USAGE);
    return name === undefined ? EXIT_BAD_INPUT : EXIT_PASS;
  }
  if (name === '--version' || name === '-v') {
    process.stdout.write(`${PHASEWISE_VERSION}\n`);
    return EXIT_PASS;
  }
  const command = COMMANDS[name];
  if (!command) return usageError(`unknown command '${name}'`);
  if (['analyze', 'reconcile', 'probe', 'receive'].includes(name) && (rest.includes('--help') || rest.includes('-h'))) {
    process.stdout.write(USAGE);
    return EXIT_PASS;
  }
  try {
    return await command(rest);
  } catch (err) {
    return reportError(err);
  }
}

function usageError(message: string): number {
  process.stderr.write(`phasewise: ${message}\nrun 'phasewise --help' for usage\n`);
  return EXIT_BAD_INPUT;
}

function reportError(err: unknown): number {
  if (err instanceof UsageError) return usageError(err.message);
  if (err instanceof InputError) {
    process.stderr.write(`phasewise: ${err.message}\n`);
    return EXIT_BAD_INPUT;
  }
  if (err instanceof ContractError) {
    process.stderr.write(err.lines.join('\n') + '\n');
    return EXIT_BAD_INPUT;
  }
  // After Ctrl-C, whatever the interrupted query threw is the interruption, not a failure.
  if (err instanceof CancelledError || wasInterrupted()) {
    process.stderr.write('phasewise: interrupted\n');
    return EXIT_INTERRUPTED;
  }
  const message = err instanceof Error ? err.message : String(err);
  process.stderr.write(`phasewise: internal error: ${message}\n`);
  if (process.env.PHASEWISE_DEBUG && err instanceof Error && err.stack) process.stderr.write(`${err.stack}\n`);
  return EXIT_INTERNAL_ERROR;
}
