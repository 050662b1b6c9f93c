import * as assert from 'assert';
import * as http from 'http';
import type { AddressInfo } from 'net';
import * as vscode from 'vscode';
import { ensureActive } from './context';
import { streamThreeTokens } from './sse';

interface Check {
  ok: boolean;
  reason?: string;
  value?: { traceId: string; parentId: string; sampled: boolean };
}

interface Summary {
  address: string;
  accepted_spans: number;
}

interface ProbeResultShape {
  outcome: string;
  http_status: number | null;
  trace_id: string;
  client: { ttft_ms: number | null; total_ms: number | null; output_tokens: number | null };
}

const TOKEN = 'sk-vscode-probe-9c2e4b6a8d0f';

/** An OpenAI-compatible endpoint streaming three tokens; it records what it was sent. */
async function tinyEndpoint(): Promise<{ url: string; seen: Array<{ auth: string | undefined; traceparent: string | undefined }>; close(): void }> {
  const seen: Array<{ auth: string | undefined; traceparent: string | undefined }> = [];
  const server = http.createServer((req, res) => {
    seen.push({ auth: req.headers.authorization, traceparent: req.headers.traceparent as string | undefined });
    req.resume();
    req.on('end', () => streamThreeTokens(res, true));
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, seen, close: () => server.close() };
}

suite('probe commands', () => {
  suiteSetup(ensureActive);

  test('Validate traceparent: a valid header is parsed, an all-zero trace-id is refused with the reason', async () => {
    const good = await vscode.commands.executeCommand<Check>('phasewise.validateTraceparent', '00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01');
    assert.strictEqual(good.ok, true);
    assert.strictEqual(good.value?.parentId, '00f067aa0ba902b7');
    const bad = await vscode.commands.executeCommand<Check>('phasewise.validateTraceparent', '00-00000000000000000000000000000000-00f067aa0ba902b7-01');
    assert.strictEqual(bad.ok, false);
    assert.match(bad.reason ?? '', /trace-id is all zeros/);
  });

  test('Start/Stop Trace Receiver: an OTLP JSON export is accepted and counted', async () => {
    await vscode.workspace.getConfiguration('phasewise').update('receiver.listen', '127.0.0.1:0', vscode.ConfigurationTarget.Global);
    const address = await vscode.commands.executeCommand<string>('phasewise.startTraceReceiver');
    assert.ok(address, 'the receiver did not start');
    const body = JSON.stringify({
      resourceSpans: [{ resource: { attributes: [] }, scopeSpans: [{ spans: [
        { traceId: '4bf92f3577b34da6a3ce929d0e0e4736', spanId: '00f067aa0ba902b7', name: 'POST /v1/chat/completions', kind: 2, startTimeUnixNano: '1700000000000000000', endTimeUnixNano: '1700000000100000000' },
      ] }] }],
    });
    const [host, port] = address.split(':');
    const status = await new Promise<number>((resolve, reject) => {
      const req = http.request({ host, port, path: '/v1/traces', method: 'POST', headers: { 'content-type': 'application/json' } }, (res) => {
        res.resume();
        res.on('end', () => resolve(res.statusCode ?? 0));
      });
      req.on('error', reject);
      req.end(body);
    });
    assert.strictEqual(status, 200);
    const summary = await vscode.commands.executeCommand<Summary>('phasewise.stopTraceReceiver');
    assert.strictEqual(summary.accepted_spans, 1);
  });

  test('Send Probe Request: the token from SecretStorage is sent, never written to settings; timings come back', async () => {
    const endpoint = await tinyEndpoint();
    try {
      assert.strictEqual(await vscode.commands.executeCommand<boolean>('phasewise.setApiToken', TOKEN), true);
      const result = await vscode.commands.executeCommand<ProbeResultShape>('phasewise.sendProbeRequest', { url: endpoint.url, backend: { kind: 'none' } });
      assert.ok(result, 'no probe result');
      assert.strictEqual(result.outcome, 'succeeded');
      assert.strictEqual(result.client.output_tokens, 3);
      assert.ok(result.client.ttft_ms !== null && result.client.total_ms !== null && result.client.ttft_ms <= result.client.total_ms);
      assert.strictEqual(endpoint.seen[0].auth, `Bearer ${TOKEN}`);
      assert.match(endpoint.seen[0].traceparent ?? '', new RegExp(`^00-${result.trace_id}-[0-9a-f]{16}-01$`));
      assert.ok(!JSON.stringify(vscode.workspace.getConfiguration('phasewise')).includes(TOKEN), 'the token reached the settings');
      assert.ok(!JSON.stringify(result).includes(TOKEN), 'the token reached the result');
    } finally {
      endpoint.close();
      await vscode.commands.executeCommand('phasewise.setApiToken', '');
    }
  });
});
