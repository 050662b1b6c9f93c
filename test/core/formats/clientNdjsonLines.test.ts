import * as assert from 'assert';
import * as fs from 'fs';
import * as path from 'path';
import { gzipSync } from 'zlib';
import { InputError, OutOfMemoryError } from '../../../src/core/errors';
import { isDataError, stageNdjson } from '../../../src/core/formats/input/ndjsonLines';
import { DuckStore } from '../../../src/core/store/duckStore';
import { sharedSamplesDir } from '../../helpers/paths';
import { contextFor, issuesOf, makeTempDir } from './clientHelpers';

const REQUESTS = path.join(sharedSamplesDir, 'joined-otel-js', 'requests.ndjson');

describe('stageNdjson (line-exact NDJSON staging)', () => {
  let dir: string;
  let store: DuckStore;
  before(() => {
    dir = makeTempDir('ndjson');
  });
  after(() => fs.rmSync(dir, { recursive: true, force: true }));
  beforeEach(() => {
    store = new DuckStore({ threads: 2 });
  });
  afterEach(async () => store.close());

  it('stages a clean file with one row per line and no issues', async () => {
    const ctx = await contextFor(store, REQUESTS);
    const res = await stageNdjson(ctx, 'staged');
    // `wc -l requests.ndjson` = 120, no blank lines.
    assert.deepStrictEqual(res, { lines: 120, skipped: 0, blank: 0 });
    const rows = await store.all<{ line: number; id: string }>("SELECT line, doc->>'request_id' AS id FROM staged WHERE line IN (1, 120) ORDER BY line");
    assert.deepStrictEqual(rows, [
      { line: 1, id: 'out-public-000000' },
      { line: 120, id: 'out-public-000119' },
    ]);
    assert.deepStrictEqual(await issuesOf(store), []);
  });

  it('skips a malformed middle line, a blank line and a truncated last line with exact line numbers', async () => {
    const lines = fs.readFileSync(REQUESTS, 'utf8').split('\n').slice(0, 10);
    lines[3] = '{"request_id": "broken", ';   // line 4: malformed
    lines.splice(6, 0, '');                 // line 7: blank, shifts the rest down by one
    const text = lines.join('\n') + '\n' + '{"run_id":"out-public","request_id":"out-pu'; // line 12: truncated, no newline
    const file = path.join(dir, 'bad.ndjson');
    fs.writeFileSync(file, text);
    const ctx = await contextFor(store, file);
    const res = await stageNdjson(ctx, 'staged');
    // 10 original lines + 1 blank + 1 truncated = 12 lines; valid: 10 − 1 malformed = 9
    assert.deepStrictEqual(res, { lines: 9, skipped: 2, blank: 1 });
    const issues = await issuesOf(store);
    assert.deepStrictEqual(
      issues.map((i) => [i.line, i.severity, i.code]),
      [
        [4, 'warning', 'malformed-json'],
        [7, 'info', 'blank-lines'],
        [12, 'warning', 'truncated-line'],
      ],
    );
    assert.match(issues[0].message, /expected one JSON object per line, found '\{"request_id": "broken", '/);
    const staged = await store.all<{ line: number }>('SELECT line FROM staged ORDER BY line');
    assert.deepStrictEqual(staged.map((r) => r.line), [1, 2, 3, 5, 6, 8, 9, 10, 11]);
  });

  it('reads gzip input', async () => {
    const file = path.join(dir, 'requests.ndjson.gz');
    fs.writeFileSync(file, gzipSync(fs.readFileSync(REQUESTS)));
    const ctx = await contextFor(store, file);
    assert.strictEqual(ctx.sniff.gzip, true);
    const res = await stageNdjson(ctx, 'staged');
    assert.deepStrictEqual(res, { lines: 120, skipped: 0, blank: 0 });
  });

  it('throws an InputError naming the file and the first bad line when no line is valid', async () => {
    const file = path.join(dir, 'allbad.ndjson');
    fs.writeFileSync(file, '{"request_id": 1}\n');
    const ctx = await contextFor(store, file);
    fs.writeFileSync(file, '\n{"request_id": \nnot json\n');
    await assert.rejects(stageNdjson(ctx, 'staged'), (err: unknown) => {
      assert.ok(err instanceof InputError);
      assert.strictEqual(err.file, file);
      assert.strictEqual(err.line, 2);
      return true;
    });
  });

  it('retries line by line after a malformed file, never after running out of memory', async () => {
    const dir = makeTempDir('dataerror');
    const bad = path.join(dir, 'bad.ndjson');
    fs.writeFileSync(bad, '{"a": 1}\n{"a": \n');
    const store = new DuckStore({ memoryLimit: '64MB' });
    try {
      const malformed = await store.all(`SELECT * FROM read_json($1, format = 'newline_delimited')`, [bad]).catch((e: unknown) => e);
      assert.ok(malformed instanceof Error && isDataError(malformed), String(malformed));
      // A 20M-element list cannot spill: out of memory (with the limit in force, never DuckDB's text), which no line-by-line retry can cure.
      const oom = await store.all('SELECT len(list(i)) AS n FROM range(20000000) r(i)').catch((e: unknown) => e);
      assert.ok(oom instanceof OutOfMemoryError && /memory limit of 64MB/.test(oom.message) && !/Out of Memory Error/.test(oom.message), String(oom));
      assert.strictEqual(isDataError(oom), false);
    } finally {
      await store.close();
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });
});
