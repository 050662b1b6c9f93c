/**
 * The probe worker thread (dist/probeWorker.js): sends the probe, waits for its trace and reconciles
 * it (DuckDB) off the extension host's event loop, and writes it to `outDir` as a run (its record and
 * the trace's documents) for the waterfall; or runs a series and writes its records and spans to
 * `outDir`. One job per worker, answered with one `probe`/`series` or `error` message.
 */
import { createWriteStream } from 'fs';
import { mkdir, writeFile } from 'fs/promises';
import * as path from 'path';
import { parentPort, workerData } from 'worker_threads';
import { analysisFor } from '../../core/run/analyzeFiles';
import { remoteBackend } from '../../core/probe/backends/backendSpec';
import { runProbe, startEmbeddedReceiver, type EmbeddedReceiver } from '../../core/probe/probe';
import { parseListenAddress } from '../../core/probe/receiver/events';
import { JsonlFileSink } from '../../core/probe/receiver/sinks';
import { renderProbeText } from '../../core/probe/renderProbe';
import { runSeries } from '../../core/probe/series';
import { toProbeRecord } from '../../core/probe/records';
import type { TraceBackend, TraceLook } from '../../core/probe/backends/backend';
import type { ProbeResult } from '../../core/probe/result';
import { assertMatches } from '../../protocol/schema';
import { cancelMessage, probeJob, type ProbeWorkerMessage } from './probeProtocol';

async function main(): Promise<void> {
  const port = parentPort;
  if (port === null) throw new Error('probeWorker.js runs only as a worker thread');
  const post = (m: ProbeWorkerMessage): void => port.postMessage(m);
  const controller = new AbortController();
  port.on('message', (m: unknown) => {
    if (cancelMessage.check(m, 'message') === undefined) controller.abort();
  });
  let embedded: EmbeddedReceiver | undefined;
  try {
    const job = assertMatches(probeJob, workerData, 'probe job');
    const { options } = await analysisFor(job.contract);
    const spansFile = job.kind === 'series' && job.outDir ? path.join(job.outDir, 'spans.otlp.jsonl') : undefined;
    if (job.backend.kind === 'receiver') {
      const listen = parseListenAddress(job.backend.listen);
      if (!listen) throw new Error(`phasewise.receiver.listen: expected HOST:PORT, got '${job.backend.listen}'`);
      embedded = await startEmbeddedReceiver(listen, spansFile ? [new JsonlFileSink(spansFile)] : [], job.request.apiToken ? [job.request.apiToken] : []);
    }
    const inner = embedded?.backend ?? remoteBackend(job.backend);
    if (job.kind === 'probe') {
      const backend = inner !== undefined ? recording(inner) : undefined;
      const result = await runProbe({
        request: job.request, backend, traceTimeoutMs: job.traceTimeoutMs, quietMs: job.quietMs, analysis: options,
        signal: controller.signal, onStage: (text) => post({ type: 'stage', text }),
      });
      const files = job.outDir !== undefined ? await writeProbeRun(job.outDir, result, backend?.last) : null;
      post({ type: 'probe', result, text: renderProbeText(result).join('\n'), files });
      return;
    }
    const records = path.join(job.outDir ?? '.', 'records.ndjson');
    const out = createWriteStream(records);
    const series = await runSeries({
      request: job.request, count: job.count ?? 5, ratePerSecond: job.ratePerSecond ?? 1, signal: controller.signal,
      onResult: (send, record, i) => {
        out.write(JSON.stringify(record) + '\n');
        post({ type: 'stage', text: `request ${i + 1}: ${send.outcome}` });
      },
    });
    for (const r of series.records) if (r.generator_dropped) out.write(JSON.stringify(r) + '\n');
    await new Promise<void>((resolve) => out.end(() => resolve()));
    // Let the exporters' batches arrive (SDK batch delays are seconds) before the files are analysed.
    if (embedded) await new Promise((r) => setTimeout(r, job.quietMs + 5000));
    post({ type: 'series', records, spans: spansFile ?? (job.backend.kind === 'file' ? job.backend.path : null), sent: series.sends.length, succeeded: series.sends.filter((s) => s.outcome === 'succeeded').length });
  } catch (err) {
    post({ type: 'error', message: err instanceof Error ? err.message : String(err) });
  } finally {
    await embedded?.receiver.stop();
    port.unref();
  }
}

/** A backend that remembers its last look: the documents of the trace the probe reconciled. */
function recording(inner: TraceBackend): TraceBackend & { last?: TraceLook } {
  const r: TraceBackend & { last?: TraceLook } = {
    name: inner.name,
    ingestNote: inner.ingestNote,
    evidence: inner.evidence?.bind(inner),
    look: async (traceId, signal) => {
      const look = await inner.look(traceId, signal);
      r.last = look;
      return look;
    },
  };
  return r;
}

/**
 * The probe as a run the editor opens (its waterfall needs the trace's spans in a database): the
 * request's record (docs/metrics.md §3.1 per-request records) and each fetched document, as the readers load them.
 */
async function writeProbeRun(dir: string, result: ProbeResult, look: TraceLook | undefined): Promise<{ records: string; spans: string[] }> {
  await mkdir(dir, { recursive: true });
  const records = path.join(dir, 'probe.records.ndjson');
  await writeFile(records, JSON.stringify(toProbeRecord(result, { runId: 'probe', requestId: '1', scheduledOffsetMs: 0, attemptOffsetMs: 0 })) + '\n');
  const spans: string[] = [];
  for (const [i, doc] of (look?.documents ?? []).entries()) {
    const file = path.join(dir, `trace-${i}.${doc.format === 'otlp' ? 'otlp.jsonl' : 'jaeger.json'}`);
    await writeFile(file, doc.text.endsWith('\n') ? doc.text : `${doc.text}\n`);
    spans.push(file);
  }
  return { records, spans };
}

void main();
