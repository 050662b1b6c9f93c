import { parseArgs } from './options';
import { generateRun } from './run';

/** CLI: `npm run generate -- --preset bench-100k` or `--rate 10 --duration 90 --seed 7 --out DIR`. */
async function main(): Promise<void> {
  const options = parseArgs(process.argv.slice(2));
  const run = await generateRun(options);
  const counts = (run.expected as { counts: Record<string, number> }).counts;
  const mb = run.bytes / 1e6;
  process.stdout.write(
    `wrote ${run.files.k6}, ${run.files.requests}, ${run.files.spans}, ${run.files.expected}\n` +
      `scheduled ${counts.scheduled}, started ${counts.started}, succeeded ${counts.succeeded}, rejected ${counts.rejected}, ` +
      `failed ${counts.failed}, timed_out ${counts.timed_out}, transport_failed ${counts.transport_failed}, dropped ${counts.generator_dropped}, ` +
      `lost roots ${counts.lost_roots}, traces not exported ${counts.traces_not_exported}, matched ${counts.matched}\n` +
      `${mb.toFixed(1)} MB in ${run.seconds.toFixed(1)} s (${(mb / run.seconds).toFixed(1)} MB/s, ${Math.round(counts.scheduled / run.seconds)} requests/s)\n`,
  );
}

main().catch((err: unknown) => {
  process.stderr.write(`${err instanceof Error ? err.message : String(err)}\n`);
  process.exit(2);
});
