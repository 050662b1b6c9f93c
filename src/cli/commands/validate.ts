/**
 * `phasewise validate FILE...`: contract diagnostics as `file:line:col: severity code message`, the
 * shape VS Code problem matchers and most CI annotators read. Exit 0 clean or warnings only, 1 on any
 * error (or any warning with --strict), 2 on usage errors.
 */
import { loadContractFile } from '../../core/contract';

const USAGE = 'usage: phasewise validate [--strict] [--quiet] FILE.loadcontract.yaml...';

export async function runValidate(argv: string[]): Promise<number> {
  const files: string[] = [];
  let strict = false;
  let quiet = false;
  for (const arg of argv) {
    if (arg === '--strict') strict = true;
    else if (arg === '--quiet') quiet = true;
    else if (arg === '--help' || arg === '-h') {
      process.stdout.write(`${USAGE}\n`);
      return 0;
    } else if (arg.startsWith('-')) {
      process.stderr.write(`phasewise validate: unknown option ${arg}\n${USAGE}\n`);
      return 2;
    } else files.push(arg);
  }
  if (files.length === 0) {
    process.stderr.write(`phasewise validate: no contract given\n${USAGE}\n`);
    return 2;
  }
  const counts = { error: 0, warning: 0, information: 0, hint: 0 };
  for (const file of files) {
    const { diagnostics } = await loadContractFile(file);
    for (const d of diagnostics) {
      counts[d.severity]++;
      if (quiet && d.severity !== 'error') continue;
      process.stdout.write(`${file}:${d.line}:${d.column}: ${d.severity} ${d.code} ${d.message}\n`);
    }
  }
  const plural = (n: number, w: string): string => `${n} ${w}${n === 1 ? '' : 's'}`;
  process.stderr.write(`${plural(files.length, 'contract')}: ${plural(counts.error, 'error')}, ${plural(counts.warning, 'warning')}, ${counts.information} information\n`);
  return counts.error > 0 || (strict && counts.warning > 0) ? 1 : 0;
}
