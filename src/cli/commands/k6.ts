/**
 * `phasewise k6 FILE [--out SCRIPT.js]`: the k6 script that runs a contract. Refuses contracts with
 * errors (printing them), because a script from a broken contract would run the wrong experiment.
 */
import { writeFile } from 'node:fs/promises';
import { loadContractFile } from '../../core/contract';
import { generateK6Script } from '../../core/contract/k6Script';

const USAGE = 'usage: phasewise k6 FILE.loadcontract.yaml [--out script.js]';

export async function runK6(argv: string[]): Promise<number> {
  let file: string | undefined;
  let out: string | undefined;
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i];
    if (arg === '--out' || arg === '-o') {
      out = argv[++i];
      if (!out) {
        process.stderr.write(`phasewise k6: --out needs a path\n${USAGE}\n`);
        return 2;
      }
    } else if (arg === '--help' || arg === '-h') {
      process.stdout.write(`${USAGE}\n`);
      return 0;
    } else if (arg.startsWith('-')) {
      process.stderr.write(`phasewise k6: unknown option ${arg}\n${USAGE}\n`);
      return 2;
    } else if (file === undefined) file = arg;
    else {
      process.stderr.write(`phasewise k6: one contract at a time\n${USAGE}\n`);
      return 2;
    }
  }
  if (!file) {
    process.stderr.write(`phasewise k6: no contract given\n${USAGE}\n`);
    return 2;
  }
  const { contract, diagnostics } = await loadContractFile(file);
  for (const d of diagnostics) {
    if (d.severity === 'error' || d.severity === 'warning') process.stderr.write(`${file}:${d.line}:${d.column}: ${d.severity} ${d.code} ${d.message}\n`);
  }
  if (!contract) {
    process.stderr.write('phasewise k6: the contract has errors; fix them first (phasewise validate shows all of them)\n');
    return 1;
  }
  let script: string;
  try {
    script = generateK6Script(contract, { contractPath: file });
  } catch (e) {
    process.stderr.write(`phasewise k6: ${e instanceof Error ? e.message : String(e)}\n`);
    return 1;
  }
  if (out) {
    await writeFile(out, script, 'utf8');
    process.stderr.write(`wrote ${out}\n`);
  } else process.stdout.write(script);
  return 0;
}
