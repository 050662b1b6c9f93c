import { mkdir, writeFile } from 'fs/promises';
import * as path from 'path';
import { Arrivals, SteppedArrivals } from './arrivals';
import { ExpectedTally } from './expected';
import { MinHeap } from './heap';
import { K6Writer } from './k6Writer';
import type { GenerateOptions } from './options';
import { OtlpWriter } from './otlpWriter';
import { RecordsWriter } from './recordsWriter';
import { Simulator } from './simulator';
import { LineSink } from './sink';
import { TimeFormatter } from './timefmt';
import type { RequestTruth } from './truth';

export interface GeneratedRun {
  files: { k6: string; requests: string; spans: string; expected: string };
  expected: Record<string, unknown>;
  bytes: number;
  seconds: number;
}

type InFlight = { request: RequestTruth; vu: Parameters<Simulator['releaseVu']>[1] };

const SECOND_NS = 1e9;

/**
 * Generates one run: k6 NDJSON, per-request records, OTLP JSONL and expected.json in `outDir`.
 * Requests are simulated in arrival order and written in completion order through two heaps (k6 by
 * iteration end, spans by trace end) that hold only what is in flight, so memory stays bounded.
 */
export async function generateRun(options: GenerateOptions, observe?: (r: RequestTruth) => void): Promise<GeneratedRun> {
  const started = process.hrtime.bigint();
  await mkdir(options.outDir, { recursive: true });
  const gz = options.gzip ? '.gz' : '';
  const files = {
    k6: path.join(options.outDir, `k6.ndjson${gz}`),
    requests: path.join(options.outDir, `requests.ndjson${gz}`),
    spans: path.join(options.outDir, `spans.otlp.jsonl${gz}`),
    expected: path.join(options.outDir, 'expected.json'),
  };
  const time = new TimeFormatter(options.startEpochS);
  const k6Sink = new LineSink(files.k6, options.gzip);
  const recordSink = new LineSink(files.requests, options.gzip);
  const spanSink = new LineSink(files.spans, options.gzip);
  const k6 = new K6Writer(k6Sink, time, options.tls);
  const records = new RecordsWriter(recordSink, options.runId, options.windowS * SECOND_NS);
  const otlp = new OtlpWriter(spanSink, time, {
    shape: options.otlpShape,
    intValues: options.intValues,
    msStartGranularity: options.msStartGranularity,
    exportIntervalNs: options.exportIntervalMs * 1e6,
    maxBatchSpans: options.maxBatchSpans,
  });
  const sim = new Simulator(options);
  const tally = new ExpectedTally();
  const steps = options.scenario?.steps;
  const arrivals = steps
    ? new SteppedArrivals(options.seed, steps, options.requests)
    : new Arrivals(
        options.seed,
        options.rate,
        options.rampS,
        options.requests !== null ? { requests: options.requests } : { durationS: options.durationS },
        { amplitude: options.waveAmplitude, periodS: options.wavePeriodS },
      );
  const clientHeap = new MinHeap<InFlight>();
  const traceHeap = new MinHeap<RequestTruth>();
  let nextVusNs = SECOND_NS;

  const drainUntil = (tNs: number): void => {
    for (;;) {
      const k = clientHeap.peekKey() ?? Infinity;
      const s = traceHeap.peekKey() ?? Infinity;
      if (Math.min(k, s, nextVusNs) > tNs) return;
      if (nextVusNs <= k && nextVusNs <= s) {
        k6.vus(nextVusNs, sim.busyVus, options.maxVus);
        nextVusNs += SECOND_NS;
      } else if (k <= s) {
        const done = clientHeap.pop() as InFlight;
        sim.releaseVu(done.request, done.vu);
        k6.request(done.request);
        records.write(done.request);
      } else {
        const r = traceHeap.pop() as RequestTruth;
        if (r.server && r.traceId) otlp.trace(r.traceId, r.server);
      }
    }
  };

  const sinks = [k6Sink, recordSink, spanSink];
  for (let at = arrivals.next(); at !== null; at = arrivals.next()) {
    drainUntil(at);
    const { request, vu } = sim.simulate(at);
    tally.add(request);
    observe?.(request);
    if (request.dropped) {
      k6.dropped(at);
      records.write(request);
    } else {
      clientHeap.push(request.iterationEndNs, { request, vu });
      if (request.server && request.server.fate !== 'none') traceHeap.push(Math.max(request.server.root.endNs, lastChildEnd(request)), request);
    }
    for (const sink of sinks) if (sink.needsFlush) await sink.flush();
  }
  // Drain: everything in flight finishes; the gauge keeps ticking until the last iteration ends.
  while (clientHeap.size > 0 || traceHeap.size > 0) {
    drainUntil(Math.min(clientHeap.peekKey() ?? Infinity, traceHeap.peekKey() ?? Infinity));
    for (const sink of sinks) if (sink.needsFlush) await sink.flush();
  }
  k6.vus(nextVusNs, sim.busyVus, options.maxVus);
  otlp.flush();
  await Promise.all(sinks.map((s) => s.close()));

  const expected = {
    generator: 'phasewise bench/generate',
    options: { ...options, outDir: undefined },
    slots: sim.slots,
    max_queue: sim.maxQueue,
    ...tally.toJSON(),
    files: {
      k6: { lines: k6Sink.lines, points: k6.points, bytes: k6Sink.bytesWritten },
      requests: { lines: recordSink.lines, bytes: recordSink.bytesWritten },
      spans: { lines: spanSink.lines, spans: otlp.spans, bytes: spanSink.bytesWritten },
    },
    notes:
      'Figures known by construction from the simulator (not read back from the files). Durations are integer ns, ' +
      'so each per-request figure is exact; quantiles use position (n-1)*p with linear interpolation.',
  };
  await writeFile(files.expected, JSON.stringify(expected, null, 2) + '\n');
  const seconds = Number(process.hrtime.bigint() - started) / 1e9;
  return { files, expected, bytes: k6Sink.bytesWritten + recordSink.bytesWritten + spanSink.bytesWritten, seconds };
}

function lastChildEnd(r: RequestTruth): number {
  const children = r.server?.children ?? [];
  return children.length > 0 ? children[children.length - 1].endNs : 0;
}
