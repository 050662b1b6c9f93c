/**
 * The run worker (dist/runWorker.js): one long-lived thread that holds the editor's runs. DuckDB
 * (its native module, every query), the readers, the analyses, the view models and the trace
 * receiver all run here, so the extension host's event loop only posts messages (docs/performance.md: never
 * held > 50 ms). The host starts it on first use (runClient.ts); its messages are workerProtocol.ts.
 */
import { existsSync } from 'fs';
import { mkdir, readdir } from 'fs/promises';
import * as path from 'path';
import { parentPort } from 'worker_threads';
import { previewPhases } from '../../core/analysis/breakdown/phasePreview';
import { InputError, StoreError } from '../../core/errors';
import { normalizeMemoryLimit, normalizeThreads } from '../../core/memorySettings';
import type { DuckStore } from '../../core/store/duckStore';
import { Endpoint, type RequestType } from '../../protocol/ipc';
import { serializeError } from './workerErrors';
import { fingerprintInputs, runCacheKey, type InputFingerprint } from './cacheKey';
import { classifyPaths } from '../../core/run/classifyInputs';
import { Jobs } from './worker/jobs';
import { LiveReceiver } from './worker/liveReceiver';
import { analyse, resolveOptions } from './worker/runAnalysis';
import { gateRow } from './worker/summary';
import { completeRun, databasePath, deleteRunFiles, loadRunDatabase } from './worker/runLoad';
import { RunStates, type MemorySettings, type RunAnalysis, type RunState } from './worker/runStates';
import * as V from './worker/runViews';
import { compareTargets, exportPairsTo, runSql, sqlToCsv, viewDocs, type SessionTarget } from './worker/viewSessions';
import * as P from './workerProtocol';

const port = parentPort;
if (port === null) throw new Error('runWorker.js runs only as a worker thread (see runClient.ts)');

const endpoint = new Endpoint({ side: 'webview', post: (m) => port.postMessage(m), onProblem: (p) => log('warn', `worker protocol: ${p.method}: ${p.message}`) });
port.on('message', (m: unknown) => endpoint.receive(m));

const runs = new RunStates();
const jobs = new Jobs();
const memory = new Map<string, MemorySettings>();
let receiver: { live: LiveReceiver; run: RunState } | undefined;

function log(level: 'debug' | 'info' | 'warn' | 'error', message: string): void {
  endpoint.notify(P.Log, { level, message });
}

/** Registers a request whose handler's value or error becomes the `{ value } | { error }` answer. */
function handle<Q, T>(type: RequestType<string, Q, P.Answer<T>>, fn: (params: Q) => Promise<T>): void {
  endpoint.onRequest(type, async (params) => {
    try {
      return { value: await fn(params) };
    } catch (err) {
      if (!(err instanceof InputError)) log('debug', `${type.method} failed: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}`);
      return { error: serializeError(err) };
    }
  });
}

/** DuckDB's limits of a load or analysis, checked again here (the host checked them as settings). */
function memoryOf(settings: P.RunSettings): MemorySettings {
  return {
    memoryLimit: settings.memoryLimit !== undefined ? normalizeMemoryLimit(settings.memoryLimit) : undefined,
    threads: settings.threads !== undefined ? normalizeThreads(settings.threads) : undefined,
  };
}

/** The run's state with its last analysis: views read the run as it was last analysed. */
function analysed(key: string): { run: RunState; analysis: RunAnalysis } {
  const run = runs.get(key);
  if (run?.analysis === undefined) throw new Error(`run ${key} is not open in the worker (open it first)`);
  return { run, analysis: run.analysis };
}

function onAnalysed<T>(key: string, fn: (store: DuckStore, a: RunAnalysis) => Promise<T>): Promise<T> {
  const { run, analysis } = analysed(key);
  return runs.withStore(run, memory.get(key) ?? {}, (store) => fn(store, analysis));
}

/**
 * The database of `base` can seed this load when it holds a subset of these inputs, unchanged and
 * read with the same trace-ID tag.
 */
async function usableBase(dir: string, base: string | null, fingerprints: readonly InputFingerprint[], traceIdTag: string): Promise<{ key: string; fingerprints: InputFingerprint[] } | undefined> {
  if (base === null) return undefined;
  const manifest = await completeRun(dir, base);
  if (manifest === undefined || manifest.traceIdTag !== traceIdTag) return undefined;
  const now = new Set(fingerprints.map((f) => JSON.stringify([f.side, f.path, f.size, f.mtimeMs])));
  if (!manifest.fingerprints.every((f) => now.has(JSON.stringify([f.side, f.path, f.size, f.mtimeMs])))) return undefined;
  return { key: base, fingerprints: manifest.fingerprints };
}

handle(P.Classify, ({ paths }) => classifyPaths(paths));

handle(P.OpenRun, ({ job, dir, inputs, settings, base }) =>
  jobs.run(job, async (j) => {
    const resolved = await resolveOptions(inputs.contract, settings);
    for (const n of resolved.notes) log('warn', n);
    const fingerprints = await fingerprintInputs(inputs);
    if (fingerprints.length === 0) throw new InputError('run', undefined, 'at least one run artifact or span export', 'no files');
    const key = runCacheKey(fingerprints, resolved.options.traceIdTag);
    await mkdir(dir, { recursive: true });
    const run = runs.ensure(key, databasePath(dir, key));
    memory.set(key, memoryOf(settings));
    let reused = true;
    let loadMs = 0;
    if ((await completeRun(dir, key)) === undefined) {
      reused = false;
      // A store of an earlier, incomplete database of this key is not the one being built.
      await runs.close(key, false);
      const seed = await usableBase(dir, base, fingerprints, resolved.options.traceIdTag);
      // The seed is copied while nothing writes it (its store closed: no checkpoint can be half done).
      if (seed !== undefined) await runs.close(seed.key, false);
      // The size of the files this load reads (a seeded load reads only those the seed lacks), from loadRun.
      let totalBytes: number | null = null;
      const t0 = performance.now();
      let current = '';
      await run.lock.run(() =>
        loadRunDatabase({
          dir,
          key,
          traceIdTag: resolved.options.traceIdTag,
          fingerprints,
          settings: memoryOf(settings),
          base: seed,
          onStore: (s) => j.attach(s),
          onFile: (file, bytes, _side, total) => {
            j.check();
            current = file;
            totalBytes = total;
            endpoint.notify(P.Progress, { job, message: `loading ${path.basename(file)}`, fraction: null, file, bytes, total_bytes: totalBytes });
          },
          progress: (message, fraction) => {
            j.check();
            endpoint.notify(P.Progress, { job, message, fraction: fraction ?? null, file: null, bytes: null, total_bytes: totalBytes });
          },
        }).catch((err: unknown) => {
          // Readers turn bad input into InputErrors; a DuckDB failure left over is ours: name the file
          // (as the CLI does), with DuckDB's first line only (no SQL).
          if (err instanceof StoreError && !j.cancelled && current !== '') {
            throw new StoreError(`while loading ${current}: ${err.message.split('\n')[0]}`, err.sql);
          }
          throw err;
        }),
      );
      loadMs = performance.now() - t0;
    }
    j.check();
    endpoint.notify(P.Progress, { job, message: 'analysing', fraction: null, file: null, bytes: null, total_bytes: null });
    const t1 = performance.now();
    const { analysis, summary } = await runs.withStore(run, memoryOf(settings), async (store) => {
      j.attach(store, run);
      return analyse(store, inputs.contract, resolved, undefined, analysisProgress(job));
    });
    j.check();
    run.analysis = analysis;
    return { key, fingerprints, summary, reused, load_ms: loadMs, analyze_ms: performance.now() - t1 };
  }),
);

/** The analysis's parts as progress messages of job `job` (the run notification shows each as it comes). */
function analysisProgress(job: number): (message: string) => void {
  return (message) => endpoint.notify(P.Progress, { job, message, fraction: null, file: null, bytes: null, total_bytes: null });
}

handle(P.Analyze, ({ job, key, dir, contract, settings }) =>
  jobs.run(job, async (j) => {
    const dbPath = databasePath(dir, key);
    if (runs.get(key) === undefined && !existsSync(dbPath)) throw new InputError(dbPath, undefined, 'the database of a loaded run', 'no such file (the run cache was cleared)');
    const run = runs.ensure(key, dbPath);
    memory.set(key, memoryOf(settings));
    const resolved = await resolveOptions(contract, settings);
    for (const n of resolved.notes) log('warn', n);
    const t0 = performance.now();
    const { analysis, summary } = await runs.withStore(run, memoryOf(settings), async (store) => {
      j.attach(store, run);
      return analyse(store, contract, resolved, undefined, analysisProgress(job));
    });
    j.check();
    run.analysis = analysis;
    return { summary, analyze_ms: performance.now() - t0 };
  }),
);

handle(P.GetReport, async ({ key }) => ({ report: JSON.stringify(analysed(key).analysis.report) }));
handle(P.ReportView, ({ key }) => onAnalysed(key, async (store, a) => ({ model: await V.reportViewJson(store, a) })));
handle(P.Trace, ({ key, trace_id }) => onAnalysed(key, async (store, a) => ({ trace: await V.traceJson(store, a, trace_id) })));
handle(P.ListTraces, ({ key, selection, limit }) => onAnalysed(key, (store, a) => V.tracesOf(store, a, selection, limit)));
handle(P.Compare, ({ key, trace_id }) => onAnalysed(key, (store, a) => V.comparison(store, a, trace_id)));
handle(P.SlowTraces, ({ key, order, limit }) => onAnalysed(key, (store, a) => V.slowTraces(store, a, order, limit)));
handle(P.ExportReport, ({ key, format, path: file }) => onAnalysed(key, async (store, a) => ({ bytes: await V.exportReport(store, a, format, file) })));
handle(P.ExportTrace, ({ key, trace_id, format, path: file }) => onAnalysed(key, async (store, a) => ({ bytes: await V.exportTrace(store, a, trace_id, format, file) })));
handle(P.Query, ({ key, sql, params }) => onAnalysed(key, async (store) => ({ rows: await V.queryRows(store, sql, params) })));
handle(P.PhasePreview, ({ key, phases }) => onAnalysed(key, async (store) => ({ picks: await previewPhases(store, phases) })));
handle(P.Gates, async ({ key }) => {
  const { report } = analysed(key).analysis;
  return { verdict: { status: report.verdict.status, broken_phase: report.verdict.broken_phase, reasons: [...report.verdict.reasons] }, gates: report.gates.map(gateRow) };
});

/** A run of the worker as a view session's target, under its last analysis. */
function keyTarget(key: string, label = key): SessionTarget {
  const { run, analysis } = analysed(key);
  return { run, label, options: analysis.options, contract: analysis.contract, memory: memory.get(key) ?? {} };
}

/** A side of Compare Runs…: a run the worker holds, or a `phasewise analyze --db` file under the editor's settings. */
async function sideTarget(side: P.CompareSide, settings: P.RunSettings): Promise<SessionTarget> {
  if (side.key !== null) return keyTarget(side.key, side.label);
  if (side.file === null) throw new Error('a side of the comparison names neither a run nor a database');
  const resolved = await resolveOptions(null, settings);
  for (const n of resolved.notes) log('warn', n);
  return { file: side.file, label: side.label, options: resolved.options, contract: null, memory: memoryOf(settings) };
}

handle(P.CompareRuns, ({ job, base, head, settings, compare }) =>
  jobs.run(job, async (j) => {
    const [b, h] = [await sideTarget(base, settings), await sideTarget(head, settings)];
    return { comparison: await compareTargets(runs, b, h, compare, j, (m) => log('info', m)) };
  }),
);
handle(P.ViewDocs, async ({ key }) => viewDocs(analysed(key).analysis.options));
handle(P.RunSql, ({ job, key, sql, max_rows }) => jobs.run(job, (j) => runSql(runs, keyTarget(key), sql, max_rows, j)));
handle(P.SqlToCsv, ({ job, key, sql, path: out }) => jobs.run(job, (j) => sqlToCsv(runs, keyTarget(key), sql, out, j)));
handle(P.ExportPairs, ({ job, key, path: out, format }) => jobs.run(job, (j) => exportPairsTo(runs, keyTarget(key), out, format, j)));

handle(P.Forget, async ({ keys, dir, delete: remove }) => {
  let deleted = 0;
  const all = keys.length === 0;
  const targets = all ? runs.keys() : keys;
  for (const key of targets) {
    if (receiver?.run.key === key) continue;
    await runs.close(key, true);
    memory.delete(key);
    if (remove) deleted += await deleteRunFiles(dir, key);
  }
  // Clear Run Cache: every database in the folder, also those of runs this window never opened.
  if (remove && all && existsSync(dir)) {
    for (const name of await readdir(dir)) {
      const m = /^([0-9a-z-]+)\.(duckdb|json)/.exec(name);
      if (m !== null && m[1] !== receiver?.run.key) deleted += await deleteRunFiles(dir, m[1]);
    }
  }
  return { deleted };
});

handle(P.StartReceiver, async ({ listen, key, dir, jsonl, redact, settings }) => {
  if (receiver !== undefined) throw new Error(`the trace receiver already listens on ${receiver.live.address}`);
  await mkdir(dir, { recursive: true });
  await mkdir(path.dirname(jsonl), { recursive: true });
  const run = runs.ensure(key, databasePath(dir, key), true);
  memory.set(key, memoryOf(settings));
  try {
    const live = await LiveReceiver.start({
      listen,
      jsonl,
      redact,
      withStore: (fn) => runs.withStore(run, memory.get(key) ?? {}, fn),
      warn: (m) => log('warn', m),
      onEvent: (e) => endpoint.notify(P.ReceiverEvent, e),
    });
    receiver = { live, run };
    return { address: live.address };
  } catch (err) {
    run.live = false;
    throw err;
  }
});

handle(P.StopReceiver, async () => {
  const r = receiver;
  if (r === undefined) return null;
  receiver = undefined;
  try {
    return { summary: await r.live.stop() };
  } finally {
    r.run.live = false;
  }
});

endpoint.onNotification(P.Cancel, ({ job }) => jobs.cancel(job));
