/**
 * How long the extension host's event loop is held while the trace receiver takes large exports
 * (docs/performance.md: never > 50 ms), with the receiver on this thread (how the editor ran it before: the
 * OTLP/HTTP server and its JSONL file sink in the extension host) or on the run worker (the editor now:
 * the JSONL file and the live run's DuckDB). A child process posts the exports, so this thread only
 * runs the receiver (or nothing, on the worker). `--control` runs the receiver in that child process
 * too: this thread then only ticks, which gives the loaded machine's own scheduling gaps:
 *
 *   node out/bench/run/receiverLoop.js [--host|--worker|--control] [--exports 6] [--mb 8]
 *
 * Each export is one OTLP JSON ExportTraceServiceRequest of about `--mb` MB, made of samples/' spans.
 * Prints one line of JSON: the main thread's longest hold (10 ms timer resolution subtracted), the
 * wall time, and the spans accepted.
 */
import { spawn } from 'child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'fs';
import { loadavg, tmpdir } from 'os';
import * as path from 'path';
import { performance } from 'perf_hooks';
import { OtlpReceiver } from '../../src/core/probe/receiver/receiver';
import { JsonlFileSink } from '../../src/core/probe/receiver/sinks';
import { RunClient } from '../../src/extension/runs/runClient';
import * as P from '../../src/extension/runs/workerProtocol';

const repoRoot = path.resolve(__dirname, '..', '..', '..');

function arg(name: string, fallback: string): string {
  const i = process.argv.indexOf(`--${name}`);
  return i >= 0 ? process.argv[i + 1] : fallback;
}

/** One export of about `mb` MB: samples/' exports' resourceSpans, repeated. */
function exportBody(mb: number): { body: string; spans: number } {
  const lines = readFileSync(path.join(repoRoot, 'samples', 'spans.otlp.jsonl'), 'utf8').split('\n').filter((l) => l.trim() !== '');
  const resourceSpans: unknown[] = [];
  let bytes = 0;
  let spans = 0;
  for (let i = 0; bytes < mb * 1e6; i++) {
    const line = lines[i % lines.length];
    bytes += line.length;
    spans += [...line.matchAll(/"spanId"/g)].length;
    resourceSpans.push(...(JSON.parse(line) as { resourceSpans: unknown[] }).resourceSpans);
  }
  return { body: JSON.stringify({ resourceSpans }), spans };
}

/**
 * Posts the body `n` times from a child process, one after the other, to `address`; with `address`
 * null (control) the child first starts the receiver itself (the compiled one under out/) and prints
 * its summary's accepted span count.
 */
function postFromChild(address: string | null, file: string, n: number, jsonl: string): Promise<number> {
  const out = path.join(repoRoot, 'out', 'src', 'core', 'probe', 'receiver');
  const script = `
    const http = require('http'); const body = require('fs').readFileSync(${JSON.stringify(file)});
    const post = (host, port) => new Promise((res, rej) => {
      const req = http.request({ host, port: Number(port), path: '/v1/traces', method: 'POST', headers: { 'content-type': 'application/json' } }, (r) => { r.resume(); r.on('end', res); });
      req.on('error', rej); req.end(body); });
    (async () => {
      let receiver, address = ${JSON.stringify(address)};
      if (address === null) {
        const { OtlpReceiver } = require(${JSON.stringify(path.join(out, 'receiver.js'))});
        const { JsonlFileSink } = require(${JSON.stringify(path.join(out, 'sinks.js'))});
        receiver = new OtlpReceiver({ host: '127.0.0.1', port: 0, sinks: [new JsonlFileSink(${JSON.stringify(jsonl)})] });
        address = await receiver.listen();
      }
      const [host, port] = address.split(':');
      for (let i = 0; i < ${n}; i++) await post(host, port);
      if (receiver !== undefined) process.stdout.write(String((await receiver.stop()).accepted_spans));
    })().catch((e) => { console.error(e); process.exit(1); });`;
  return new Promise((resolve, reject) => {
    let stdout = '';
    const child = spawn(process.execPath, ['-e', script], { stdio: ['ignore', 'pipe', 'inherit'] });
    child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
    child.on('error', reject);
    child.on('close', (code) => (code === 0 ? resolve(Number(stdout || 0)) : reject(new Error(`poster exited ${String(code)}`))));
  });
}

async function main(): Promise<void> {
  const mode = process.argv.includes('--host') ? 'host' : process.argv.includes('--control') ? 'control' : 'worker';
  const n = Number(arg('exports', '6'));
  const mb = Number(arg('mb', '8'));
  const dir = mkdtempSync(path.join(tmpdir(), 'phasewise-receiverloop-'));
  const { body, spans } = exportBody(mb);
  const bodyFile = path.join(dir, 'export.json');
  writeFileSync(bodyFile, body);
  const jsonl = path.join(dir, 'received.otlp.jsonl');
  let held = 0;
  let last = performance.now();
  let ticking = true;
  const tick = (): void => {
    const now = performance.now();
    held = Math.max(held, now - last - 10);
    last = now;
    if (ticking) setTimeout(tick, 10);
  };
  let client: RunClient | undefined;
  let receiver: OtlpReceiver | undefined;
  try {
    let address: string | null = null;
    if (mode === 'host') {
      receiver = new OtlpReceiver({ host: '127.0.0.1', port: 0, sinks: [new JsonlFileSink(jsonl)] });
      address = await receiver.listen();
    } else if (mode === 'worker') {
      const workerFile = path.join(repoRoot, 'dist', 'runWorker.js');
      client = new RunClient({ workerFile });
      ({ address } = await client.call(P.StartReceiver, { listen: '127.0.0.1:0', key: 'live-bench', dir, jsonl, redact: [], settings: { slowTraceCount: 10 } }));
    }
    last = performance.now();
    setTimeout(tick, 10);
    const t0 = performance.now();
    const inChild = await postFromChild(address, bodyFile, n, jsonl);
    const accepted =
      mode === 'control'
        ? inChild
        : mode === 'host'
          ? (await (receiver as OtlpReceiver).stop()).accepted_spans
          : ((await (client as RunClient).call(P.StopReceiver, {})) as { summary: { accepted_spans: number } }).summary.accepted_spans;
    const wall = (performance.now() - t0) / 1000;
    ticking = false;
    process.stdout.write(
      `${JSON.stringify({ mode, exports: n, exportMB: Math.round(body.length / 1e5) / 10, spansPerExport: spans, acceptedSpans: accepted, wallSeconds: Math.round(wall * 100) / 100, maxBlockedMs: Math.round(held), loadAverage1m: Math.round(loadavg()[0] * 10) / 10 })}\n`,
    );
  } finally {
    ticking = false;
    await client?.dispose();
    rmSync(dir, { recursive: true, force: true });
  }
}

void main().catch((err: unknown) => {
  process.stderr.write(`${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`);
  process.exit(1);
});
