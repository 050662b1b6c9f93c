import * as assert from 'assert';
import { rmSync } from 'fs';
import * as os from 'os';
import * as path from 'path';
import { DEFAULT_ANALYSIS_OPTIONS } from '../../../src/core/analysis/options';
import { loadRunIntoDatabase } from '../../../src/core/run/loadRun';
import { QueryRefused, runSelect } from '../../../src/core/views/query';
import { renderResult } from '../../../src/core/views/render';
import { openRunViews, type RunViews } from '../../../src/core/views/session';
import { writeSelect, type StreamFormat } from '../../../src/core/views/streamResult';
import { repoRoot } from '../../helpers/paths';

/**
 * A query result written as it streams (streamResult.ts) is byte for byte the text the whole result
 * renders to (render.ts, which `phasewise sql` wrote before it streamed), across DuckDB's chunks of
 * 2048 rows, with and without a row limit; and it is written in pieces, not at the end.
 */
describe('streamed query results (core/views/streamResult.ts)', function () {
  this.timeout(120_000);
  const db = path.join(os.tmpdir(), `phasewise-stream-${process.pid}.duckdb`);
  let run: RunViews;

  before(async () => {
    rmSync(db, { force: true });
    const samples = path.join(repoRoot, 'samples');
    await loadRunIntoDatabase(db, { run: [path.join(samples, 'k6.ndjson')], spans: [path.join(samples, 'spans.otlp.jsonl')] });
    run = await openRunViews(db, DEFAULT_ANALYSIS_OPTIONS, { untrustedQueries: true });
  });
  after(async () => {
    await run?.close();
    rmSync(db, { force: true });
  });

  const QUERIES = [
    // Every kind of cell: repeated names, NULL, a list, a struct with a quote, a comma, edge spaces,
    // a line feed, non-ASCII, infinity (null in JSON), a HUGEINT past 2^53, a timestamp.
    `SELECT 1 AS a, 1 AS a, NULL AS n, [1, 2] AS l, {'x': 'y"z'} AS s, 'a,b' AS c, ' sp' AS p, 'line' || chr(10) || 'feed' AS lf,
            'é😀' AS u, 1e308 * 10 AS inf, 12345678901234567890::HUGEINT AS big, TIMESTAMP '2025-01-01 00:00:00' AS t`,
    'SELECT i, i * 0.5 AS half, CASE WHEN i % 7 = 0 THEN NULL ELSE \'r\' || i END AS label FROM range(5000) r(i)',
    'SELECT * FROM pairs ORDER BY request_no',
    'SELECT 1 AS x WHERE false',
  ];

  for (const format of ['csv', 'json'] as StreamFormat[]) {
    for (const limit of [undefined, 1, 2048, 2049, 4999, 5000, 6000]) {
      it(`${format}${limit === undefined ? '' : `, at most ${limit} rows`}: the same text as the whole result`, async () => {
        for (const sql of QUERIES) {
          const pieces: string[] = [];
          const streamed = await writeSelect(run.store, sql, format, async (text) => {
            pieces.push(text);
          }, limit);
          const whole = await runSelect(run.store, sql, limit);
          assert.strictEqual(pieces.join(''), renderResult(whole, format), sql);
          assert.deepStrictEqual(streamed, { rows: whole.rows.length, truncated: whole.truncated }, sql);
          // 5000 rows come in three chunks: the text is handed on as they arrive.
          if (sql.includes('range(5000)') && (limit ?? 5000) > 4096) assert.ok(pieces.length >= 4, `${pieces.length} pieces`);
        }
      });
    }
  }

  it('refuses a query DuckDB cannot run as the whole result does', async () => {
    await assert.rejects(writeSelect(run.store, "SELECT CAST('x' AS INTEGER)", 'csv', async () => undefined), (err: unknown) => err instanceof QueryRefused && /Could not convert string 'x'/.test(err.reason));
    await assert.rejects(writeSelect(run.store, 'DROP TABLE x', 'csv', async () => undefined), QueryRefused);
  });
});
