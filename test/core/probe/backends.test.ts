/**
 * Remote backends against local servers that replay real recorded response bodies (named below, from
 * test/fixtures/shared-samples), answering 404 for the first looks as a backend does before it has
 * indexed the trace. Expected span counts and root durations are computed here from the JSON by hand.
 */
import { strict as assert } from 'assert';
import { appendFileSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'fs';
import * as http from 'http';
import type { AddressInfo } from 'net';
import * as os from 'os';
import * as path from 'path';
import { DEFAULT_ANALYSIS_OPTIONS } from '../../../src/core/analysis/options';
import type { TraceBackend } from '../../../src/core/probe/backends/backend';
import { SpanFileBackend } from '../../../src/core/probe/backends/localBackends';
import { pollTrace } from '../../../src/core/probe/backends/poll';
import { JaegerBackend, TempoBackend } from '../../../src/core/probe/backends/queryApis';
import { reconcileProbe } from '../../../src/core/probe/reconcileProbe';
import type { ProbeSend } from '../../../src/core/probe/result';
import { ITL_DEFINITION } from '../../../src/core/probe/send/timedRequest';
import { fixture } from '../../helpers/paths';

const sample = (...p: string[]): string => readFileSync(fixture('shared-samples', ...p), 'utf8');
const JAEGER_V3 = sample('otlp-json', 'jaeger-ui_api_v3_v3-trace-local-2.21.0.json');
const JAEGER_V1 = sample('jaeger-json', 'jaeger-ui_utils_fixtures_otlp2jaeger-out.json');
const TEMPO_V1 = sample('tempo-json', 'grafana_oats_internal_legacyyaml_tempo_responses_testdata_trace_by_id.json');

/** Serves `body` at `route` after `misses` 404s; counts the requests. */
async function replay(route: string, body: string, misses: number): Promise<{ url: string; hits: () => number; close: () => Promise<void> }> {
  let n = 0;
  const server = http.createServer((req, res) => {
    n++;
    if (req.url !== route || n <= misses) {
      res.writeHead(404, { 'content-type': 'application/json' });
      res.end('{"data":null,"errors":[{"code":404,"msg":"trace not found"}]}');
      return;
    }
    res.writeHead(200, { 'content-type': 'application/json' });
    res.end(body);
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    hits: () => n,
    close: () => new Promise<void>((r) => server.close(() => r())),
  };
}

/** A probe as sent: the request half of a result, for a trace whose parent is `parent`. */
function sent(traceId: string, parent: string, totalMs: number): ProbeSend {
  return {
    trace_id: traceId, traceparent: `00-${traceId}-${parent}-01`, parent_span_id: parent, url: 'http://127.0.0.1:1/v1/chat/completions',
    model: 'm', stream: false, prompt_shape_id: 'probe', outcome: 'succeeded', outcome_detail: 'HTTP 200', http_status: 200, started_epoch_ms: 1.7e12,
    client: {
      total_ms: totalMs, ttfb_ms: totalMs / 2, ttft_ms: null, dns_ms: null, connect_ms: 0.2, tls_ms: null, transport_setup_ms: 0.2, itl_ms: null,
      itl_definition: ITL_DEFINITION, content_events: 1, content_parse_errors: 0, output_tokens: 3, output_tokens_source: 'usage', input_tokens: 5,
      marks: { dns_done: null, connected: 0.2, tls_done: null, send_start: 0.2, request_written: 0.3, first_byte: 0.2 + totalMs / 2, first_content: null, last_content: null, end: 0.2 + totalMs },
    },
  };
}

async function fetchAndReconcile(backend: TraceBackend, send: ProbeSend): Promise<Awaited<ReturnType<typeof reconcileProbe>>> {
  const { fetch, look } = await pollTrace(backend, { traceId: send.trace_id, expectedParent: send.parent_span_id, timeoutMs: 8000, quietMs: 200, sentAtMs: 0 });
  return reconcileProbe(send, fetch, look, DEFAULT_ANALYSIS_OPTIONS);
}

describe('trace backends on replayed real responses', function () {
  this.timeout(30_000);

  it('Jaeger api_v3 /api/v3/traces/{id} (jaeger-ui v3-trace-local-2.21.0.json): found after two 404s', async () => {
    const doc = JSON.parse(JAEGER_V3) as { result: { resourceSpans: Array<{ scopeSpans: Array<{ spans: Array<Record<string, string>> }> }> } };
    const spans = doc.result.resourceSpans.flatMap((r) => r.scopeSpans.flatMap((s) => s.spans));
    const root = spans.find((s) => !s.parentSpanId)!;
    const traceId = root.traceId;
    const server = await replay(`/api/v3/traces/${traceId}`, JAEGER_V3, 2);
    try {
      const r = await fetchAndReconcile(new JaegerBackend({ baseUrl: `${server.url}/api/v3` }), sent(traceId, 'aaaaaaaaaaaaaaaa', 5));
      assert.equal(r.trace?.status, 'complete');
      assert.equal(r.trace?.spans, spans.length);
      assert.ok(server.hits() >= 3);
      assert.equal(r.server?.root_ms, Number(BigInt(root.endTimeUnixNano) - BigInt(root.startTimeUnixNano)) / 1e6);
      // The recorded root has no parent: the server kept the trace ID but not the probe's parent.
      assert.equal(r.propagation?.ok, false);
      assert.match(r.propagation!.problems[0], /has no parent/);
    } finally {
      await server.close();
    }
  });

  it('Jaeger /api/traces/{id} (jaeger-ui otlp2jaeger-out.json, µs times, a duplicated span)', async () => {
    const doc = JSON.parse(JAEGER_V1) as { data: Array<{ traceID: string; spans: Array<{ duration: number; references: Array<{ spanID: string }> }> }> };
    const trace = doc.data[0];
    const server = await replay(`/api/traces/${trace.traceID}`, JAEGER_V1, 1);
    try {
      const parent = trace.spans[0].references[0].spanID;
      const r = await fetchAndReconcile(new JaegerBackend({ baseUrl: server.url }), sent(trace.traceID, parent, 1));
      assert.equal(r.trace?.status, 'complete');
      assert.equal(r.server?.root_ms, trace.spans[0].duration / 1000);
      assert.equal(r.propagation?.root_parent_span_id, parent);
      assert.ok(Math.abs(r.network_envelope_ms! - (1 - trace.spans[0].duration / 1000)) < 1e-9);
    } finally {
      await server.close();
    }
  });

  for (const version of ['v1', 'v2'] as const) {
    it(`Tempo ${version === 'v1' ? '/api/traces/{id} (grafana/oats trace_by_id.json)' : '/api/v2/traces/{id} (the same recorded batches wrapped as {"trace":…})'}: base64 IDs`, async () => {
      const doc = JSON.parse(TEMPO_V1) as { batches: Array<{ scopeSpans: Array<{ spans: Array<Record<string, string>> }> }> };
      const spans = doc.batches.flatMap((b) => b.scopeSpans.flatMap((s) => s.spans));
      const root = spans.find((s) => !s.parentSpanId)!;
      const traceId = Buffer.from(root.traceId, 'base64').toString('hex');
      const body = version === 'v1' ? TEMPO_V1 : JSON.stringify({ trace: { resourceSpans: doc.batches } });
      const server = await replay(`/api/${version === 'v2' ? 'v2/' : ''}traces/${traceId}`, body, 1);
      try {
        const r = await fetchAndReconcile(new TempoBackend({ baseUrl: version === 'v2' ? `${server.url}/api/v2` : server.url }), sent(traceId, 'bbbbbbbbbbbbbbbb', 3));
        assert.equal(r.trace?.status, 'complete');
        assert.equal(r.trace?.spans, spans.length);
        assert.ok(Math.abs(r.server!.root_ms! - Number(BigInt(root.endTimeUnixNano) - BigInt(root.startTimeUnixNano)) / 1e6) < 1e-9);
      } finally {
        await server.close();
      }
    });
  }

  it('a Collector span file re-read until the trace appears (lines of the joined-otel-js capture appended later)', async () => {
    const dir = mkdtempSync(path.join(os.tmpdir(), 'phasewise-spanfile-'));
    const file = path.join(dir, 'spans.otlp.jsonl');
    try {
      const lines = sample('joined-otel-js', 'spans.otlp.jsonl').split('\n').filter((l) => l !== '');
      const first = JSON.parse(lines[0]) as { resourceSpans: Array<{ scopeSpans: Array<{ spans: Array<{ traceId: string; parentSpanId?: string; kind: number; name: string }> }> }> };
      const root = first.resourceSpans.flatMap((r) => r.scopeSpans.flatMap((s) => s.spans)).find((s) => s.kind === 2 && s.parentSpanId)!;
      const holding = lines.filter((l) => l.includes(root.traceId));
      const expected = holding.reduce((n, l) => n + (l.split(`"traceId":"${root.traceId}"`).length - 1), 0);
      writeFileSync(file, lines.slice(1, 4).join('\n') + '\n');
      setTimeout(() => appendFileSync(file, holding.join('\n') + '\n'), 400);
      const backend = new SpanFileBackend(file);
      const { fetch, look } = await pollTrace(backend, { traceId: root.traceId, expectedParent: root.parentSpanId!, timeoutMs: 8000, quietMs: 300, sentAtMs: 0 });
      assert.equal(fetch.status, 'complete');
      assert.ok(fetch.polls >= 2);
      assert.equal(look.spans.length, expected);
      const r = await reconcileProbe(sent(root.traceId, root.parentSpanId!, 100), fetch, look, DEFAULT_ANALYSIS_OPTIONS);
      assert.equal(r.propagation?.root_parent_span_id, root.parentSpanId);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('a trace that never appears: missing after the timeout, with the reasons a query API cannot rule out', async () => {
    const server = await replay('/nothing', '', 0);
    try {
      const { fetch } = await pollTrace(new TempoBackend({ baseUrl: server.url }), { traceId: 'c'.repeat(32), expectedParent: 'd'.repeat(16), timeoutMs: 700, sentAtMs: 0 });
      assert.equal(fetch.status, 'missing');
      assert.match(fetch.reasons.join('\n'), /exporter has not flushed/);
      assert.match(fetch.reasons.join('\n'), /sampling/);
      assert.match(fetch.reasons.join('\n'), /stripped traceparent/);
      assert.match(fetch.reasons.join('\n'), /404/);
    } finally {
      await server.close();
    }
  });
});
