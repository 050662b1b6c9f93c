import * as assert from 'assert';
import * as fs from 'fs';
import * as path from 'path';
import { gzipSync } from 'zlib';
import { OutOfMemoryError } from '../../../src/core/errors';
import { choosePlan, pieceParseMiB, wholeFileParseMiB } from '../../../src/core/formats/input/jsonReadPlan';
import { loadFiles } from '../../../src/core/formats/loadFiles';
import { sniffFile } from '../../../src/core/formats/sniff';
import { splitLines } from '../../../src/core/formats/input/splitLines';
import { DuckStore } from '../../../src/core/store/duckStore';
import { normalizeMemoryLimit, normalizeThreads } from '../../../src/core/memorySettings';
import { sharedSamplesDir } from '../../helpers/paths';
import { makeTempDir } from './clientHelpers';

const SAMPLE_SPANS = path.join(sharedSamplesDir, 'joined-otel-js', 'spans.otlp.jsonl');

/** The sample's request bodies merged `k` at a time into one line (what a sink stores at k× the rate). */
function mergedBodies(k: number): string {
  const docs = fs.readFileSync(SAMPLE_SPANS, 'utf8').split('\n').filter((l) => l.length > 0).map((l) => JSON.parse(l) as { resourceSpans: Array<{ scopeSpans: Array<{ spans: unknown[] }> }> });
  const out: string[] = [];
  for (let i = 0; i < docs.length; i += k) {
    const head = docs[i];
    for (const d of docs.slice(i + 1, i + k)) head.resourceSpans[0].scopeSpans[0].spans.push(...d.resourceSpans[0].scopeSpans[0].spans);
    out.push(JSON.stringify(head));
  }
  return out.join('\n') + '\n';
}

async function spanCount(store: DuckStore): Promise<number> {
  const [{ n }] = await store.all<{ n: number }>('SELECT count(*) AS n FROM spans');
  return n;
}

describe('reading span exports within the memory limit', () => {
  let dir: string;
  before(() => {
    dir = makeTempDir('readplan');
  });
  after(() => fs.rmSync(dir, { recursive: true, force: true }));

  it('plans the JSON parse by its measured working set: whole at the default limit, pieces and fewer threads below', () => {
    const mib = (bytes: number): number => (bytes * 0.5) / 2 ** 20;
    // 1200MB on two threads: the whole file (no copy).
    assert.deepStrictEqual(choosePlan(mib(1200e6), 2), { pieceMiB: null, threads: 2 });
    assert.ok(wholeFileParseMiB(2) <= mib(1200e6));
    // 600MB (286 MiB budget): the whole file needs 390, 8 MiB pieces on two threads 2 × 127.
    assert.deepStrictEqual(choosePlan(mib(600e6), 2), { pieceMiB: 8, threads: 2 });
    // --memory-limit 256MB (122 MiB budget): two threads do not fit even 1 MiB pieces (2 × 64), one thread takes 4 MiB (91).
    assert.deepStrictEqual(choosePlan(mib(256e6), 2), { pieceMiB: 4, threads: 1 });
    assert.ok(pieceParseMiB(2, 1) > 122 && pieceParseMiB(1, 4) <= 122 && pieceParseMiB(1, 8) > 122);
    // A line longer than every piece size counts as its own piece size.
    assert.deepStrictEqual(choosePlan(mib(600e6), 2, 20), { pieceMiB: 8, threads: 1 });
    // Nothing fits: one thread, the smallest pieces (DuckDB's out-of-memory then says what to change).
    assert.deepStrictEqual(choosePlan(40, 4), { pieceMiB: 1, threads: 1 });
    assert.deepStrictEqual(choosePlan(undefined, 3), { pieceMiB: null, threads: 3 });
  });

  it('cuts a file into pieces at line ends that concatenate to the file, gzip included', async () => {
    const text = mergedBodies(4);
    const plain = path.join(dir, 'bodies.jsonl');
    fs.writeFileSync(plain, text);
    fs.writeFileSync(`${plain}.gz`, gzipSync(text));
    const longest = Math.max(...text.split('\n').slice(0, -1).map((l) => Buffer.byteLength(l) + 1));
    for (const [file, gzip] of [[plain, false], [`${plain}.gz`, true]] as const) {
      const out = fs.mkdtempSync(path.join(dir, 'pieces-'));
      const r = await splitLines(file, gzip, out, 150_000);
      const pieces = r.files.map((f) => fs.readFileSync(f, 'utf8'));
      assert.strictEqual(pieces.join(''), text);
      assert.ok(pieces.every((p) => p.endsWith('\n')));
      // Each piece holds whole lines and is cut once it reaches the size (a line never spans two).
      assert.ok(pieces.length >= 3 && pieces.every((p) => Buffer.byteLength(p) < 150_000 + longest));
      assert.strictEqual(r.longestLine, longest);
      assert.strictEqual(r.bytes, Buffer.byteLength(text));
    }
  });

  it('sniffs NDJSON whose first line is longer than the 64 KiB head (SDK request bodies), plain and gzip', async () => {
    const text = mergedBodies(4);
    assert.ok(text.indexOf('\n') > 64 * 1024, 'the first line is longer than the head');
    const plain = path.join(dir, 'long-first-line.jsonl');
    fs.writeFileSync(plain, text);
    fs.writeFileSync(`${plain}.gz`, gzipSync(text));
    for (const file of [plain, `${plain}.gz`]) {
      const sniff = await sniffFile(file);
      assert.deepStrictEqual([sniff.format, sniff.lineDelimited], ['otlp-json', true], file);
    }
    // A pretty-printed document is still one document.
    const doc = path.join(dir, 'doc.json');
    fs.writeFileSync(doc, JSON.stringify(JSON.parse(text.split('\n')[0]), null, 2));
    assert.strictEqual((await sniffFile(doc)).lineDelimited, false);
  });

  it('reads a file of 100 KB request bodies with a bad line under the default limit, in slices', async () => {
    const lines = mergedBodies(4).split('\n').filter((l) => l.length > 0);
    // Enough copies that one json_transform chunk of staged lines would hold ≈ 190 MB of JSON.
    const body = Array.from({ length: 400 }, (_, i) => lines[i % lines.length]);
    body[200] = body[200].slice(0, 500);
    const file = path.join(dir, 'bad-bodies.jsonl');
    fs.writeFileSync(file, body.join('\n') + '\n');
    const store = new DuckStore();
    try {
      const [loaded] = await loadFiles(store, [file], { expectSide: 'server' });
      const perLine = lines.map((l) => (JSON.parse(l) as { resourceSpans: Array<{ scopeSpans: Array<{ spans: unknown[] }> }> }).resourceSpans[0].scopeSpans[0].spans.length);
      const expected = body.reduce((n, _, i) => n + (i === 200 ? 0 : perLine[i % lines.length]), 0);
      // Copies repeat span IDs: each distinct span is loaded once, the repeats are counted as duplicates.
      const distinct = new Set(body.filter((_, i) => i !== 200).flatMap((l) => (JSON.parse(l) as { resourceSpans: Array<{ scopeSpans: Array<{ spans: Array<{ traceId: string; spanId: string }> }> }> }).resourceSpans[0].scopeSpans[0].spans.map((s) => `${s.traceId}/${s.spanId}`))).size;
      assert.strictEqual(await spanCount(store), distinct);
      const [dup] = await store.all<{ message: string }>(`SELECT message FROM load_issues WHERE code = 'duplicate-span'`);
      assert.match(dup.message, new RegExp(`^${expected - distinct} duplicate span row`));
      // Every skip counted by kind (the bad line, and the repeated spans in their own unit), and their sum is the file's.
      const skips = await store.all<{ code: string; n: number }>('SELECT code, sum(count)::BIGINT AS n FROM load_skips GROUP BY code ORDER BY code');
      assert.deepStrictEqual(skips, [{ code: 'duplicate-span', n: expected - distinct }, { code: 'malformed-json', n: 1 }]);
      assert.strictEqual(loaded.skipped, 1 + expected - distinct);
      const [bad] = await store.all<{ line: number }>(`SELECT line FROM load_issues WHERE code = 'malformed-json'`);
      assert.strictEqual(bad.line, 201);
    } finally {
      await store.close();
    }
  });

  it('reads a gzip single document (it used to ask DuckDB for 1 GiB buffers and fail under any limit)', async () => {
    const src = path.join(sharedSamplesDir, 'jaeger-json', 'jaeger-ui_TraceFlamegraph_testTrace.json');
    const gz = path.join(dir, 'trace.json.gz');
    fs.writeFileSync(gz, gzipSync(fs.readFileSync(src)));
    const counts: number[] = [];
    for (const file of [src, gz]) {
      const store = new DuckStore();
      try {
        await loadFiles(store, [file], { expectSide: 'server' });
        counts.push(await spanCount(store));
      } finally {
        await store.close();
      }
    }
    assert.ok(counts[0] > 0);
    assert.strictEqual(counts[1], counts[0]);
  });

  it('refuses a single document too large for the limit up front, saying what to change', async () => {
    const doc = path.join(dir, 'big-doc.json');
    const spans = mergedBodies(19).split('\n')[0];
    fs.writeFileSync(doc, JSON.stringify(JSON.parse(spans), null, 2).padEnd(30_000_000, ' '));
    const store = new DuckStore({ memoryLimit: '128MB' });
    try {
      await assert.rejects(loadFiles(store, [doc], { expectSide: 'server' }), (err: unknown) => {
        assert.ok(err instanceof OutOfMemoryError);
        assert.strictEqual(err.file, doc);
        assert.match(err.message, /is one JSON document of 30MB: reading a single document takes about 2\d\dMB .* memory limit of 128MB; raise it with --memory-limit 2\d\dMB, or write the spans one request per line/);
        return true;
      });
      assert.strictEqual(await spanCount(store), 0);
    } finally {
      await store.close();
    }
  });

  it('checks memory limits and thread counts as users write them', () => {
    assert.strictEqual(normalizeMemoryLimit('2GB'), '2GB');
    assert.strictEqual(normalizeMemoryLimit(' 1.5 gib'), '1.5GiB');
    assert.strictEqual(normalizeMemoryLimit('256mb'), '256MB');
    assert.throws(() => normalizeMemoryLimit('lots'), /expects a size such as 2GB/);
    assert.throws(() => normalizeMemoryLimit('64MB'), /at least 128MB/);
    assert.strictEqual(normalizeThreads('4'), 4);
    assert.throws(() => normalizeThreads('0'), /from 1 to 1024/);
    assert.throws(() => normalizeThreads('two'), /from 1 to 1024/);
  });
});
