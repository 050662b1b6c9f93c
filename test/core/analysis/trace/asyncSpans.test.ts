import * as assert from 'assert';
import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import { ensureBreakdown } from '../../../../src/core/analysis/breakdown/pipeline';
import { collectBreakdownWarnings } from '../../../../src/core/analysis/breakdown/warnings';
import { DEFAULT_ANALYSIS_OPTIONS } from '../../../../src/core/analysis/options';
import { computeCriticalPath, isAsyncChild } from '../../../../src/core/analysis/trace/criticalPath';
import { readTraceModel } from '../../../../src/core/analysis/trace/traceModel';
import { loadFiles } from '../../../../src/core/formats/loadFiles';
import { DuckStore } from '../../../../src/core/store/duckStore';
import { fixture } from '../../../helpers/paths';

const KAFKA = fixture('shared-samples', 'zipkin-json', 'zipkin_zipkin-lens_testdata_messaging-kafka.json');

interface ZipkinSpan {
  traceId: string;
  id: string;
  parentId?: string;
  kind?: string;
  localEndpoint?: { serviceName?: string };
  timestamp: number;
  duration: number;
}

describe('asynchronous children (docs/metrics.md §3.4)', () => {
  it("Zipkin Lens's Kafka trace: no clock-skew warning for consumers that run after their producer's call", async () => {
    // Worked out from the file independently of the analysis: the root is the one span without a
    // parent (a 26 µs CONSUMER poll); a span is asynchronous when it is a CONSUMER under a PRODUCER or
    // below one; every other span outside the root's window is on the root's own service.
    const spans = JSON.parse(fs.readFileSync(KAFKA, 'utf8')) as ZipkinSpan[];
    const byId = new Map(spans.map((s) => [s.id, s]));
    const root = spans.find((s) => s.parentId === undefined) as ZipkinSpan;
    const asyncOf = (s: ZipkinSpan): boolean => {
      for (let c: ZipkinSpan | undefined = s; c?.parentId !== undefined; c = byId.get(c.parentId)) {
        if (c.kind === 'CONSUMER' && byId.get(c.parentId)?.kind === 'PRODUCER') return true;
      }
      return false;
    };
    const outside = spans.filter((s) => s !== root && (s.timestamp < root.timestamp - 1000 || s.timestamp + s.duration > root.timestamp + root.duration + 1000));
    const sync = outside.filter((s) => !asyncOf(s));
    assert.strictEqual(outside.length, 27);
    assert.strictEqual(sync.length, 15);
    assert.ok(sync.every((s) => s.localEndpoint?.serviceName === root.localEndpoint?.serviceName));

    const store = new DuckStore();
    try {
      await loadFiles(store, [KAFKA]);
      await ensureBreakdown(store, DEFAULT_ANALYSIS_OPTIONS);
      const warnings = await collectBreakdownWarnings(store, DEFAULT_ANALYSIS_OPTIONS);
      assert.ok(!warnings.some((w) => /skew/.test(w)), warnings.join('\n'));
      assert.ok(warnings.some((w) => w.startsWith(`${sync.length} spans on their root's own service start before or end after it`)), warnings.join('\n'));

      // No consumer of a producer, nor anything below it, is on the critical path.
      const model = await readTraceModel(store, root.traceId.padStart(32, '0'), DEFAULT_ANALYSIS_OPTIONS);
      assert.ok(model);
      const cp = computeCriticalPath(model.spans);
      const consumers = model.spans.map((_, i) => i).filter((i) => isAsyncChild(model.spans, i));
      assert.strictEqual(consumers.length, spans.filter((s) => s.kind === 'CONSUMER' && s.parentId !== undefined && byId.get(s.parentId)?.kind === 'PRODUCER').length);
      assert.ok(consumers.length > 0);
      for (const i of consumers) assert.strictEqual(cp.onPath[i], 0, model.spans[i].span_id);
    } finally {
      await store.close();
    }
  });

  it('a Jaeger FOLLOWS_FROM parent is kept as asynchronous, and its span is not on the path', async () => {
    // Jaeger UI's critical-path test5 (test/fixtures/trace/jaeger-ui-critical-path.json) as a Jaeger JSON file.
    const c = (JSON.parse(fs.readFileSync(fixture('trace', 'jaeger-ui-critical-path.json'), 'utf8')) as {
      cases: { name: string; spans: { id: string; parent: string | null; ref: string | null; start: number; duration: number }[] }[];
    }).cases.find((x) => x.name === 'test5');
    assert.ok(c);
    const hex = (s: string): string => Buffer.from(s).toString('hex').slice(0, 16).padStart(16, '0');
    const traceId = '4bf92f3577b34da6a3ce929d0e0e4736';
    const doc = {
      data: [{
        traceID: traceId,
        processes: { p1: { serviceName: 'svc' } },
        spans: c.spans.map((s) => ({
          traceID: traceId,
          spanID: hex(s.id),
          operationName: s.id,
          references: s.parent === null ? [] : [{ refType: s.ref, traceID: traceId, spanID: hex(s.parent) }],
          startTime: 1_700_000_000_000_000 + s.start * 1000,
          duration: s.duration * 1000,
          processID: 'p1',
          tags: [{ key: 'span.kind', value: 'server' }],
        })),
      }],
    };
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'pw-follows-'));
    const file = path.join(dir, 'follows.jaeger.json');
    fs.writeFileSync(file, JSON.stringify(doc));
    const store = new DuckStore();
    try {
      await loadFiles(store, [file]);
      const model = await readTraceModel(store, traceId, DEFAULT_ANALYSIS_OPTIONS);
      assert.ok(model);
      assert.deepStrictEqual(model.spans.map((s) => [s.name, s.follows_from === true]), [['span-A', false], ['span-B', true], ['span-C', false]]);
      const cp = computeCriticalPath(model.spans);
      assert.deepStrictEqual(cp.segments.map((s) => [model.spans[s.index].name, s.start_ms, s.end_ms]), [['span-A', 0, 30]]);
    } finally {
      await store.close();
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });
});
