// The trace receiver's live run and a probe's waterfall, inside a real extension host: a small
// OpenAI-compatible endpoint that exports its request's spans (OTLP/HTTP JSON, the trace context taken
// from the incoming traceparent, or dropped as a proxy that strips it would) to the embedded receiver.
// The live run grows in the Runs view as the spans arrive; Send Probe Request opens the probe's trace in
// the waterfall with the propagation check on top.
import * as assert from 'assert';
import * as crypto from 'crypto';
import * as http from 'http';
import type { AddressInfo } from 'net';
import * as vscode from 'vscode';
import { metrics } from './context';
import { hooks, message, panelOf, waitFor, type Hooks } from './hooks';
import { streamThreeTokens } from './sse';

interface ProbeResultShape {
  outcome: string;
  trace_id: string;
  parent_span_id: string;
  propagation: { ok: boolean; problems: string[] } | null;
}

const ns = (ms: number): string => (BigInt(Math.round(ms * 1000)) * 1000n).toString();

/**
 * An endpoint that streams three tokens and exports, after answering, the spans a gateway would: a
 * SERVER root (child of the caller's span unless `stripParent`), auth.check, inference.acquire_slot,
 * inference.generate with a first_token event, response.write.
 */
async function instrumentedEndpoint(receiver: string, stripParent: boolean): Promise<{ url: string; close(): void }> {
  const server = http.createServer((req, res) => {
    const t0 = Date.now();
    const tp = /^00-([0-9a-f]{32})-([0-9a-f]{16})-0[01]$/.exec(String(req.headers.traceparent ?? ''));
    req.resume();
    req.on('end', () =>
      streamThreeTokens(res, false, () => {
        const t1 = Date.now();
        const traceId = tp?.[1] ?? crypto.randomBytes(16).toString('hex');
        const root = crypto.randomBytes(8).toString('hex');
        const span = (name: string, kind: number, a: number, b: number, parent: string | undefined, events: unknown[] = []): unknown => ({
          traceId, spanId: name === 'root' ? root : crypto.randomBytes(8).toString('hex'), parentSpanId: parent, name: name === 'root' ? 'POST /v1/chat/completions' : name, kind,
          startTimeUnixNano: ns(a), endTimeUnixNano: ns(b), events,
        });
        const spans = [
          span('root', 2, t0, t1, stripParent ? undefined : tp?.[2]),
          span('auth.check', 1, t0 + 0.1, t0 + 0.4, root),
          span('inference.acquire_slot', 1, t0 + 0.5, t0 + 1, root),
          span('inference.generate', 1, t0 + 1, t1 - 0.3, root, [{ name: 'first_token', timeUnixNano: ns(t0 + 2) }]),
          span('response.write', 1, t1 - 0.3, t1, root),
        ];
        const body = JSON.stringify({ resourceSpans: [{ resource: { attributes: [{ key: 'service.name', value: { stringValue: 'llm-gateway' } }] }, scopeSpans: [{ spans }] }] });
        const [host, port] = receiver.split(':');
        const out = http.request({ host, port: Number(port), path: '/v1/traces', method: 'POST', headers: { 'content-type': 'application/json' } }, (r) => r.resume());
        out.on('error', () => undefined);
        out.end(body);
      }),
    );
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, close: () => server.close() };
}

suite('the live run and a probe\'s waterfall', () => {
  let h: Hooks;
  let receiver: string | undefined;

  suiteSetup(async function () {
    this.timeout(60_000);
    h = await hooks();
    await vscode.workspace.getConfiguration('phasewise').update('receiver.listen', '127.0.0.1:0', vscode.ConfigurationTarget.Global);
    receiver = await vscode.commands.executeCommand<string>('phasewise.startTraceReceiver');
    assert.ok(receiver, 'the receiver did not start');
  });

  suiteTeardown(async () => {
    await vscode.commands.executeCommand('phasewise.stopTraceReceiver');
  });

  test('Send Probe Request: the live run grows with the spans; the probe\'s waterfall opens with "Propagation OK" on top', async function () {
    this.timeout(120_000);
    const live = h.runs().find((r) => r.kind === 'live' && r.activity.kind === 'live');
    assert.ok(live !== undefined, 'no live run in the Runs view while the receiver listens');
    const endpoint = await instrumentedEndpoint(receiver as string, false);
    try {
      const result = await vscode.commands.executeCommand<ProbeResultShape>('phasewise.sendProbeRequest', { url: endpoint.url, traceTimeoutMs: 15_000 });
      assert.strictEqual(result?.outcome, 'succeeded');
      assert.deepStrictEqual(result.propagation, { ...result.propagation, ok: true, problems: [] });
      const probeRun = h.runs().find((r) => r.kind === 'probe' && r.probes?.[result.trace_id] !== undefined);
      assert.ok(probeRun !== undefined, 'the probe is not a run in the Runs view');
      // The e2e check shows this waterfall in the workbench and reads its banner.
      metrics.probeTraceId = result.trace_id;
      metrics.probeRunLabel = probeRun.label;
      const wf = await waitFor('the probe\'s waterfall', 60_000, () => {
        const p = panelOf(h, 'waterfall', probeRun.id, result.trace_id);
        return message(p, 'out', 'waterfall/didLoad') !== undefined ? p : undefined;
      });
      const loaded = message(wf, 'out', 'waterfall/didLoad')?.params as { trace: string; probe: { propagation: { ok: boolean; expected_parent_span_id: string; root_parent_span_id: string } } };
      assert.strictEqual(loaded.probe.propagation.ok, true);
      assert.strictEqual(loaded.probe.propagation.expected_parent_span_id, result.parent_span_id);
      assert.strictEqual(loaded.probe.propagation.root_parent_span_id, result.parent_span_id);
      const trace = JSON.parse(loaded.trace) as { spans: { name: string; phase: string | null }[] };
      assert.deepStrictEqual(trace.spans.map((s) => s.name).sort(), ['POST /v1/chat/completions', 'auth.check', 'inference.acquire_slot', 'inference.generate', 'response.write'].sort());
      assert.strictEqual(trace.spans.find((s) => s.name === 'inference.acquire_slot')?.phase, 'gpu_queue');
      // The live run: analysed again as spans arrive, its summary counts them.
      const grown = await waitFor('the live run to hold the probe\'s trace', 30_000, () => {
        const r = h.runs().find((x) => x.id === live.id);
        return r?.summary !== null && (r?.summary?.join.server_spans ?? 0) >= 5 ? r : undefined;
      });
      assert.strictEqual(grown.summary?.join.server_traces, 1);
      assert.strictEqual(grown.activity.kind, 'live');
    } finally {
      endpoint.close();
    }
  });

  test('a gateway that drops the probe\'s parent: the waterfall\'s banner reports the broken propagation', async function () {
    this.timeout(120_000);
    const endpoint = await instrumentedEndpoint(receiver as string, true);
    try {
      const result = await vscode.commands.executeCommand<ProbeResultShape>('phasewise.sendProbeRequest', { url: endpoint.url, traceTimeoutMs: 15_000 });
      assert.strictEqual(result?.propagation?.ok, false);
      const probeRun = h.runs().find((r) => r.kind === 'probe' && r.probes?.[result.trace_id] !== undefined);
      assert.ok(probeRun !== undefined);
      const wf = await waitFor('the probe\'s waterfall', 60_000, () => {
        const p = panelOf(h, 'waterfall', probeRun.id, result.trace_id);
        return message(p, 'out', 'waterfall/didLoad') !== undefined ? p : undefined;
      });
      const loaded = message(wf, 'out', 'waterfall/didLoad')?.params as { probe: { propagation: { ok: boolean; problems: string[] } } };
      assert.strictEqual(loaded.probe.propagation.ok, false);
      assert.ok(loaded.probe.propagation.problems.some((p) => p.includes('has no parent')), loaded.probe.propagation.problems.join('\n'));
    } finally {
      endpoint.close();
    }
  });
});
