/**
 * `node out/test/hostile/outcomes.js [--cli path/to/cli.js]`: the corpus's outcomes as a table
 * (exit code, and whether the case meets its expectation), for comparing two builds side by side.
 */
import { loadManifest, runCase } from './corpus';

async function main(): Promise<void> {
  const at = process.argv.indexOf('--cli');
  const cli = at > 0 ? process.argv[at + 1] : undefined;
  const only = process.argv.includes('--only') ? process.argv[process.argv.indexOf('--only') + 1] : undefined;
  let met = 0;
  const cases = loadManifest().filter((c) => only === undefined || c.id === only);
  for (const c of cases) {
    const run = await runCase(c, cli);
    if (run.failures.length === 0) met++;
    const first = run.failures[0] ?? '';
    process.stdout.write(`${c.id}\t${c.item}\texit ${run.result.status}\t${run.failures.length === 0 ? 'meets' : `FAILS: ${first.slice(0, 160)}`}\n`);
    if (only !== undefined) process.stdout.write(`--- stderr\n${run.result.stderr}\n--- stdout (first 2000)\n${run.result.stdout.slice(0, 2000)}\n`);
  }
  process.stdout.write(`${met} of ${cases.length} cases meet their expected outcome\n`);
}

void main();
