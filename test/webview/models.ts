/**
 * The data the webview tests render, computed by the core from real files: the samples/ run with its
 * contract, the 1,041-span Zipkin trace from the public Zipkin Lens test data, and a generated
 * 10k-span trace. Each is built once per mocha run.
 */
import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import { analyzeRun } from '../../src/core/analysis/analyze';
import { DEFAULT_ANALYSIS_OPTIONS, type AnalysisOptions } from '../../src/core/analysis/options';
import type { Report } from '../../src/core/report/model';
import { readTraceModel } from '../../src/core/analysis/trace/traceModel';
import { compareWithTypical } from '../../src/core/analysis/trace/typicalTrace';
import type { TraceComparison, TraceModel } from '../../src/core/analysis/trace/types';
import { loadFiles } from '../../src/core/formats/loadFiles';
import { analysisFor } from '../../src/core/run/analyzeFiles';
import { buildEmbeddedData, buildReportView } from '../../src/core/report/view/build';
import type { ReportViewModel } from '../../src/core/report/view/types';
import { DuckStore } from '../../src/core/store/duckStore';
import { writeBigTrace } from '../../bench/webview/bigTrace';
import { repoRoot, sharedSamplesDir } from '../helpers/paths';

export const ZIPKIN_1041 = path.join(sharedSamplesDir, 'zipkin-json', 'zipkin_zipkin-lens_testdata_smartthings-mobile-web-install.json');
export const SAMPLE_RUN = [path.join(repoRoot, 'samples', 'k6.ndjson'), path.join(repoRoot, 'samples', 'spans.otlp.jsonl')];
export const SAMPLE_CONTRACT = path.join(repoRoot, 'samples', 'steady.loadcontract.yaml');

export interface SampleRun {
  report: Report;
  view: ReportViewModel;
  options: AnalysisOptions;
  slow: TraceModel;
  comparison: TraceComparison | undefined;
}

let sample: Promise<SampleRun> | undefined;
let zipkin: Promise<TraceModel> | undefined;
let big: Promise<{ model: TraceModel; spanCount: number }> | undefined;

/** The samples/ run analysed with steady.loadcontract.yaml, its report view (with embedded data) and its slowest trace. */
export function sampleRun(): Promise<SampleRun> {
  sample ??= (async () => {
    const { options, gates } = await analysisFor(SAMPLE_CONTRACT);
    const store = new DuckStore();
    try {
      await loadFiles(store, SAMPLE_RUN);
      const report = await analyzeRun(store, options, gates);
      const view = await buildReportView(store, { options, gates, report, contractPath: SAMPLE_CONTRACT });
      view.embedded = await buildEmbeddedData(store, view, options);
      const slow = view.embedded.waterfalls[report.slow_traces[0].trace_id];
      const comparison = view.embedded.comparisons[slow.trace_id] ?? (await compareWithTypical(store, slow, options));
      return { report, view, options, slow, comparison: comparison ?? undefined };
    } finally {
      await store.close();
    }
  })();
  return sample;
}

async function onlyTrace(files: string[], traceId?: string): Promise<TraceModel> {
  const store = new DuckStore();
  try {
    await loadFiles(store, files);
    const id = traceId ?? (await store.all<{ t: string }>('SELECT DISTINCT trace_id AS t FROM spans'))[0].t;
    const model = await readTraceModel(store, id, DEFAULT_ANALYSIS_OPTIONS);
    if (model === undefined) throw new Error(`no trace ${id}`);
    return model;
  } finally {
    await store.close();
  }
}

/** The 1,041-span Zipkin trace (server side only). */
export function zipkinTrace(): Promise<TraceModel> {
  zipkin ??= onlyTrace([ZIPKIN_1041]);
  return zipkin;
}

/** A generated trace of 10,000 spans with its k6 request, loaded through the OTLP and k6 readers. */
export function bigTrace(): Promise<{ model: TraceModel; spanCount: number }> {
  big ??= (async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'phasewise-big-'));
    try {
      const t = writeBigTrace(dir, 10_000);
      return { model: await onlyTrace([t.k6, t.otlp], t.traceId), spanCount: t.spanCount };
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  })();
  return big;
}
