/**
 * Probe and receiver figures (issue 15), apart from the main bench: `node out/bench/probe/main.js`
 * after `npm run compile-tests` (`--rates 25,50,100,200 --seconds 4 --probes 15`).
 *
 * (1) Receiver throughput: the fake gateway (real OpenTelemetry JS SDK, protobuf exporter, batch delay
 *     200 ms) driven at rising request rates for a fixed time; spans/s accepted by the receiver and
 *     stored (JSONL file and DuckDB run), and the exports refused (503 when storage falls behind).
 * (2) The probe's own overhead: over N sequential probes on loopback, the client CPU per request, the
 *     envelope (client total − the gateway's own root time: what the probe's HTTP stack and the
 *     loopback add), and the reconciliation's wall time (DuckDB load + reconcileTrace).
 * Gateway, load and receiver share this process and the machine's 2 cores: the figures are the
 * receiver's throughput under that load, not an isolated maximum.
 */
import { mkdtempSync, rmSync } from 'fs';
import * as os from 'os';
import * as path from 'path';
import { performance } from 'perf_hooks';
import { DEFAULT_ANALYSIS_OPTIONS } from '../../src/core/analysis/options';
import { pollTrace } from '../../src/core/probe/backends/poll';
import { startEmbeddedReceiver } from '../../src/core/probe/probe';
import { DuckSink } from '../../src/core/probe/receiver/duckSink';
import { JsonlFileSink } from '../../src/core/probe/receiver/sinks';
import { reconcileProbe } from '../../src/core/probe/reconcileProbe';
import { sendTimedRequest } from '../../src/core/probe/send/timedRequest';
import { DuckStore } from '../../src/core/store/duckStore';
import { FakeGateway } from '../../test/fixtures/probe/fakeGateway';

function arg(name: string, fallback: string): string {
  const i = process.argv.indexOf(`--${name}`);
  return i >= 0 ? process.argv[i + 1] : fallback;
}

function median(values: number[]): number {
  const s = [...values].sort((a, b) => a - b);
  const m = Math.floor(s.length / 2);
  return s.length % 2 ? s[m] : (s[m - 1] + s[m]) / 2;
}

async function throughput(rate: number, seconds: number, dir: string): Promise<string> {
  const store = new DuckStore({ database: path.join(dir, `recv-${rate}.duckdb`) });
  const duck = new DuckSink(store, { sourcePath: `bench-${rate}` });
  const file = new JsonlFileSink(path.join(dir, `recv-${rate}.otlp.jsonl`));
  const recv = await startEmbeddedReceiver({ host: '127.0.0.1', port: 0 }, [file, duck]);
  const gateway = new FakeGateway({ exporterUrl: `http://${recv.receiver.address}/v1/traces`, protocol: 'protobuf', tokens: 2, tokenDelayMs: 1, slots: 256, batchDelayMs: 200 });
  await gateway.start();
  const started = performance.now();
  const inflight: Promise<unknown>[] = [];
  const total = Math.round(rate * seconds);
  for (let i = 0; i < total; i++) {
    const wait = started + (i * 1000) / rate - performance.now();
    if (wait > 0) await new Promise((r) => setTimeout(r, wait));
    inflight.push(fetch(`${gateway.url}/v1/chat/completions`, { method: 'POST', body: '{"stream":false}' }).then((r) => r.text()).catch(() => undefined));
  }
  await Promise.all(inflight);
  const sent = performance.now();
  await gateway.forceFlush();
  const received = performance.now();
  const summary = recv.receiver.snapshot();
  await duck.flush();
  const stored = performance.now();
  await gateway.stop(false);
  await recv.receiver.stop();
  const [{ n }] = await store.all<{ n: number }>('SELECT count(*) AS n FROM spans');
  await store.close();
  const achieved = total / ((sent - started) / 1000);
  const s = (ms: number): string => (ms / 1000).toFixed(2);
  return `| ${rate} | ${achieved.toFixed(1)} | ${summary.accepted_spans} | ${(summary.accepted_spans / ((received - started) / 1000)).toFixed(0)} | ${n} | ${(n / ((stored - started) / 1000)).toFixed(0)} | ${s(stored - received)} | ${Object.entries(summary.refused).map(([k, v]) => `${v}×${k}`).join(' ') || 0} |`;
}

async function overhead(probes: number): Promise<string[]> {
  const recv = await startEmbeddedReceiver({ host: '127.0.0.1', port: 0 });
  const gateway = new FakeGateway({ exporterUrl: `http://${recv.receiver.address}/v1/traces`, protocol: 'protobuf', tokens: 8, tokenDelayMs: 5, slots: 4, batchDelayMs: 50 });
  await gateway.start();
  const cpu: number[] = [];
  const envelope: number[] = [];
  const reconcile: number[] = [];
  for (let i = 0; i < probes; i++) {
    const c0 = process.cpuUsage();
    const send = await sendTimedRequest({ baseUrl: gateway.url, model: 'bench', stream: true, timeoutMs: 10_000 });
    const c1 = process.cpuUsage(c0);
    // The gateway's own CPU shares the process: subtract nothing, report the upper bound, say so.
    cpu.push((c1.user + c1.system) / 1000);
    const g = gateway.timings.find((t) => t.traceId === send.trace_id)!;
    envelope.push(send.client.total_ms! - (g.rootEnd - g.rootStart));
    const { fetch, look } = await pollTrace(recv.backend, { traceId: send.trace_id, expectedParent: send.parent_span_id, timeoutMs: 5000, quietMs: 100, sentAtMs: 0 });
    const r0 = performance.now();
    await reconcileProbe(send, fetch, look, DEFAULT_ANALYSIS_OPTIONS);
    reconcile.push(performance.now() - r0);
  }
  await gateway.stop(false);
  await recv.receiver.stop();
  return [
    `probes: ${probes} sequential streaming requests (8 tokens, 5 ms apart) on loopback`,
    `client CPU per request (probe + the in-process gateway, an upper bound): median ${median(cpu).toFixed(2)} ms`,
    `envelope (probe total − gateway's own root time): median ${median(envelope).toFixed(2)} ms, max ${Math.max(...envelope).toFixed(2)} ms`,
    `reconciliation (DuckDB load + reconcileTrace) per probe: median ${median(reconcile).toFixed(0)} ms, max ${Math.max(...reconcile).toFixed(0)} ms`,
  ];
}

async function main(): Promise<void> {
  const rates = arg('rates', '25,50,100,200').split(',').map(Number);
  const seconds = Number(arg('seconds', '4'));
  const dir = mkdtempSync(path.join(os.tmpdir(), 'phasewise-bench-probe-'));
  try {
    console.log(`machine: ${os.cpus().length} × ${os.cpus()[0]?.model ?? '?'}, load average ${os.loadavg().map((l) => l.toFixed(2)).join(' ')}`);
    console.log(`\n(1) receiver throughput, ${seconds} s per rate, 7 spans per request, protobuf exports\n`);
    console.log('| offered req/s | achieved req/s | spans received | received spans/s | spans in DuckDB | stored spans/s | store lag after last export s | refused |');
    console.log('|---:|---:|---:|---:|---:|---:|---:|---:|');
    for (const rate of rates) console.log(await throughput(rate, seconds, dir));
    console.log(`\n(2) the probe's own overhead\n`);
    for (const line of await overhead(Number(arg('probes', '15')))) console.log(line);
    console.log(`\nload average after: ${os.loadavg().map((l) => l.toFixed(2)).join(' ')}`);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

void main();
