import * as assert from 'assert';
import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import { replicateRun } from '../../bench/replicate/replicate';
import { shiftDecimalMs, shiftEpochNs, shiftRfc3339 } from '../../bench/replicate/times';
import { envelopeQuantiles } from '../../bench/baselines/nodeScript';
import { analyzeRun } from '../../src/core/analysis/analyze';
import { DEFAULT_ANALYSIS_OPTIONS } from '../../src/core/analysis/options';
import { loadFiles } from '../../src/core/formats/loadFiles';
import { DuckStore } from '../../src/core/store/duckStore';

const SOURCE = path.join(__dirname, '..', '..', '..', 'test', 'fixtures', 'shared-samples', 'joined-otel-js');

interface Span {
  traceId: string;
  spanId: string;
  parentSpanId: string;
  name: string;
  kind: number;
  startTimeUnixNano: string;
  endTimeUnixNano: string;
  events: Array<{ timeUnixNano: string }>;
}
interface Point {
  type: string;
  metric: string;
  data: { time: string; value: number; tags: Record<string, string>; metadata?: { trace_id?: string } };
}

function jsonLines<T>(file: string): T[] {
  return fs.readFileSync(file, 'utf8').split('\n').filter((l) => l.length > 0).map((l) => JSON.parse(l) as T);
}

function spans(dir: string): { lines: number; spans: Span[]; perLine: number[] } {
  const docs = jsonLines<{ resourceSpans: Array<{ scopeSpans: Array<{ spans: Span[] }> }> }>(path.join(dir, 'spans.otlp.jsonl'));
  const all = docs.flatMap((d) => d.resourceSpans.flatMap((r) => r.scopeSpans.flatMap((s) => s.spans)));
  return { lines: docs.length, spans: all, perLine: docs.map((d) => d.resourceSpans[0].scopeSpans[0].spans.length) };
}

function byTrace(list: Span[]): Map<string, Span[]> {
  const m = new Map<string, Span[]>();
  for (const s of list) m.set(s.traceId, [...(m.get(s.traceId) ?? []), s]);
  return m;
}

/**
 * A trace's shape without its IDs and absolute times: each span's name, kind, exact duration (ns),
 * its parent's name (or "absent"), its start relative to the trace's first start, and its events'
 * times relative to it. Equal signatures mean the same tree with the same times, shifted.
 */
function signature(trace: Span[]): string {
  const byId = new Map(trace.map((s) => [s.spanId, s]));
  const t0 = trace.reduce((m, s) => (BigInt(s.startTimeUnixNano) < m ? BigInt(s.startTimeUnixNano) : m), BigInt(trace[0].startTimeUnixNano));
  return trace
    .map((s) => {
      const start = BigInt(s.startTimeUnixNano);
      const events = s.events.map((e) => String(BigInt(e.timeUnixNano) - start)).join('/');
      return `${s.name}|${s.kind}|${BigInt(s.endTimeUnixNano) - start}|${byId.get(s.parentSpanId)?.name ?? 'absent'}|${start - t0}|${events}`;
    })
    .sort()
    .join('\n');
}

function firstStart(trace: Span[]): bigint {
  return trace.reduce((m, s) => (BigInt(s.startTimeUnixNano) < m ? BigInt(s.startTimeUnixNano) : m), BigInt(trace[0].startTimeUnixNano));
}

describe('bench/replicate: the real joined-otel-js run at any size', () => {
  const COPIES = 7;
  const CONCURRENT = 3;
  let dir: string;
  let expected: { step_ms: number; source: { period_ms: number }; counts: Record<string, number>; matched_succeeded: { network_envelope_ms: { n: number; p50: number; p95: number; p99: number } } };
  const source = spans(SOURCE);
  const sourceTraces = byTrace(source.spans);

  before(async () => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'pw-rep-'));
    await replicateRun({ source: SOURCE, outDir: dir, copies: COPIES, concurrent: CONCURRENT, seed: 3 });
    expected = JSON.parse(fs.readFileSync(path.join(dir, 'expected.json'), 'utf8'));
  });

  after(() => fs.rmSync(dir, { recursive: true, force: true }));

  it('shifts times exactly by whole milliseconds in every text form', () => {
    assert.strictEqual(shiftEpochNs('1795965042399000000', 10_021), '1795965052420000000');
    assert.strictEqual(shiftEpochNs('1795965042999123456', 1), '1795965043000123456');
    assert.strictEqual(shiftRfc3339('2026-11-29T15:10:42.535290712Z', 20), '2026-11-29T15:10:42.555290712Z');
    assert.strictEqual(shiftRfc3339('2026-11-29T23:59:59.990000001Z', 10), '2026-11-30T00:00:00.000000001Z');
    // Go's RFC3339Nano trims trailing zeros, and writes no fraction for a whole second.
    assert.strictEqual(shiftRfc3339('2026-11-29T15:10:42.98Z', 20), '2026-11-29T15:10:43Z');
    assert.strictEqual(shiftRfc3339('2026-11-29T16:10:42.5+01:00', 600), '2026-11-29T16:10:43.1+01:00');
    assert.strictEqual(shiftDecimalMs('9833.333333', 10_000), '19833.333333');
    assert.strictEqual(shiftDecimalMs('0', 20), '20');
  });

  it('writes every span, Point and record once per copy (Metric lines once, the vus gauge once per block)', () => {
    const out = spans(dir);
    assert.strictEqual(out.spans.length, COPIES * source.spans.length);
    const srcK6 = jsonLines<Point>(path.join(SOURCE, 'k6.ndjson'));
    const k6 = jsonLines<Point>(path.join(dir, 'k6.ndjson'));
    const blocks = Math.ceil(COPIES / CONCURRENT);
    const count = (list: Point[], pick: (p: Point) => boolean): number => list.filter(pick).length;
    const gauge = (p: Point): boolean => p.metric === 'vus' || p.metric === 'vus_max';
    assert.strictEqual(count(k6, (p) => p.type === 'Metric'), count(srcK6, (p) => p.type === 'Metric'));
    assert.strictEqual(count(k6, (p) => p.type === 'Point' && !gauge(p)), COPIES * count(srcK6, (p) => p.type === 'Point' && !gauge(p)));
    assert.strictEqual(count(k6, (p) => p.type === 'Point' && gauge(p)), blocks * count(srcK6, (p) => p.type === 'Point' && gauge(p)));
    // The gauge adds up the VUs of the copies running at once (the last block holds one copy).
    const srcVus = srcK6.filter((p) => p.type === 'Point' && p.metric === 'vus').map((p) => p.data.value);
    const vus = k6.filter((p) => p.type === 'Point' && p.metric === 'vus').map((p) => p.data.value);
    assert.deepStrictEqual(vus, [...srcVus.map((v) => v * CONCURRENT), ...srcVus.map((v) => v * CONCURRENT), ...srcVus.map((v) => v * 1)]);
    const records = jsonLines<Record<string, unknown>>(path.join(dir, 'requests.ndjson'));
    assert.strictEqual(records.length, COPIES * 120);
    assert.strictEqual(new Set(records.map((r) => r.request_id)).size, records.length);
    assert.strictEqual(expected.counts.http_reqs, count(k6, (p) => p.type === 'Point' && p.metric === 'http_reqs'));
    assert.strictEqual(expected.counts.spans, out.spans.length);
    // One line per source body and block: the block's copies share it.
    assert.strictEqual(out.lines, blocks * source.lines);
    assert.deepStrictEqual(out.perLine.slice(0, source.lines), source.perLine.map((n) => n * CONCURRENT));
  });

  it('gives each copy fresh trace and span IDs: all unique, none from the source', () => {
    const out = spans(dir).spans;
    const traceIds = new Set(out.map((s) => s.traceId));
    assert.strictEqual(traceIds.size, COPIES * sourceTraces.size);
    const spanIds = new Set(out.map((s) => `${s.spanId}`));
    assert.strictEqual(spanIds.size, out.length);
    const srcIds = new Set([...source.spans.map((s) => s.traceId), ...source.spans.map((s) => s.spanId), ...source.spans.map((s) => s.parentSpanId)]);
    assert.ok(out.every((s) => !srcIds.has(s.traceId) && !srcIds.has(s.spanId) && !srcIds.has(s.parentSpanId)));
    assert.ok(out.every((s) => /^[0-9a-f]{32}$/.test(s.traceId) && /^[0-9a-f]{16}$/.test(s.spanId) && /^[0-9a-f]{16}$/.test(s.parentSpanId)));
  });

  it('keeps every trace’s tree, durations and event offsets, and shifts each copy by its block and slot', () => {
    const srcBySig = new Map<string, Span[]>();
    for (const t of sourceTraces.values()) srcBySig.set(signature(t), t);
    assert.strictEqual(srcBySig.size, sourceTraces.size, 'source traces are told apart by their signatures');
    const out = byTrace(spans(dir).spans);
    const used = new Map<string, number>();
    const shifts = new Set<bigint>();
    for (const trace of out.values()) {
      const sig = signature(trace);
      const src = srcBySig.get(sig);
      assert.ok(src, 'a replicated trace matches a source trace span for span');
      used.set(sig, (used.get(sig) ?? 0) + 1);
      // Parents: the same links, through the copy's map (a root's parent, the client span, stays absent).
      const ids = new Set(trace.map((s) => s.spanId));
      assert.strictEqual(trace.filter((s) => !ids.has(s.parentSpanId)).length, src.filter((s) => !new Set(src.map((x) => x.spanId)).has(s.parentSpanId)).length);
      shifts.add(firstStart(trace) - firstStart(src));
    }
    assert.ok([...used.values()].every((n) => n === COPIES));
    // Shifts are whole ms: block × period + slot × step, one per copy.
    const allowed = new Set<bigint>();
    for (let c = 0; c < COPIES; c++) allowed.add(BigInt(Math.floor(c / CONCURRENT) * expected.source.period_ms + (c % CONCURRENT) * expected.step_ms) * 1000000n);
    assert.deepStrictEqual([...shifts].sort(), [...allowed].sort());
    assert.strictEqual(expected.source.period_ms, 10_000);
    assert.strictEqual(expected.step_ms, 27);
  });

  it('shifts a request’s k6 Points, record and spans together, so the join and the windows see one request', () => {
    const out = byTrace(spans(dir).spans);
    const srcStart = new Map([...sourceTraces.values()].map((t) => [signature(t), firstStart(t)]));
    const srcK6 = new Map(jsonLines<Point>(path.join(SOURCE, 'k6.ndjson')).filter((p) => p.metric === 'http_req_duration').map((p) => [p.data.metadata?.trace_id, p]));
    const srcTraceBySig = new Map([...sourceTraces].map(([id, t]) => [signature(t), id]));
    const k6 = new Map(jsonLines<Point>(path.join(dir, 'k6.ndjson')).filter((p) => p.metric === 'http_req_duration').map((p) => [p.data.metadata?.trace_id, p]));
    for (const [id, trace] of out) {
      const sig = signature(trace);
      const shiftNs = firstStart(trace) - (srcStart.get(sig) as bigint);
      const srcPoint = srcK6.get(srcTraceBySig.get(sig)) as Point;
      const point = k6.get(id) as Point;
      assert.ok(point, `trace ${id} has its k6 request`);
      assert.strictEqual(point.data.value, srcPoint.data.value);
      assert.deepStrictEqual(point.data.tags, srcPoint.data.tags);
      assert.strictEqual(BigInt(Date.parse(point.data.time) - Date.parse(srcPoint.data.time)) * 1000000n, shiftNs);
    }
    // The arrival rate: `concurrent` × the source's 120 requests per 10 s period, for every full block.
    const records = jsonLines<{ scheduled_offset_ms: number }>(path.join(dir, 'requests.ndjson'));
    const perPeriod = new Map<number, number>();
    for (const r of records) perPeriod.set(Math.floor(r.scheduled_offset_ms / 10_000), (perPeriod.get(Math.floor(r.scheduled_offset_ms / 10_000)) ?? 0) + 1);
    assert.deepStrictEqual([...perPeriod.values()], [120 * CONCURRENT, 120 * CONCURRENT, 120]);
  });

  it('has the envelope quantiles of expected.json, as computed by the Node script and by Phasewise on the copies', async () => {
    const want = expected.matched_succeeded.network_envelope_ms;
    const script = await envelopeQuantiles(path.join(dir, 'k6.ndjson'), path.join(dir, 'spans.otlp.jsonl'));
    assert.deepStrictEqual([script.n, script.p50, script.p95, script.p99], [want.n, want.p50, want.p95, want.p99]);
    const store = new DuckStore();
    try {
      await loadFiles(store, [path.join(dir, 'k6.ndjson')], { expectSide: 'client' });
      await loadFiles(store, [path.join(dir, 'spans.otlp.jsonl')], { expectSide: 'server' });
      const report = await analyzeRun(store, { ...DEFAULT_ANALYSIS_OPTIONS }, []);
      const env = report.metrics.network_envelope_ms;
      assert.strictEqual(env.n, want.n);
      for (const k of ['p50', 'p95', 'p99'] as const) assert.ok(Math.abs((env[k] as number) - want[k]) < 1e-9, `${k}: ${env[k]} vs ${want[k]}`);
      // Copies of a run the sample documents: 117 traces exported, 110 roots, so 110 of 120 requests match.
      assert.strictEqual(report.join.matched, 110 * COPIES);
      assert.strictEqual(report.join.client_requests, 120 * COPIES);
    } finally {
      await store.close();
    }
  });
});
