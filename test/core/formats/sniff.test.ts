import * as assert from 'assert';
import * as fs from 'fs';
import * as path from 'path';
import { InputError } from '../../../src/core/errors';
import { loadFiles } from '../../../src/core/formats/loadFiles';
import { sniffFile } from '../../../src/core/formats/sniff';
import { DuckStore } from '../../../src/core/store/duckStore';
import { fixture, sharedSamplesDir } from '../../helpers/paths';
import { makeTempDir } from './clientHelpers';

describe('sniffing client-side files', () => {
  let dir: string;
  before(() => {
    dir = makeTempDir('sniff');
  });
  after(() => fs.rmSync(dir, { recursive: true, force: true }));

  it('recognises every client-side sample by content', async () => {
    const cases: Array<[string, string]> = [
      [path.join(sharedSamplesDir, 'k6-json', 'xk6-dashboard_dashboard_testdata_result.json'), 'k6-json'],
      [path.join(sharedSamplesDir, 'joined-otel-js', 'k6.ndjson'), 'k6-json'],
      [path.join(sharedSamplesDir, 'joined-otel-js', 'requests.ndjson'), 'records-ndjson'],
      [path.join(sharedSamplesDir, 'k6-summary', 'k6-reporter_tests_test-data.json'), 'k6-summary'],
      [path.join(sharedSamplesDir, 'k6-summary', 'k6-reporter_tests_data_grpc.json'), 'k6-summary'],
      [fixture('client-readers', 'k6-summary-export-legacy.json'), 'k6-summary'],
      [fixture('client-readers', 'k6-joined-slice.csv'), 'k6-csv'],
      [fixture('client-readers', 'records-slice.csv'), 'records-csv'],
      [fixture('tools', 'aiperf-profile_export.from-docs.jsonl'), 'aiperf-jsonl'],
      [fixture('tools', 'vllm-bench-serve.save-detailed.from-code.json'), 'vllm-bench-json'],
      [fixture('tools', 'guidellm-report.from-schema.json'), 'guidellm-json'],
    ];
    for (const [file, format] of cases) {
      assert.strictEqual((await sniffFile(file)).format, format, path.basename(file));
    }
  });

  it('takes no shared sample (k6, records, OTLP, Jaeger, Zipkin, Tempo) for another load generator', async () => {
    const tools = new Set(['aiperf-jsonl', 'vllm-bench-json', 'guidellm-json']);
    const files = fs.readdirSync(sharedSamplesDir, { recursive: true, encoding: 'utf8' })
      .map((f) => path.join(sharedSamplesDir, f))
      .filter((f) => fs.statSync(f).isFile() && !f.endsWith('.md') && !f.endsWith('.pb'));
    assert.ok(files.length >= 20, `${files.length} samples`);
    for (const file of files) {
      const format = await sniffFile(file).then((s) => s.format, () => 'refused');
      assert.ok(!tools.has(format), `${path.relative(sharedSamplesDir, file)} sniffed as ${format}`);
    }
  });

  it('reads a vLLM result on one line and a guidellm report on one line as documents, not records', async () => {
    const one = path.join(dir, 'guidellm-one-line.json');
    fs.writeFileSync(one, JSON.stringify(JSON.parse(fs.readFileSync(fixture('tools', 'guidellm-report.from-schema.json'), 'utf8'))));
    assert.deepStrictEqual(await sniffFile(one), { format: 'guidellm-json', side: 'client', gzip: false, lineDelimited: false });
    assert.deepStrictEqual(await sniffFile(fixture('tools', 'vllm-bench-serve.save-detailed.from-code.json')), { format: 'vllm-bench-json', side: 'client', gzip: false, lineDelimited: false });
  });

  it('rejects an empty file with an InputError naming the file', async () => {
    const file = path.join(dir, 'empty.ndjson');
    fs.writeFileSync(file, '');
    await assert.rejects(sniffFile(file), (err: unknown) => {
      assert.ok(err instanceof InputError);
      assert.strictEqual(err.file, file);
      assert.match(err.message, /empty\.ndjson:1: expected k6 JSON output .*found an empty file/);
      return true;
    });
  });

  it('rejects a file of the wrong format, saying what was expected', async () => {
    const file = path.join(dir, 'notes.ndjson');
    fs.writeFileSync(file, '{"level":"info","msg":"server started"}\n{"level":"info","msg":"ready"}\n');
    const store = new DuckStore();
    try {
      await assert.rejects(loadFiles(store, [file]), (err: unknown) => {
        assert.ok(err instanceof InputError);
        assert.strictEqual(err.file, file);
        assert.match(err.message, /expected k6 JSON output \(--out json\), k6 CSV output, a k6 summary, per-request records/);
        assert.match(err.message, /found '\{"level":"info"/);
        return true;
      });
      const [n] = await store.all<{ n: number }>('SELECT count(*) AS n FROM sources');
      assert.strictEqual(n.n, 0);
    } finally {
      await store.close();
    }
  });

  it('rejects a span export given as a run artifact', async () => {
    const store = new DuckStore();
    try {
      await assert.rejects(
        loadFiles(store, [path.join(sharedSamplesDir, 'joined-otel-js', 'spans.otlp.jsonl')], { expectSide: 'client' }),
        /expected a run artifact \(k6 JSON\/CSV\/summary or per-request records\) for --run, found otlp-json/,
      );
    } finally {
      await store.close();
    }
  });
});
