/**
 * `phasewise probe --count N --rate R`: N requests at a low fixed rate with open arrivals, written as
 * per-request records (docs/metrics.md §3.1) and, with `--receive`, their spans as the receiver got them; then
 * the two files are analysed as a run, exactly as `phasewise analyze --run … --spans …` would.
 */
import { createWriteStream } from 'fs';
import { performance } from 'perf_hooks';
import { analyzeFiles } from '../../core/run/analyzeFiles';
import { renderReport } from '../../core/report/index';
import { rootCandidates } from '../../core/probe/backends/poll';
import { startEmbeddedReceiver, type EmbeddedReceiver } from '../../core/probe/probe';
import { JsonlFileSink } from '../../core/probe/receiver/sinks';
import { runSeries } from '../../core/probe/series';
import { flagPositiveInt, flagString, parseDurationMs, UsageError, type ParsedArgs } from '../args';
import { exitCodeForVerdict, EXIT_FAIL, EXIT_INTERRUPTED, EXIT_PASS } from '../exitCodes';
import { note, writeStdout } from '../output';
import { checkOutputPath, writeOutputFile } from '../outputFile';
import { listenFlag } from './receive';
import { onInterrupt, requestFromFlags } from './probe';

/** A probe series checks the chain at a trickle; a load test belongs to k6. */
const MAX_RATE = 50;
/** Requests in one series (≈ 33 minutes at the highest rate). */
const MAX_COUNT = 100_000;

export async function runProbeSeries(args: ParsedArgs, format: string): Promise<number> {
  const count = flagPositiveInt(args, 'count', MAX_COUNT)!;
  const rateText = flagString(args, 'rate') ?? '1';
  const rate = Number(rateText);
  if (!(rate > 0) || rate > MAX_RATE) throw new UsageError(`--rate expects requests per second above 0 and at most ${MAX_RATE}, got '${rateText}'`);
  for (const f of ['jaeger', 'tempo']) {
    if (flagString(args, f) !== undefined) throw new UsageError(`a series collects its spans with --receive HOST:PORT (or reads a Collector file with --spans FILE), not --${f}`);
  }
  const stamp = new Date().toISOString().replace(/[-:]/g, '').replace('T', '-').replace(/\..*$/, '');
  const recordsFile = flagString(args, 'records') ?? `probe-${stamp}.records.ndjson`;
  const receive = flagString(args, 'receive');
  const spansFile = receive !== undefined ? flagString(args, 'spans-out') ?? recordsFile.replace(/(\.records)?\.ndjson$/, '') + '.spans.otlp.jsonl' : flagString(args, 'spans');
  const out = flagString(args, 'out');
  // Checked before the first request: a typo in a directory should not cost a series.
  const inputs = [flagString(args, 'body'), flagString(args, 'contract'), receive === undefined ? spansFile : undefined];
  for (const file of [recordsFile, receive !== undefined ? spansFile : undefined, out]) if (file !== undefined) await checkOutputPath(file, inputs);
  const { request } = await requestFromFlags(args);
  const traceWaitMs = parseDurationMs(flagString(args, 'timeout') ?? '30s', '--timeout');
  const quietMs = parseDurationMs(flagString(args, 'quiet-period') ?? '1500ms', '--quiet-period');

  const controller = new AbortController();
  const stopInterrupt = onInterrupt(controller);
  let embedded: EmbeddedReceiver | undefined;
  const records = createWriteStream(recordsFile);
  try {
    if (receive !== undefined) {
      embedded = await startEmbeddedReceiver(listenFlag(receive, '--receive'), [new JsonlFileSink(spansFile!)], request.apiToken ? [request.apiToken] : []);
    }
    note(`phasewise: ${count} request(s) at ${rate}/s to ${request.baseUrl}${embedded ? `, receiving spans on ${embedded.receiver.address}` : ''}`);
    const series = await runSeries({
      request,
      count,
      ratePerSecond: rate,
      signal: controller.signal,
      onResult: (send, record) => {
        records.write(JSON.stringify(record) + '\n');
        if (send.outcome !== 'succeeded') note(`phasewise: request ${record.request_id}: ${send.outcome} (${send.outcome_detail})`);
      },
    });
    for (const r of series.records) if (r.generator_dropped) records.write(JSON.stringify(r) + '\n');
    await new Promise<void>((resolve, reject) => records.end((err?: Error | null) => (err ? reject(err) : resolve())));
    if (embedded) {
      const expected = series.sends.filter((s) => s.http_status !== null).map((s) => s.trace_id);
      const missing = await waitForRoots(embedded, expected, traceWaitMs, quietMs, controller.signal);
      if (missing > 0) note(`phasewise: ${missing} of ${expected.length} trace(s) had no root after ${(traceWaitMs / 1000).toFixed(0)} s (exporter not flushed, sampling, or propagation broken)`);
      await embedded.receiver.stop();
      embedded = undefined;
    }
    if (controller.signal.aborted) return EXIT_INTERRUPTED;
    note(`phasewise: records in ${recordsFile}${spansFile ? `, spans in ${spansFile}` : ''}; open them as a run with: phasewise analyze --run ${recordsFile}${spansFile ? ` --spans ${spansFile}` : ''}`);
    const report = await analyzeFiles({ run: [recordsFile], spans: spansFile ? [spansFile] : [], contract: flagString(args, 'contract') });
    const text = format === 'json' ? JSON.stringify({ records: recordsFile, spans: spansFile ?? null, report }, null, 2) + '\n' : renderReport(report, 'text');
    if (out !== undefined) await writeOutputFile(out, text);
    else await writeStdout(text);
    const verdict = exitCodeForVerdict(report.verdict.status);
    if (verdict !== EXIT_PASS) return verdict;
    return series.sends.every((s) => s.outcome === 'succeeded') && series.dropped === 0 ? EXIT_PASS : EXIT_FAIL;
  } finally {
    stopInterrupt();
    if (!records.closed) records.end();
    await embedded?.receiver.stop();
  }
}

/** Waits until every trace has a root and nothing arrived for the quiet period, or the time is up; returns how many have no root. */
async function waitForRoots(embedded: EmbeddedReceiver, traceIds: string[], timeoutMs: number, quietMs: number, signal: AbortSignal): Promise<number> {
  const started = performance.now();
  for (;;) {
    const missing = traceIds.filter((id) => rootCandidates(embedded.index.trace(id)?.spans ?? []).length === 0).length;
    const quiet = performance.now() - (embedded.index.lastArrivalMs ?? started) >= quietMs;
    if ((missing === 0 && quiet) || signal.aborted || performance.now() - started >= timeoutMs) return missing;
    await new Promise((r) => setTimeout(r, 100));
  }
}
