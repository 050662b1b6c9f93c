/**
 * `phasewise probe` and `phasewise receive` as a user runs them (the built CLI in a child process)
 * against the fake gateway on the real OpenTelemetry SDK. The API token is searched for in every byte
 * the CLI wrote: stdout, stderr, the records, the received spans, the database.
 */
import { strict as assert } from 'assert';
import { spawn } from 'child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'fs';
import * as os from 'os';
import * as path from 'path';
import { DuckStore } from '../../src/core/store/duckStore';
import { FakeGateway } from '../fixtures/probe/fakeGateway';
import { freeLoopbackPort } from '../helpers/ports';
import { cliPath, type CliResult } from './runCli';

const TOKEN = 'sk-cli-test-4e1d9b7c2a5f8e3d6b0c';

function cli(args: string[], env: Record<string, string> = {}): Promise<CliResult> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [cliPath, ...args], { env: { ...process.env, PHASEWISE_API_TOKEN: TOKEN, ...env } });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    child.on('error', reject);
    child.on('close', (status) => resolve({ status, stdout, stderr }));
  });
}


/** Every file under dir, as bytes, must not contain the token. */
function assertTokenAbsent(dir: string, ...texts: string[]): void {
  for (const t of texts) assert.ok(!t.includes(TOKEN), 'the token reached the output');
  for (const f of readdirSync(dir)) assert.ok(!readFileSync(path.join(dir, f)).includes(TOKEN), `the token is in ${f}`);
}

describe('phasewise probe / receive (CLI, fake gateway with the real SDK)', function () {
  this.timeout(60_000);
  let dir: string;
  beforeEach(() => (dir = mkdtempSync(path.join(os.tmpdir(), 'phasewise-cli-probe-'))));
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  it('probe --receive --format json: one object with the documented keys, exit 0, no token anywhere', async () => {
    const port = await freeLoopbackPort();
    // The gateway echoes the Authorization header into a span attribute: the receiver must redact it.
    const gateway = new FakeGateway({ exporterUrl: `http://127.0.0.1:${port}/v1/traces`, protocol: 'protobuf', apiToken: TOKEN, tokens: 4, tokenDelayMs: 5, leakAuthorization: true });
    await gateway.start();
    try {
      const spansOut = path.join(dir, 'probe.spans.otlp.jsonl');
      const r = await cli(['probe', '--url', gateway.url, '--model', 'fake', '--stream', '--receive', `127.0.0.1:${port}`, '--spans-out', spansOut, '--timeout', '10s', '--quiet-period', '300ms', '--format', 'json']);
      assert.equal(r.status, 0, r.stderr);
      const j = JSON.parse(r.stdout) as Record<string, unknown> & { client: Record<string, unknown>; server: { phases: Record<string, unknown> }; propagation: { ok: boolean; problems: string[] }; reconcile: string[] };
      for (const k of ['trace_id', 'traceparent', 'outcome', 'http_status', 'client', 'server', 'network_envelope_ms', 'propagation', 'reconcile']) assert.ok(k in j, k);
      for (const k of ['total_ms', 'ttfb_ms', 'ttft_ms', 'dns_ms', 'connect_ms', 'tls_ms']) assert.ok(k in j.client, k);
      for (const k of ['gateway_ms', 'gpu_queue_ms', 'generation_ms', 'unattributed_ms']) assert.ok(k in j.server.phases, k);
      assert.equal(j.propagation.ok, true, j.propagation.problems.join('; '));
      assert.equal(j.traceparent, `00-${String(j.trace_id)}-${String(j.parent_span_id)}-01`);
      assert.equal(gateway.timings[0].traceId, j.trace_id);
      assert.ok(readFileSync(spansOut, 'utf8').includes('[REDACTED]'), 'the echoed token was redacted');
      assertTokenAbsent(dir, r.stdout, r.stderr);
    } finally {
      await gateway.stop(false);
    }
  });

  it('probe a 429: exit 1 and the outcome in text', async () => {
    const port = await freeLoopbackPort();
    const gateway = new FakeGateway({ exporterUrl: `http://127.0.0.1:${port}/v1/traces`, protocol: 'json', forceStatus: 429 });
    await gateway.start();
    try {
      const r = await cli(['probe', '--url', gateway.url, '--receive', `127.0.0.1:${port}`, '--timeout', '10s', '--quiet-period', '300ms']);
      assert.equal(r.status, 1, r.stderr);
      assert.match(r.stdout, /outcome rejected \(HTTP 429/);
      // A refused request has no queue or generation span: listed, and not a propagation problem.
      assert.match(r.stdout, /^propagation ok/m);
      assert.match(r.stdout, /missing: gpu_queue, generation/);
    } finally {
      await gateway.stop(false);
    }
  });

  it('an --out or --records in a missing directory is bad input before any request is sent (exit 4, the gateway sees none)', async () => {
    const gateway = new FakeGateway({ exporterUrl: 'http://127.0.0.1:9/v1/traces', protocol: 'json' });
    await gateway.start();
    try {
      const missing = path.join(dir, 'no-such-dir');
      for (const args of [['--out', path.join(missing, 'probe.txt')], ['--count', '2', '--records', path.join(missing, 'series.ndjson')], ['--count', '2', '--records', path.join(dir, 'r.ndjson'), '--out', path.join(missing, 'report.txt')]]) {
        const r = await cli(['probe', '--url', gateway.url, '--timeout', '1s', ...args]);
        assert.equal(r.status, 4, `${args.join(' ')}: ${r.stderr}`);
        assert.match(r.stderr, /no-such-dir.*--out|--out.*no-such-dir|a directory that does not exist/, args.join(' '));
      }
      assert.equal(gateway.timings.length, 0, 'no request reached the gateway');
    } finally {
      await gateway.stop(false);
    }
  });

  it('probe --count 4 --rate 8: per-request records that the records reader loads as a run, joined to the received spans', async () => {
    const port = await freeLoopbackPort();
    const gateway = new FakeGateway({ exporterUrl: `http://127.0.0.1:${port}/v1/traces`, protocol: 'json', apiToken: TOKEN, tokens: 3, tokenDelayMs: 5 });
    await gateway.start();
    try {
      const records = path.join(dir, 'series.records.ndjson');
      const r = await cli(['probe', '--url', gateway.url, '--count', '4', '--rate', '8', '--receive', `127.0.0.1:${port}`, '--records', records, '--timeout', '10s', '--quiet-period', '300ms', '--format', 'json']);
      assert.equal(r.status, 0, r.stderr);
      const lines = readFileSync(records, 'utf8').trim().split('\n').map((l) => JSON.parse(l) as Record<string, number | string>);
      assert.equal(lines.length, 4);
      // Open arrivals at 8/s: planned 0, 125, 250, 375 ms.
      assert.deepEqual(lines.map((l) => l.scheduled_offset_ms).sort((a, b) => Number(a) - Number(b)), [0, 125, 250, 375]);
      const out = JSON.parse(r.stdout) as { spans: string; report: { join: { client_requests: number; matched: number } } };
      assert.equal(out.report.join.client_requests, 4);
      assert.equal(out.report.join.matched, 4);
      // Each record's total, by hand, equals final − send (what the reader computes).
      for (const l of lines) assert.ok(Number(l.final_content_offset_ms) > Number(l.send_offset_ms));
      assert.deepEqual(new Set(lines.map((l) => l.trace_id)), new Set(gateway.timings.map((t) => t.traceId)));
      assertTokenAbsent(dir, r.stdout, r.stderr);
    } finally {
      await gateway.stop(false);
    }
  });

  it('receive: spans from the SDK into --out and --db; SIGINT flushes, prints the totals and exits 0', async () => {
    const port = await freeLoopbackPort();
    const out = path.join(dir, 'recv.otlp.jsonl');
    const db = path.join(dir, 'recv.duckdb');
    const child = spawn(process.execPath, [cliPath, 'receive', '--listen', `127.0.0.1:${port}`, '--out', out, '--db', db]);
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    await new Promise<void>((resolve) => child.stderr.on('data', () => stderr.includes('receiving OTLP/HTTP') && resolve()));
    const gateway = new FakeGateway({ exporterUrl: `http://127.0.0.1:${port}/v1/traces`, protocol: 'protobuf', tokens: 2, tokenDelayMs: 2 });
    await gateway.start();
    for (let i = 0; i < 3; i++) await fetch(`${gateway.url}/v1/chat/completions`, { method: 'POST', body: JSON.stringify({ stream: i % 2 === 0 }) }).then((res) => res.text());
    await gateway.forceFlush();
    await gateway.stop(false);
    child.kill('SIGINT');
    const status = await new Promise<number | null>((resolve) => child.on('close', resolve));
    assert.equal(status, 0, stderr);
    // 3 requests × 8 spans (root, auth, prepare, route, acquire, generate, response.write; streaming adds none).
    const lines = readFileSync(out, 'utf8').trim().split('\n');
    const spans = lines.reduce((n, l) => n + (l.match(/"spanId"/g) ?? []).length, 0);
    assert.equal(spans, 3 * 7);
    assert.match(stdout, new RegExp(`received ${spans} span\\(s\\)`), stderr);
    const store = new DuckStore({ database: db });
    try {
      const [row] = await store.all<{ n: number; sources: number }>('SELECT (SELECT count(*) FROM spans) AS n, (SELECT count(*) FROM sources) AS sources');
      assert.equal(row.n, spans);
      assert.equal(row.sources, 1);
    } finally {
      await store.close();
    }
  });

  it('usage errors exit 4: two backends, a bad URL, a bad listen address', async () => {
    assert.equal((await cli(['probe', '--url', 'http://127.0.0.1:1', '--receive', '127.0.0.1:0', '--tempo', 'http://x'])).status, 4);
    assert.equal((await cli(['probe', '--url', 'ftp://example'])).status, 4);
    const bad = await cli(['receive', '--listen', 'nowhere:port']);
    assert.equal(bad.status, 4);
    assert.match(bad.stderr, /--listen expects HOST:PORT/);
  });
});
