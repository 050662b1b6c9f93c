/**
 * `phasewise sql --db FILE "SELECT …"`: one read-only SELECT over the query views of a loaded run
 * (core/views), printed as a table, CSV or JSON. `--help` prints every view and column.
 */
import { runSelect } from '../../core/views/query';
import { renderResult, RESULT_FORMATS, type ResultFormat } from '../../core/views/render';
import { writeSelect } from '../../core/views/streamResult';
import { viewsReference } from '../../core/views/docs';
import { openRunViews } from '../../core/views/session';
import { flagPositiveInt, flagString, parseArgs, UsageError, type FlagSpec } from '../args';
import { readSmallText } from '../../core/formats/input/inputFile';
import { EXIT_PASS } from '../exitCodes';
import { note, writeStdout } from '../output';
import { checkOutputPath, writeOutputFile, writeOutputStream } from '../outputFile';
import { resolveAnalysis, storedJoinKeyHook, storeFlags } from '../session';

const SQL_FLAGS: Readonly<Record<string, FlagSpec>> = {
  db: { kind: 'string' },
  contract: { kind: 'string' },
  window: { kind: 'string' },
  'join-by': { kind: 'string' },
  format: { kind: 'string', alias: 'f' },
  out: { kind: 'string', alias: 'o' },
  file: { kind: 'string' },
  'max-rows': { kind: 'string' },
  'memory-limit': { kind: 'string' },
  threads: { kind: 'string' },
  help: { kind: 'boolean', alias: 'h' },
};

/** Rows a text table shows unless --max-rows says otherwise (CSV and JSON give every row). */
const TEXT_ROWS = 1000;
/** --max-rows above this is a typo (a result this long is for --format csv|json without a limit). */
const MAX_ROWS = 1_000_000_000;

export const SQL_USAGE = `usage: phasewise sql --db FILE [options] "SELECT …"
  one SELECT (or WITH … SELECT) over the query views of a run loaded with 'phasewise analyze --db FILE';
  the file is attached read-only and only a SELECT runs (no INSERT, COPY, ATTACH, SET, PRAGMA, …);
  DuckDB's external access is off and its settings locked: a query reads the run and nothing else
  (no read_csv/read_parquet/read_text/glob of other files, no extensions, no network)
  (when its derived tables are out of date for --contract/--window, the run is analysed first)
  --db FILE              the run
  --file FILE            read the query from FILE instead of the argument
  --contract FILE        phase mapping and window size, as for analyze (they shape pairs, windows, spans.phase)
  --window DURATION      window size of pairs.window_index and windows (default 30s)
  --join-by KEY          trace-id, request-id or request-id=SPAN_ATTRIBUTE (default: the key the run was analysed with)
  --format text|csv|json  (default text); --out FILE writes it to FILE
  --memory-limit SIZE, --threads N   DuckDB's memory limit and threads, as for analyze
  --max-rows N           at most N rows (text default ${TEXT_ROWS}; csv and json: all unless given)
`;

export async function runSql(argv: readonly string[]): Promise<number> {
  const args = parseArgs(argv, SQL_FLAGS);
  if (args.flags.has('help')) {
    await writeStdout(`${SQL_USAGE}\n${viewsReference()}`);
    return EXIT_PASS;
  }
  const db = flagString(args, 'db');
  if (db === undefined) throw new UsageError('sql needs --db FILE (a run loaded with phasewise analyze --db)');
  const format = parseFormat(flagString(args, 'format') ?? 'text');
  const queryFile = flagString(args, 'file');
  if (queryFile !== undefined && args.positional.length > 0) throw new UsageError('give the query as an argument or with --file, not both');
  if (args.positional.length > 1) throw new UsageError(`give the query as one argument (quote it), got ${args.positional.length}`);
  const sql = queryFile !== undefined ? await readQuery(queryFile) : args.positional[0];
  if (sql === undefined) throw new UsageError('give a query: phasewise sql --db FILE "SELECT * FROM pairs LIMIT 10" (phasewise sql --help lists the views)');
  const maxRows = flagPositiveInt(args, 'max-rows', MAX_ROWS) ?? (format === 'text' ? TEXT_ROWS : undefined);

  const out = flagString(args, 'out');
  if (out !== undefined) await checkOutputPath(out, [db, queryFile, flagString(args, 'contract')]);

  const memory = storeFlags(args);
  const { options } = await resolveAnalysis(args);
  const run = await openRunViews(db, options, { untrustedQueries: true, onAnalyse: note, memory, onStoredJoinKey: storedJoinKeyHook(args, options, db) });
  try {
    if (format === 'text') {
      // The table's column widths need every row it shows (at most --max-rows, 1000 by default).
      const text = renderResult(await runSelect(run.store, sql, maxRows), format);
      if (out !== undefined) await writeOutputFile(out, text);
      else await writeStdout(text);
    } else if (out !== undefined) {
      // CSV and JSON go out as the query runs, chunk by chunk: any number of rows in bounded memory.
      await writeOutputStream(out, (write) => writeSelect(run.store, sql, format, write, maxRows));
    } else {
      await writeSelect(run.store, sql, format, (text) => writeStdout(text), maxRows);
    }
  } finally {
    await run.close();
  }
  return EXIT_PASS;
}

function parseFormat(raw: string): ResultFormat {
  if ((RESULT_FORMATS as readonly string[]).includes(raw)) return raw as ResultFormat;
  throw new UsageError(`--format expects one of ${RESULT_FORMATS.join(', ')}, got '${raw}'`);
}

/** A query file larger than this is not a query (a wrong file, or a device). */
const MAX_QUERY_BYTES = 1 << 20;

function readQuery(file: string): Promise<string> {
  return readSmallText(file, 'a file holding the query (--file)', MAX_QUERY_BYTES);
}
