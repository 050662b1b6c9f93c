/**
 * CLI: `node out/bench/replicate/main.js --copies N [--concurrent K] [--seed S] [--source DIR] --out DIR`
 * (or `--requests N`: enough copies for N requests). The source defaults to the repository's copy of
 * the shared joined-otel-js sample (test/fixtures/shared-samples/joined-otel-js).
 */
import * as path from 'path';
import { replicateRun } from './replicate';

export const DEFAULT_SOURCE = path.resolve(__dirname, '..', '..', '..', 'test', 'fixtures', 'shared-samples', 'joined-otel-js');
/** Requests in the source run (120): `--requests N` asks for ceil(N / 120) copies. */
export const SOURCE_REQUESTS = 120;
export const DEFAULT_CONCURRENT = 4;

async function main(): Promise<void> {
  const argv = process.argv.slice(2);
  const get = (flag: string): string | undefined => {
    const i = argv.indexOf(flag);
    return i >= 0 ? argv[i + 1] : undefined;
  };
  const out = get('--out');
  const requests = get('--requests');
  const copies = get('--copies') ?? (requests !== undefined ? String(Math.ceil(Number(requests) / SOURCE_REQUESTS)) : undefined);
  if (out === undefined || copies === undefined) throw new Error('usage: replicate --copies N | --requests N [--concurrent K] [--seed S] [--source DIR] --out DIR');
  const run = await replicateRun({
    source: path.resolve(get('--source') ?? DEFAULT_SOURCE),
    outDir: path.resolve(out),
    copies: Number(copies),
    concurrent: Number(get('--concurrent') ?? DEFAULT_CONCURRENT),
    seed: Number(get('--seed') ?? 1),
  });
  process.stdout.write(`wrote ${out}: ${(run.bytes / 1e6).toFixed(1)} MB in ${run.seconds.toFixed(1)} s\n`);
}

if (require.main === module) {
  main().catch((err: unknown) => {
    process.stderr.write(`${err instanceof Error ? err.message : String(err)}\n`);
    process.exit(2);
  });
}
