/**
 * `node out/bench/run/webview.js [--report-model FILE] [--report-only | --waterfall-only]` (also run by `npm run bench`): the webview
 * figures of docs/performance.md in headless Chromium, on the same host page as the webview tests. Prints one
 * JSON object. Each figure is the median of fresh pages (first paint) or of repeated actions, timed
 * inside the page with performance.now() from the message or event to the next animation frame (the
 * frame that shows the result), so Playwright's own round trips are not counted.
 *
 * - waterfall first paint: 1k, 10k and 100k spans (generated traces through the OTLP reader and the trace
 *   model; the model arrives as JSON text, so parsing it is inside the figure)
 * - span detail open, critical path (first toggle: compute + redraw), filter (find with "hide non-matching"),
 *   expanding the collapsed root, the DOM's size, at 10k and at 100k
 * - scroll: animation-frame intervals while the 10k tree scrolls by three rows per frame
 * - report first paint: the report view model of the bench generator's 100k run with three routes and
 *   a slowed gateway (groups, the window series, a diagnosis; built once, cached); `--report-only`
 *   measures only this
 */
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'fs';
import * as os from 'os';
import * as path from 'path';
import { writeBigTrace } from '../webview/bigTrace';
import { analyzeRun } from '../../src/core/analysis/analyze';
import { DEFAULT_ANALYSIS_OPTIONS } from '../../src/core/analysis/options';
import { readTraceModel } from '../../src/core/analysis/trace/traceModel';
import type { TraceModel } from '../../src/core/analysis/trace/types';
import { loadFiles } from '../../src/core/formats/loadFiles';
import { buildReportView } from '../../src/core/report/view/build';
import { DuckStore } from '../../src/core/store/duckStore';
import { closeBrowser, HostPage } from '../../test/webview/harness';
import { presetOptions, RUN_FILES } from './generateCache';
import { generateRun } from '../generate/run';
import { emptyScenario, parseRoutes } from '../generate/scenario';
import type { ReportViewModel } from '../../src/core/report/view/types';

const REPO = path.resolve(__dirname, '..', '..', '..');
const REPORT_CACHE = path.join(REPO, 'out', 'bench', 'report-view-100k-routes.json');
/**
 * The report's 100k run has three routes over two models (so the report has groups, one of them
 * small) and a gateway slowed 4× from 100 s on (so a diagnosis fires): issue 17's sections at 100k.
 */
const REPORT_ROUTES = 'chat=/v1/chat/completions:0.7:llama-3.1-8b-instruct+llama-3.1-70b-instruct,embed=/v1/embed:0.28:llama-3.1-8b-instruct,tools=/v1/tools:0.02:llama-3.1-70b-instruct';
const FRESH_PAGES = 5;
const REPEATS = 20;

/** The interaction figures of one trace size. */
export interface Interactions {
  detailMs: number[];
  criticalPathMs: number[];
  filterFirstMs: number;
  filterMs: number[];
  /** Collapse the root, then expand it again: the expand (every row back) is timed. */
  expandMs: number[];
  scrollFrameMs: { median: number; p95: number; max: number; frames: number };
  /** Elements in the page after the first paint (a bounded DOM does not grow with the trace). */
  domNodes: number;
}

export interface WebviewBenchResult extends Interactions {
  firstPaint: Record<string, number[]>;
  /** The same interactions on the 100k-span trace (the figures above are the 10k trace's). */
  at100k: Interactions | null;
  loadAverage: number[];
  reportFirstPaintMs: number[] | null;
  /** Until the window series' charts (drawn after the first paint) are on screen too. */
  reportAllChartsMs: number[];
  reportSource: string;
}

/** What the timing callbacks see in the page (this tsconfig has no DOM lib). */
interface BenchWindow {
  __model: unknown;
  postMessage(m: unknown, target: string): void;
  requestAnimationFrame(cb: (t: number) => void): void;
  performance: { now(): number };
  phasewiseWaterfall: { setFind(text: string, filter: boolean): number };
  document: {
    querySelector(s: string): { click(): void; scrollTop: number; dispatchEvent(e: unknown): void } | null;
    querySelectorAll(s: string): { length: number };
    getElementsByTagName(s: string): { length: number };
  };
  Event: new (type: string) => unknown;
}
declare const window: BenchWindow;

export function median(xs: readonly number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  return s.length === 0 ? NaN : s.length % 2 ? s[(s.length - 1) / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2;
}

async function traceOf(spans: number): Promise<TraceModel> {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'phasewise-bench-trace-'));
  const store = new DuckStore();
  try {
    const t = writeBigTrace(dir, spans);
    await loadFiles(store, [t.k6, t.otlp]);
    const model = await readTraceModel(store, t.traceId, DEFAULT_ANALYSIS_OPTIONS);
    if (model === undefined) throw new Error('the generated trace is missing');
    return model;
  } finally {
    await store.close();
    rmSync(dir, { recursive: true, force: true });
  }
}

/** Puts the message params (the model as JSON text, as the host sends it) into the page outside the timing, then times one message → next frame. */
async function timeLoad(hp: HostPage, method: string, params: (model: unknown) => unknown, data: unknown, ready: string): Promise<number> {
  await hp.page.evaluate((text) => {
    window.__model = JSON.parse(text);
  }, JSON.stringify(params(JSON.stringify(data))));
  return hp.page.evaluate(
    ([m, sel]) =>
      new Promise<number>((resolve) => {
        const t0 = window.performance.now();
        window.postMessage({ phasewise: 1, kind: 'notification', method: m, params: window.__model }, '*');
        const wait = (): void =>
          window.requestAnimationFrame(() => {
            if (window.document.querySelector(sel) === null) return wait();
            // The frame after the one that laid out the rows is the first that shows them.
            window.requestAnimationFrame(() => resolve(window.performance.now() - t0));
          });
        wait();
      }),
    [method, ready] as const,
  );
}

async function firstPaint(model: TraceModel): Promise<number[]> {
  const out: number[] = [];
  for (let i = 0; i < FRESH_PAGES; i++) {
    const hp = await HostPage.open('waterfall');
    try {
      out.push(await timeLoad(hp, 'waterfall/didLoad', (trace) => ({ run: null, trace, state: null }), model, `[data-loaded-trace="${model.trace_id}"] .wf-row`));
    } finally {
      await hp.close();
    }
  }
  return out;
}

/** Times an action in the page up to the next animation frame. */
function timeAction(hp: HostPage, action: string, arg: string | number): Promise<number> {
  return hp.page.evaluate(
    ([a, x]) =>
      new Promise<number>((resolve) => {
        const t0 = window.performance.now();
        if (a === 'click') window.document.querySelector(String(x))?.click();
        else if (a === 'find') window.phasewiseWaterfall.setFind(String(x), true);
        window.requestAnimationFrame(() => resolve(window.performance.now() - t0));
      }),
    [action, arg] as const,
  );
}

async function interactions(model: TraceModel): Promise<Interactions> {
  const criticalPathMs: number[] = [];
  const detailMs: number[] = [];
  const filterMs: number[] = [];
  const expandMs: number[] = [];
  let filterFirstMs = NaN;
  let domNodes = NaN;
  let scroll = { median: NaN, p95: NaN, max: NaN, frames: 0 };
  for (let i = 0; i < FRESH_PAGES; i++) {
    const hp = await HostPage.open('waterfall');
    try {
      await timeLoad(hp, 'waterfall/didLoad', (trace) => ({ run: null, trace, state: null }), model, `[data-loaded-trace="${model.trace_id}"] .wf-row`);
      // The first toggle computes the path (then cached) and redraws the rows.
      criticalPathMs.push(await timeAction(hp, 'click', '[data-testid="critical-path"]'));
      if (i > 0) continue;
      domNodes = await hp.page.evaluate(() => window.document.getElementsByTagName('*').length);
      for (let k = 0; k < 5; k++) {
        await timeAction(hp, 'click', '.wf-row[data-row="0"] .twisty');
        expandMs.push(await timeAction(hp, 'click', '.wf-row[data-row="0"] .twisty'));
      }
      for (let k = 0; k < REPEATS; k++) detailMs.push(await timeAction(hp, 'click', `.wf-row[data-row="${(k % 12) + 1}"] .name`));
      const queries = ['db.query', 'svc-3', 'rerank', 'kv', 'tool.call embed', 'http.get', 'call.index=2', 'cache.get'];
      filterFirstMs = await timeAction(hp, 'find', 'db.query');
      for (let k = 0; k < REPEATS; k++) filterMs.push(await timeAction(hp, 'find', queries[k % queries.length]));
      await timeAction(hp, 'find', '');
      scroll = await hp.page.evaluate(
        () =>
          new Promise<{ median: number; p95: number; max: number; frames: number }>((resolve) => {
            const el = window.document.querySelector('[data-testid="span-tree"]');
            const times: number[] = [];
            let last = -1;
            let n = 0;
            const step = (t: number): void => {
              if (last >= 0) times.push(t - last);
              last = t;
              if (el) {
                el.scrollTop += 66;
                el.dispatchEvent(new window.Event('scroll'));
              }
              if (++n < 240) window.requestAnimationFrame(step);
              else {
                times.sort((a, b) => a - b);
                resolve({ median: times[Math.floor(times.length / 2)], p95: times[Math.floor(times.length * 0.95)], max: times[times.length - 1], frames: times.length });
              }
            };
            window.requestAnimationFrame(step);
          }),
      );
    } finally {
      await hp.close();
    }
  }
  return { detailMs, criticalPathMs, filterFirstMs, filterMs, expandMs, scrollFrameMs: scroll, domNodes };
}

/** The bench 100k preset with REPORT_ROUTES and the gateway degradation, generated once into `<data>/compact-100k-routes`. */
async function routesRun(dataDir: string, log: (l: string) => void): Promise<string> {
  const base = presetOptions('100k', 'compact', dataDir);
  const outDir = path.join(dataDir, 'compact-100k-routes');
  if (RUN_FILES.every((f) => existsSync(path.join(outDir, f)))) {
    log(`webview bench: using the cached 100k three-route run in ${outDir}`);
    return outDir;
  }
  log('webview bench: generating the 100k three-route run …');
  await generateRun({ ...base, outDir, runId: 'bench-100k-routes', scenario: { ...emptyScenario(), routes: parseRoutes(REPORT_ROUTES), degrade: [{ kind: 'gateway', atS: 100, factor: 4 }] } });
  return outDir;
}

/** The report view model of that run: built once (load + analysis) and cached as JSON. */
async function reportModel100k(file: string | undefined, log: (l: string) => void, dataDir: string): Promise<{ model: unknown; source: string } | null> {
  const cached = file ?? REPORT_CACHE;
  const describe = (m: ReportViewModel, where: string): string =>
    `report view model of the bench 100k run with ${m.report.groups.length} groups, a ${m.report.window_series.windows.length}-window series and ${m.report.diagnoses.length} diagnoses, ${(JSON.stringify(m).length / 1e6).toFixed(2)} MB of JSON (${where})`;
  if (existsSync(cached)) {
    const model = JSON.parse(readFileSync(cached, 'utf8')) as ReportViewModel;
    return { model, source: describe(model, path.relative(REPO, cached)) };
  }
  const dir = await routesRun(dataDir, log);
  const store = new DuckStore();
  try {
    log('webview bench: loading the 100k run once to build its report view model …');
    await loadFiles(store, [path.join(dir, 'k6.ndjson'), path.join(dir, 'spans.otlp.jsonl')]);
    const report = await analyzeRun(store, DEFAULT_ANALYSIS_OPTIONS, []);
    const view = await buildReportView(store, { options: DEFAULT_ANALYSIS_OPTIONS, gates: [], report });
    mkdirSync(path.dirname(REPORT_CACHE), { recursive: true });
    writeFileSync(REPORT_CACHE, JSON.stringify(view));
    return { model: view, source: describe(view, `built from ${path.relative(REPO, dir)}`) };
  } finally {
    await store.close();
  }
}

export async function benchWebviews(options: { reportModel?: string; log?: (l: string) => void; dataDir?: string; reportOnly?: boolean; waterfallOnly?: boolean } = {}): Promise<WebviewBenchResult> {
  const log = options.log ?? ((l: string) => process.stderr.write(`${l}\n`));
  try {
    const skipped: Interactions = { detailMs: [], criticalPathMs: [], filterFirstMs: NaN, filterMs: [], expandMs: [], scrollFrameMs: { median: NaN, p95: NaN, max: NaN, frames: 0 }, domNodes: NaN };
    const t1k = options.reportOnly ? undefined : await traceOf(1_000);
    const t10k = options.reportOnly ? undefined : await traceOf(10_000);
    const firstPaintFigures: Record<string, number[]> = t1k && t10k ? { '1k': await firstPaint(t1k), '10k': await firstPaint(t10k) } : {};
    const inter = t10k ? await interactions(t10k) : skipped;
    let at100k: Interactions | null = null;
    if (!options.reportOnly) {
      log('webview bench: the 100k-span trace …');
      const t100k = await traceOf(100_000);
      firstPaintFigures['100k'] = await firstPaint(t100k);
      at100k = await interactions(t100k);
    }
    const report = options.waterfallOnly ? null : await reportModel100k(options.reportModel, log, options.dataDir ?? path.join(REPO, 'out', 'bench', 'runs'));
    let reportFirstPaintMs: number[] | null = null;
    const reportAllChartsMs: number[] = [];
    if (report !== null) {
      reportFirstPaintMs = [];
      for (let i = 0; i < FRESH_PAGES; i++) {
        const hp = await HostPage.open('report');
        try {
          reportFirstPaintMs.push(await timeLoad(hp, 'report/didLoad', (model) => ({ run: 'bench', model, state: null }), report.model, '[data-loaded-run="bench"] canvas'));
        } finally {
          await hp.close();
        }
        // The series charts below the fold are drawn in the frames after the first paint: until they are all on screen.
        const all = await HostPage.open('report');
        try {
          reportAllChartsMs.push(await timeLoad(all, 'report/didLoad', (model) => ({ run: 'bench', model, state: null }), report.model, '[data-series-drawn="true"] [data-testid="series-charts"] canvas'));
        } finally {
          await hp.close();
        }
      }
    }
    return { firstPaint: firstPaintFigures, ...inter, at100k, loadAverage: os.loadavg(), reportFirstPaintMs, reportAllChartsMs, reportSource: report?.source ?? 'not measured' };
  } finally {
    await closeBrowser();
  }
}

/** The lines bench/RESULTS.md prints for these figures. */
export function webviewLines(r: WebviewBenchResult): string[] {
  const f = (xs: readonly number[]): string => `${median(xs).toFixed(1)} ms (median of ${xs.length}; ${Math.min(...xs).toFixed(1)}–${Math.max(...xs).toFixed(1)})`;
  const report =
    r.reportFirstPaintMs === null
      ? '- Report first paint at 100k: not measured'
      : `- Report first paint, 100k run: ${f(r.reportFirstPaintMs)} (target ≤ 500 ms; ${r.reportSource}); every chart drawn, the window series' too: ${f(r.reportAllChartsMs)}`;
  if (r.firstPaint['10k'] === undefined) return [report];
  const lines = [
    `- Waterfall first paint, 1k spans: ${f(r.firstPaint['1k'])}; 10k spans: ${f(r.firstPaint['10k'])} (target ≤ 200 ms at 10k; didLoad message → the frame after the rows are laid out, fresh page each)`,
    `- Span detail open (10k trace): ${f(r.detailMs)} (target ≤ 50 ms; click → next frame)`,
    `- Critical path at 10k spans, first toggle (compute + redraw): ${f(r.criticalPathMs)} (target ≤ 50 ms)`,
    `- Filter over 10k spans ("hide non-matching"): first ${r.filterFirstMs.toFixed(1)} ms (builds the search text), then ${f(r.filterMs)} (target ≤ 50 ms)`,
    `- Scroll, 10k rows, 3 rows per frame: frame interval median ${r.scrollFrameMs.median.toFixed(1)} ms, p95 ${r.scrollFrameMs.p95.toFixed(1)} ms, max ${r.scrollFrameMs.max.toFixed(1)} ms over ${r.scrollFrameMs.frames} frames`,
    `- Expand the root again (10k rows back): ${f(r.expandMs)}; DOM after first paint: ${r.domNodes} elements`,
    ...(r.at100k === null || r.firstPaint['100k'] === undefined
      ? []
      : [
          `- 100k spans: first paint (parse + layout) ${f(r.firstPaint['100k'])} (target ≤ 1 s); span detail ${f(r.at100k.detailMs)}; critical path ${f(r.at100k.criticalPathMs)}; ` +
            `filter first ${r.at100k.filterFirstMs.toFixed(1)} ms then ${f(r.at100k.filterMs)}; expand the root ${f(r.at100k.expandMs)}; scroll frame median ${r.at100k.scrollFrameMs.median.toFixed(1)} ms, p95 ${r.at100k.scrollFrameMs.p95.toFixed(1)} ms; DOM ${r.at100k.domNodes} elements (targets ≤ 50 ms each)`,
        ]),
    `- Load average during the run (1/5/15 min): ${r.loadAverage.map((x) => x.toFixed(2)).join(' / ')}`,
    report,
  ];
  return lines;
}

if (require.main === module) {
  const at = process.argv.indexOf('--report-model');
  const data = process.argv.indexOf('--data');
  benchWebviews({ reportModel: at >= 0 ? process.argv[at + 1] : undefined, reportOnly: process.argv.includes('--report-only'), waterfallOnly: process.argv.includes('--waterfall-only'), ...(data >= 0 ? { dataDir: process.argv[data + 1] } : {}) })
    .then((r) => {
      process.stdout.write(`${JSON.stringify(r)}\n`);
      for (const l of webviewLines(r)) process.stderr.write(`${l}\n`);
    })
    .catch((err: unknown) => {
      process.stderr.write(`${err instanceof Error ? err.stack : String(err)}\n`);
      process.exit(1);
    });
}
