import * as assert from 'assert';
import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import { parseArgs, type GenerateOptions } from '../../bench/generate/options';
import { generateRun } from '../../bench/generate/run';
import type { RequestTruth } from '../../bench/generate/truth';
import { numpyQuantile, spanMs } from './generateHelpers';
import { componentsFromFiles, countFromFiles, HTTP_METRICS, ITERATION_METRICS, readRunDir, rootOf, type FileView } from './generateFiles';

const FAULTY = [
  '--rate', '20', '--duration', '25', '--ramp', '5', '--slots', '56', '--max-queue', '4', '--timeout-ms', '8000',
  '--dropped-fraction', '0.03', '--lost-root-fraction', '0.04', '--lost-span-fraction', '0.02', '--error-fraction', '0.03',
  '--unavailable-fraction', '0.02', '--stall-fraction', '0.01', '--transport-fraction', '0.02', '--streaming-fraction', '0.5', '--tls',
];

const made: string[] = [];

function tmp(name: string): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), `pw-gen-${name}-`));
  made.push(dir);
  return dir;
}

after(() => {
  for (const dir of made) fs.rmSync(dir, { recursive: true, force: true });
});

function opts(args: string[], out: string): GenerateOptions {
  return parseArgs([...args, '--out', out]);
}

function filesOf(dir: string): Record<string, Buffer> {
  return Object.fromEntries(fs.readdirSync(dir).sort().map((f) => [f, fs.readFileSync(path.join(dir, f))]));
}

describe('bench/generate', () => {
  let dir: string;
  let view: FileView;
  let expected: { counts: Record<string, number>; matched_succeeded: Record<string, { n: number; p50: number; p95: number; p99: number }> };
  const truths: RequestTruth[] = [];

  before(async () => {
    dir = tmp('faulty');
    await generateRun(opts([...FAULTY, '--seed', '42'], dir), (r) => truths.push(r));
    view = readRunDir(dir);
    expected = JSON.parse(fs.readFileSync(path.join(dir, 'expected.json'), 'utf8'));
  });

  it('is deterministic: same seed and options give byte-identical files, another seed differs', async () => {
    const again = tmp('again');
    await generateRun(opts([...FAULTY, '--seed', '42'], again));
    const a = filesOf(dir);
    const b = filesOf(again);
    assert.deepStrictEqual(Object.keys(a), ['expected.json', 'k6.ndjson', 'requests.ndjson', 'spans.otlp.jsonl']);
    for (const f of Object.keys(a)) {
      // expected.json embeds the output directory nowhere, so it must match too.
      assert.ok(a[f].equals(b[f]), `${f} differs between two runs with seed 42`);
    }
    const other = tmp('other');
    await generateRun(opts([...FAULTY, '--seed', '43'], other));
    const c = filesOf(other);
    for (const f of ['k6.ndjson', 'requests.ndjson', 'spans.otlp.jsonl']) assert.ok(!a[f].equals(c[f]), `${f} is the same with seed 43`);
  });

  it('writes gzip output deterministically and with the same content', async () => {
    const gz = tmp('gz');
    const gz2 = tmp('gz2');
    await generateRun(opts([...FAULTY, '--seed', '42', '--gzip'], gz));
    await generateRun(opts([...FAULTY, '--seed', '42', '--gzip'], gz2));
    assert.ok(fs.readFileSync(path.join(gz, 'k6.ndjson.gz')).equals(fs.readFileSync(path.join(gz2, 'k6.ndjson.gz'))));
    const { gunzipSync } = await import('zlib');
    const plain = fs.readFileSync(path.join(dir, 'spans.otlp.jsonl'));
    assert.ok(gunzipSync(fs.readFileSync(path.join(gz, 'spans.otlp.jsonl.gz'))).equals(plain));
    assert.ok(gunzipSync(fs.readFileSync(path.join(gz, 'k6.ndjson.gz'))).equals(fs.readFileSync(path.join(dir, 'k6.ndjson'))));
  });

  it('exercises every outcome (the fixture run is not trivially clean)', () => {
    for (const k of ['generator_dropped', 'succeeded', 'rejected_429', 'rejected_503', 'failed', 'timed_out', 'transport_failed', 'lost_roots', 'traces_not_exported']) {
      assert.ok(expected.counts[k] > 0, `${k} is 0`);
    }
  });

  it('declares each k6 Metric once, before its first Point', () => {
    assert.ok(view.declaredBeforeFirstPoint);
    assert.strictEqual(new Set(view.metricLines).size, view.metricLines.length);
  });

  it('gives every k6 request 9 http_req Points with one time/tags/metadata and 4 iteration Points after them', () => {
    assert.strictEqual(view.requests.size, expected.counts.started);
    for (const r of view.requests.values()) {
      assert.deepStrictEqual([...r.http.keys()].sort(), [...HTTP_METRICS].sort(), r.traceId);
      assert.deepStrictEqual([...r.iteration.keys()].sort(), [...ITERATION_METRICS].sort(), r.traceId);
      const http = [...r.http.values()];
      const first = http[0].data;
      for (const p of http) {
        assert.strictEqual(p.data.time, first.time);
        assert.deepStrictEqual(p.data.tags, first.tags);
        assert.deepStrictEqual(p.data.metadata, { trace_id: r.traceId });
      }
      const iter = [...r.iteration.values()];
      for (const p of iter) {
        assert.strictEqual(p.data.time, iter[0].data.time);
        assert.deepStrictEqual(p.data.tags, { group: '', scenario: 'open_model' });
        assert.ok(Date.parse(p.data.time) >= Date.parse(first.time));
      }
      // http_req_duration = sending + waiting + receiving (integer ns underneath, so to 1e-6 ms).
      const v = (m: string): number => r.http.get(m)?.data.value as number;
      assert.ok(Math.abs(v('http_req_duration') - v('http_req_sending') - v('http_req_waiting') - v('http_req_receiving')) < 1e-6);
      assert.strictEqual(v('http_req_failed'), first.tags.expected_response === 'true' ? 0 : 1);
      if (v('http_req_connecting') > 0) assert.ok(v('http_req_blocked') >= v('http_req_connecting') + v('http_req_tls_handshaking') - 1e-9);
    }
    assert.ok(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d{1,9})?Z$/.test(view.points[0].data.time));
  });

  it('writes OTLP batches whose parent links form trees with one SERVER root per exported-root trace', () => {
    assert.ok(Math.max(...view.batchSizes) <= 512 && Math.min(...view.batchSizes) >= 1);
    let withRoot = 0;
    for (const [traceId, spans] of view.traces) {
      assert.ok(/^[0-9a-f]{32}$/.test(traceId));
      const ids = new Set(spans.map((s) => s.spanId));
      assert.strictEqual(ids.size, spans.length, 'span IDs unique within a trace');
      const servers = spans.filter((s) => s.kind === 2);
      const root = rootOf(spans);
      if (root) {
        withRoot++;
        assert.strictEqual(servers.length, 1);
        assert.strictEqual(root.name, 'POST /v1/chat/completions');
        // Every other span hangs off the root; the root's parent is the client span, not in the trace.
        for (const s of spans) if (s !== root) assert.strictEqual(s.parentSpanId, root.spanId);
        assert.ok(!ids.has(root.parentSpanId ?? ''));
        for (const s of spans) assert.ok(BigInt(s.startTimeUnixNano) >= BigInt(root.startTimeUnixNano) && BigInt(s.endTimeUnixNano) <= BigInt(root.endTimeUnixNano));
      } else {
        // Lost root: children only, all pointing at the same absent parent.
        assert.strictEqual(servers.length, 0);
        assert.strictEqual(new Set(spans.map((s) => s.parentSpanId)).size, 1);
        assert.ok(!ids.has(spans[0].parentSpanId ?? ''));
      }
    }
    assert.strictEqual(withRoot, expected.counts.exported_roots);
  });

  it('has counts in expected.json equal to counts taken from the files', () => {
    const fromFiles = countFromFiles(view);
    for (const [k, v] of Object.entries(fromFiles)) assert.strictEqual(expected.counts[k], v, k);
    // Reconciliation (docs/metrics.md §2).
    const c = expected.counts;
    assert.strictEqual(c.scheduled, c.started + c.generator_dropped);
    assert.strictEqual(c.started, c.succeeded + c.rejected + c.failed + c.timed_out + c.transport_failed + c.canceled);
    assert.strictEqual(view.records.filter((r) => r.generator_dropped).length, c.generator_dropped);
  });

  it('matches each matched request’s envelope (http_req_duration − root duration from the files) to the generator truth', () => {
    const fromFiles = componentsFromFiles(view);
    const matched = truths.filter((t) => t.outcome === 'succeeded' && t.server?.fate === 'full');
    assert.strictEqual(matched.length, fromFiles.size);
    for (const t of [matched[0], matched[7], matched[matched.length - 1]]) {
      const s = t.server!;
      const truthEnvelopeMs = (t.sendingNs + t.waitingNs + t.receivingNs - (s.root.endNs - s.root.startNs)) / 1e6;
      const file = fromFiles.get(t.traceId as string)!;
      assert.ok(Math.abs(file.network_envelope_ms - truthEnvelopeMs) < 1e-6, `${t.traceId}: ${file.network_envelope_ms} vs ${truthEnvelopeMs}`);
      assert.ok(file.network_envelope_ms > 0);
    }
  });

  it('has expected.json quantiles equal to quantiles recomputed from the files (numpy method)', () => {
    const rows = [...componentsFromFiles(view).values()];
    for (const [name, q] of Object.entries(expected.matched_succeeded)) {
      const values = rows.map((r) => r[name]);
      assert.strictEqual(q.n, values.length, name);
      for (const p of [0.5, 0.95, 0.99] as const) {
        const key = p === 0.5 ? 'p50' : p === 0.95 ? 'p95' : 'p99';
        assert.ok(Math.abs(q[key] - numpyQuantile(values, p)) < 1e-6, `${name} ${key}: ${q[key]} vs ${numpyQuantile(values, p)}`);
      }
    }
  });

  it('marks streaming requests: first_token event, llm_ttft_ms Point with the trace ID, output tokens', () => {
    let checked = 0;
    for (const r of view.requests.values()) {
      if (!r.ttft) continue;
      const spans = view.traces.get(r.traceId);
      const gen = spans?.find((s) => s.name === 'inference.generate');
      if (!gen) continue;
      assert.ok(gen.events?.some((e) => e.name === 'first_token'));
      assert.ok(gen.attributes.some((a) => a.key === 'gen_ai.usage.output_tokens'));
      assert.ok(r.ttft.data.value > 0 && r.ttft.data.value <= (r.http.get('http_req_duration')?.data.value as number));
      checked++;
    }
    assert.ok(checked > 50, `only ${checked} streaming requests checked`);
  });

  it('floors span starts to whole ms with --ms-start-granularity and keeps durations exact', async () => {
    const ms = tmp('ms');
    await generateRun(opts([...FAULTY, '--seed', '42', '--ms-start-granularity'], ms));
    const coarse = readRunDir(ms);
    const exact = new Map(view.spans.map((s) => [s.spanId, s]));
    assert.strictEqual(coarse.spans.length, view.spans.length);
    let shifted = 0;
    for (const s of coarse.spans) {
      assert.strictEqual(BigInt(s.startTimeUnixNano) % 1000000n, 0n);
      const e = exact.get(s.spanId)!;
      assert.strictEqual(spanMs(s), spanMs(e));
      if (s.startTimeUnixNano !== e.startTimeUnixNano) shifted++;
    }
    assert.ok(shifted > coarse.spans.length * 0.9);
  });

  it('rejects unknown flags and out-of-range fractions with the usage', () => {
    assert.throws(() => parseArgs(['--bogus']), /unknown argument '--bogus'/);
    assert.throws(() => parseArgs(['--error-fraction', '1.5']), /fraction in \[0, 1\]/);
    assert.strictEqual(parseArgs(['--preset', 'bench-100k']).requests, 100000);
    assert.strictEqual(parseArgs(['--preset', 'bench-100k', '--seed', '9']).seed, 9);
  });
});
