import * as assert from 'assert';
import * as fs from 'fs';
import * as readline from 'readline';
import { isSensitiveKey } from '../../../../src/core/analysis/trace/attributes';
import { pickTypicalTrace } from '../../../../src/core/analysis/trace/typicalTrace';
import { listTraces } from '../../../../src/core/analysis/trace/traceList';
import { DEFAULT_ANALYSIS_OPTIONS } from '../../../../src/core/analysis/options';
import { loadFiles } from '../../../../src/core/formats/loadFiles';
import { DuckStore } from '../../../../src/core/store/duckStore';
import { bigTrace, SAMPLE_RUN, sampleRun, ZIPKIN_1041, zipkinTrace } from '../../../webview/models';

interface ZipkinSpan {
  id: string;
  parentId?: string;
  name?: string;
  kind?: string;
  duration?: number;
  timestamp?: number;
  tags?: Record<string, string>;
}

async function* lines(file: string): AsyncGenerator<Record<string, unknown>> {
  for await (const line of readline.createInterface({ input: fs.createReadStream(file) })) if (line.trim() !== '') yield JSON.parse(line) as Record<string, unknown>;
}

describe('trace model (the waterfall data) from real files', () => {
  it('draws every timed row of the 1,041-row Zipkin file, shared span IDs as a second observer under the kept copy', async () => {
    const file = JSON.parse(fs.readFileSync(ZIPKIN_1041, 'utf8')) as ZipkinSpan[];
    const model = await zipkinTrace();
    // The 84 rows without a timestamp are pieces merged into the timed row of their span ID (zipkinMerge.ts).
    const timed = file.filter((s) => s.timestamp !== undefined);
    assert.strictEqual(file.length - timed.length, 84);
    assert.strictEqual(model.spans.length, timed.length);
    assert.strictEqual(model.spans.length, 957);
    const ids = new Set(file.map((s) => s.id));
    assert.strictEqual(model.spans.filter((s) => !s.shared_copy).length, ids.size, 'one kept row per span ID');
    // Each row is one element of the file: same duration (µs → ms) and tags, found by file line (element index).
    for (const s of model.spans) {
      assert.ok(s.line !== null);
      const src = file[(s.line as number) - 1];
      assert.strictEqual(s.span_id, src.id.padStart(16, '0'));
      assert.strictEqual(s.name, src.name ?? '');
      if (src.duration !== undefined) assert.ok(Math.abs(s.duration_ms - src.duration / 1000) < 1e-9, `${s.span_id} duration`);
      const tags = Object.entries(src.tags ?? {}).sort();
      assert.deepStrictEqual(s.attributes.map((a) => [a.key, a.masked ? src.tags?.[a.key] : a.value]).sort(), tags);
      if (s.shared_copy) {
        assert.ok(s.parent_index !== null && model.spans[s.parent_index].span_id === s.span_id, 'a copy sits under the kept row of its ID');
        assert.strictEqual(s.phase, null);
      } else if (s.parent_index !== null) {
        assert.strictEqual(model.spans[s.parent_index].span_id, s.parent_span_id);
      }
    }
    assert.ok(model.notes.some((n) => /no client record/.test(n)));
  });

  it('gives the client k6 timings and the CLI reconciliation lines of the slowest sample request', async () => {
    const { slow } = await sampleRun();
    const points = new Map<string, number>();
    for await (const p of lines(SAMPLE_RUN[0])) {
      const data = p.data as { value: number; metadata?: { trace_id?: string } } | undefined;
      if (p.type === 'Point' && data?.metadata?.trace_id === slow.trace_id) points.set(p.metric as string, data.value);
    }
    const c = slow.client;
    assert.ok(c !== null);
    assert.strictEqual(c.total_ms, points.get('http_req_duration'));
    assert.strictEqual(c.blocked_ms, points.get('http_req_blocked'));
    assert.strictEqual(c.connecting_ms, points.get('http_req_connecting'));
    assert.strictEqual(c.tls_handshaking_ms, points.get('http_req_tls_handshaking'));
    assert.strictEqual(c.sending_ms, points.get('http_req_sending'));
    assert.strictEqual(c.waiting_ms, points.get('http_req_waiting'));
    assert.strictEqual(c.receiving_ms, points.get('http_req_receiving'));
    // Span count and durations from the OTLP file itself.
    const spans: { spanId: string; startTimeUnixNano: string; endTimeUnixNano: string }[] = [];
    for await (const req of lines(SAMPLE_RUN[1])) {
      for (const rs of req.resourceSpans as { scopeSpans: { spans: { traceId: string; spanId: string; startTimeUnixNano: string; endTimeUnixNano: string }[] }[] }[]) {
        for (const ss of rs.scopeSpans) for (const s of ss.spans) if (s.traceId === slow.trace_id) spans.push(s);
      }
    }
    assert.strictEqual(slow.spans.length, spans.length);
    for (const s of spans) {
      const m = slow.spans.find((x) => x.span_id === s.spanId);
      assert.ok(m);
      assert.ok(Math.abs(m.duration_ms - Number(BigInt(s.endTimeUnixNano) - BigInt(s.startTimeUnixNano)) / 1e6) < 1e-9);
    }
    const root = slow.spans[0];
    assert.strictEqual(slow.breakdown.server_root_ms, root.duration_ms);
    assert.strictEqual(slow.reconciliation[0], `trace_id=${slow.trace_id}`);
    assert.strictEqual(slow.reconciliation[1], `k6_total_ms=${Math.round(points.get('http_req_duration') as number)}`);
    assert.strictEqual(slow.reconciliation[2], `server_root_ms=${Math.round(root.duration_ms)}`);
  });

  it('masks prompt text and credentials but keeps token counts, and badges the GenAI figures', async () => {
    const { model } = await bigTrace();
    const gen = model.spans.find((s) => s.name === 'inference.generate');
    assert.ok(gen);
    const prompt = gen.attributes.find((a) => a.key === 'gen_ai.prompt');
    assert.deepStrictEqual(prompt, { key: 'gen_ai.prompt', value: '‹masked: 91 characters›', masked: true });
    assert.ok(!JSON.stringify(model).includes('helpful assistant'), 'the prompt text is nowhere in the model');
    assert.deepStrictEqual(gen.genai, { operation: 'chat', model: 'llama-3.1-70b', input_tokens: 812, output_tokens: 2048 });
    for (const k of ['gen_ai.prompt.0.content', 'gen_ai.completion', 'http.request.header.authorization', 'http.request.header.cookie', 'llm.prompts', 'x-api-key', 'gen_ai.input.messages'])
      assert.ok(isSensitiveKey(k), k);
    for (const k of ['gen_ai.usage.input_tokens', 'gen_ai.usage.prompt_tokens', 'llm.output_tokens', 'gen_ai.request.model', 'http.route', 'gen_ai.output.type', 'exception.message'])
      assert.ok(!isSensitiveKey(k), k);
  });

  it('picks as typical trace the lower-median matched success of the same root operation (independent pick from the files)', async () => {
    const { slow, comparison } = await sampleRun();
    // Independently: client durations and outcomes from k6, roots from OTLP (SERVER spans whose parent is not in the trace).
    const client = new Map<string, { total: number; status: number; n: number }>();
    for await (const p of lines(SAMPLE_RUN[0])) {
      const data = p.data as { value: number; tags?: { status?: string }; metadata?: { trace_id?: string } } | undefined;
      const id = data?.metadata?.trace_id;
      if (p.type !== 'Point' || id === undefined || p.metric !== 'http_req_duration') continue;
      const prev = client.get(id);
      client.set(id, { total: data!.value, status: Number(data!.tags?.status ?? 0), n: (prev?.n ?? 0) + 1 });
    }
    const spans = new Map<string, { id: string; parent: string; kind: number; name: string }[]>();
    for await (const req of lines(SAMPLE_RUN[1])) {
      for (const rs of req.resourceSpans as { scopeSpans: { spans: { traceId: string; spanId: string; parentSpanId: string; kind: number; name: string }[] }[] }[]) {
        for (const ss of rs.scopeSpans) for (const s of ss.spans) spans.set(s.traceId, [...(spans.get(s.traceId) ?? []), { id: s.spanId, parent: s.parentSpanId, kind: s.kind, name: s.name }]);
      }
    }
    const group: { id: string; total: number }[] = [];
    const rootName = slow.spans[0].name;
    for (const [id, c] of client) {
      const tree = spans.get(id) ?? [];
      const ids = new Set(tree.map((s) => s.id));
      const roots = tree.filter((s) => s.kind === 2 && !ids.has(s.parent));
      if (c.n === 1 && c.status >= 200 && c.status < 300 && roots.length === 1 && roots[0].name === rootName) group.push({ id, total: c.total });
    }
    const others = group.filter((g) => g.id !== slow.trace_id).sort((a, b) => a.total - b.total);
    const expected = others[Math.floor((others.length - 1) / 2)];
    assert.ok(comparison);
    assert.strictEqual(comparison.group_size, group.length);
    assert.strictEqual(comparison.typical.trace_id, expected.id);
    const total = comparison.phases.find((d) => d.name === 'client_total');
    assert.ok(total && total.delta_ms !== null);
    assert.ok(Math.abs(total.delta_ms - ((client.get(slow.trace_id)?.total as number) - expected.total)) < 1e-9);
  });

  it('lists the traces of a window and of an envelope bucket, slowest first, with the total count', async () => {
    const store = new DuckStore();
    try {
      await loadFiles(store, SAMPLE_RUN);
      const o = DEFAULT_ANALYSIS_OPTIONS;
      const all = await listTraces(store, o, { kind: 'envelope', from_ms: -1e12, to_ms: 1e12 }, 5);
      const w0 = await listTraces(store, o, { kind: 'window', index: 0 }, 1000);
      const w1 = await listTraces(store, o, { kind: 'window', index: 1 }, 1000);
      const w2 = await listTraces(store, o, { kind: 'window', index: 2 }, 1000);
      assert.strictEqual(all.total, 780, 'every matched success (expected.json: matched_succeeded 780)');
      assert.strictEqual(w0.total + w1.total + w2.total, 780);
      assert.strictEqual(w1.traces.length, w1.total);
      for (const l of [w0, w1, w2]) for (let i = 1; i < l.traces.length; i++) assert.ok((l.traces[i - 1].client_total_ms as number) >= (l.traces[i].client_total_ms as number));
      assert.strictEqual(all.traces.length, 5);
      const none = await pickTypicalTrace(store, '0'.repeat(31) + '1', o);
      assert.strictEqual(none, undefined);
    } finally {
      await store.close();
    }
  });
});
