/**
 * `phasewise validate FILE...`: contract diagnostics as `file:line:col: severity code message`, the
 * shape VS Code problem matchers and most CI annotators read. Exit 0 clean or warnings only, 1 on any
 * error (or any warning with --strict), 4 on usage errors and files that cannot be read (exitCodes.ts).
 */
import { parseContract, readContractText } from '../../core/contract';
import { formatDiagnostic } from '../../core/run/contractInput';
import { escapeLine } from '../../core/escape';
import { flagBoolean, parseArgs, UsageError, type FlagSpec } from '../args';
import { EXIT_FAIL, EXIT_PASS } from '../exitCodes';
import { note, writeStdout } from '../output';

const USAGE = 'usage: phasewise validate [--strict] [--quiet] FILE.loadcontract.yaml...';

const VALIDATE_FLAGS: Readonly<Record<string, FlagSpec>> = {
  strict: { kind: 'boolean' },
  quiet: { kind: 'boolean', alias: 'q' },
  help: { kind: 'boolean', alias: 'h' },
};

export async function runValidate(argv: readonly string[]): Promise<number> {
  const args = parseArgs(argv, VALIDATE_FLAGS);
  if (flagBoolean(args, 'help')) {
    await writeStdout(`${USAGE}\n`);
    return EXIT_PASS;
  }
  const files = args.positional;
  if (files.length === 0) throw new UsageError(`no contract given (${USAGE})`);
  // Every file first: a typo in the third path must not hide behind the diagnostics of the first two.
  const texts: string[] = [];
  for (const file of files) texts.push(await readContractText(file));
  const strict = flagBoolean(args, 'strict');
  const quiet = flagBoolean(args, 'quiet');
  const counts = { error: 0, warning: 0, information: 0, hint: 0 };
  const out: string[] = [];
  for (const [i, file] of files.entries()) {
    const { diagnostics } = parseContract(texts[i], file);
    for (const d of diagnostics) {
      counts[d.severity]++;
      if (quiet && d.severity !== 'error') continue;
      out.push(formatDiagnostic(file, d));
    }
  }
  // One line per diagnostic: a contract value quoted in a message cannot add a line of its own.
  if (out.length > 0) await writeStdout(out.map(escapeLine).join('\n') + '\n');
  const plural = (n: number, w: string): string => `${n} ${w}${n === 1 ? '' : 's'}`;
  note(`${plural(files.length, 'contract')}: ${plural(counts.error, 'error')}, ${plural(counts.warning, 'warning')}, ${counts.information} information`);
  return counts.error > 0 || (strict && counts.warning > 0) ? EXIT_FAIL : EXIT_PASS;
}
