/**
 * `phasewise k6 FILE [--out SCRIPT.js]`: the k6 script that runs a contract. Refuses contracts with
 * errors (printing them, exit 4), because a script from a broken contract would run the wrong experiment.
 */
import { parseContract, readContractText } from '../../core/contract';
import { generateK6Script, K6GenerationError } from '../../core/contract/k6/k6Script';
import { ContractError, InputError } from '../../core/errors';
import { formatDiagnostic } from '../../core/run/contractInput';
import { flagBoolean, flagString, parseArgs, UsageError, type FlagSpec } from '../args';
import { EXIT_PASS } from '../exitCodes';
import { note, writeStdout } from '../output';
import { checkOutputPath, writeOutputFile } from '../outputFile';

const USAGE = 'usage: phasewise k6 FILE.loadcontract.yaml [--out script.js]';

const K6_FLAGS: Readonly<Record<string, FlagSpec>> = {
  out: { kind: 'string', alias: 'o' },
  help: { kind: 'boolean', alias: 'h' },
};

export async function runK6(argv: readonly string[]): Promise<number> {
  const args = parseArgs(argv, K6_FLAGS);
  if (flagBoolean(args, 'help')) {
    await writeStdout(`${USAGE}\n`);
    return EXIT_PASS;
  }
  if (args.positional.length === 0) throw new UsageError(`no contract given (${USAGE})`);
  if (args.positional.length > 1) throw new UsageError(`one contract at a time, got ${args.positional.length} (${USAGE})`);
  const [file] = args.positional;
  const out = flagString(args, 'out');
  const text = await readContractText(file);
  if (out !== undefined) await checkOutputPath(out, [file]);
  const { contract, diagnostics } = parseContract(text, file);
  const shown = diagnostics.filter((d) => d.severity === 'error' || d.severity === 'warning').map((d) => formatDiagnostic(file, d));
  if (!contract) {
    throw new ContractError(file, [...shown, 'phasewise k6: the contract has errors; fix them first (phasewise validate shows all of them)']);
  }
  for (const line of shown) note(line);
  let script: string;
  try {
    script = generateK6Script(contract, { contractPath: file });
  } catch (e) {
    if (e instanceof K6GenerationError) throw new InputError(file, undefined, 'a contract whose workload k6 can run', e.message);
    throw e;
  }
  if (out !== undefined) {
    await writeOutputFile(out, script);
    note(`wrote ${out}`);
  } else await writeStdout(script);
  return EXIT_PASS;
}
