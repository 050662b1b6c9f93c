/**
 * The `phasewise` command: dispatches to a subcommand and turns every error into a message and an exit
 * code (never a stack trace for bad input; see exitCodes.ts).
 */
import { CancelledError, InputError } from '../core/errors';
import { PHASEWISE_VERSION } from '../core/version';
import { UsageError } from './args';
import { runAnalyze } from './commands/analyze';
import { runK6 } from './commands/k6';
import { runReconcile } from './commands/reconcile';
import { runValidate } from './commands/validate';
import { ContractError } from '../core/report/contractInput';
import { wasInterrupted } from './interrupt';
import { EXIT_BAD_INPUT, EXIT_INTERNAL_ERROR, EXIT_INTERRUPTED, EXIT_PASS } from './exitCodes';
import { USAGE } from './usage';

type Command = (argv: string[]) => Promise<number>;

const COMMANDS: Readonly<Record<string, Command>> = {
  analyze: runAnalyze,
  reconcile: runReconcile,
  validate: runValidate,
  k6: runK6,
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
  if ((name === 'analyze' || name === 'reconcile') && (rest.includes('--help') || rest.includes('-h'))) {
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
