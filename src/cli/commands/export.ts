/**
 * `phasewise export --db FILE --out pairs.parquet|pairs.csv`: the raw pairs of a loaded run through
 * the query views (core/views/exportPairs.ts).
 */
import { EXPORT_FORMATS, exportFormatOf, exportPairs, type ExportFormat } from '../../core/views/exportPairs';
import { openRunViews } from '../../core/views/session';
import { flagBoolean, flagString, parseArgs, UsageError, type FlagSpec } from '../args';
import { EXIT_PASS } from '../exitCodes';
import { note, writeStdout } from '../output';
import { replaceOutput } from '../../core/outputFile';
import { checkOutputPath, OUT_EXPECTED } from '../outputFile';
import { resolveAnalysis, storedJoinKeyHook, storeFlags } from '../session';

const EXPORT_FLAGS: Readonly<Record<string, FlagSpec>> = {
  db: { kind: 'string' },
  out: { kind: 'string', alias: 'o' },
  format: { kind: 'string', alias: 'f' },
  contract: { kind: 'string' },
  window: { kind: 'string' },
  'join-by': { kind: 'string' },
  quiet: { kind: 'boolean', alias: 'q' },
  'memory-limit': { kind: 'string' },
  threads: { kind: 'string' },
  help: { kind: 'boolean', alias: 'h' },
};

export const EXPORT_USAGE = `usage: phasewise export --db FILE --out pairs.parquet|pairs.csv [options]
  one row per client request (the pairs view: trace ID, outcome, status class, group dimensions,
  window and every owner's duration; nothing that could hold prompt or response text)
  --format parquet|csv   when the file name does not say (.parquet, .csv)
  --contract FILE        phase mapping and window size, as for analyze; --window DURATION (default 30s)
  --join-by KEY          trace-id, request-id or request-id=SPAN_ATTRIBUTE (default: the key the run was analysed with)
  --memory-limit SIZE, --threads N   DuckDB's memory limit and threads, as for analyze
  columns: phasewise sql --help (view pairs)
`;

export async function runExport(argv: readonly string[]): Promise<number> {
  const args = parseArgs(argv, EXPORT_FLAGS);
  if (flagBoolean(args, 'help')) {
    await writeStdout(EXPORT_USAGE);
    return EXIT_PASS;
  }
  if (args.positional.length > 0) throw new UsageError(`unexpected argument '${args.positional[0]}'`);
  const db = flagString(args, 'db');
  const out = flagString(args, 'out');
  if (db === undefined || out === undefined) throw new UsageError('export needs --db FILE and --out pairs.parquet|pairs.csv');
  const format = parseFormat(flagString(args, 'format'), out);
  await checkOutputPath(out, [db, flagString(args, 'contract')]);

  const memory = storeFlags(args);
  const { options } = await resolveAnalysis(args);
  const run = await openRunViews(db, options, { onAnalyse: note, memory, onStoredJoinKey: storedJoinKeyHook(args, options, db, flagBoolean(args, 'quiet')) });
  try {
    const rows = await replaceOutput(out, (file) => exportPairs(run, file, format), OUT_EXPECTED);
    if (!flagBoolean(args, 'quiet')) note(`phasewise: ${rows} pair${rows === 1 ? '' : 's'} written to ${out} (${format})`);
  } finally {
    await run.close();
  }
  return EXIT_PASS;
}

function parseFormat(raw: string | undefined, out: string): ExportFormat {
  if (raw !== undefined) {
    if ((EXPORT_FORMATS as readonly string[]).includes(raw)) return raw as ExportFormat;
    throw new UsageError(`--format expects one of ${EXPORT_FORMATS.join(', ')}, got '${raw}'`);
  }
  const byName = exportFormatOf(out);
  if (byName === undefined) throw new UsageError(`--out ${out}: name it .parquet or .csv, or give --format parquet|csv`);
  return byName;
}
