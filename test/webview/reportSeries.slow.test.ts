import * as assert from 'assert';
import { createHash } from 'crypto';
import { execFile } from 'child_process';
import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import { promisify } from 'util';
import { parseArgs } from '../../bench/generate/options';
import { generateRun } from '../../bench/generate/run';
import { USER_OBSERVED_DEFINITIONS } from '../../src/core/analysis/observed/userObserved';
import type { Report, SeriesWindow } from '../../src/core/report/model';
import type { EmbeddedPage, ReportViewModel } from '../../src/core/report/view/types';
import { traceListKey } from '../../src/core/report/view/types';
import * as R from '../../src/protocol/report';
import { encodeJson } from '../../src/protocol/schema';
import { fmtDelta, fmtInt, fmtMs, fmtPct, MISSING } from '../../webview/shared/format';
import { deltaE2000 } from '../helpers/colorDifference';
import { repoRoot } from '../helpers/paths';
import { browser, closeBrowser, HostPage } from './harness';

/**
 * The report webview's issue-17 sections on a generated run with three routes (one under the 200-call
 * floor) whose gateway the generator slows 4× from 60 s on. The model is the one the CLI embeds in
 * `analyze --format html`; every value on screen is compared with the CLI's own `--format json` of the
 * same run (a separate process), and counts, hashes and sizes with the generated files themselves.
 */
const run = promisify(execFile);
const CLI = path.join(repoRoot, 'dist', 'cli.js');
const CONTRACT = path.join(repoRoot, 'test', 'fixtures', 'report', 'routes.loadcontract.yaml');
const ROUTES = 'chat=/v1/chat/completions:0.7:llama-3.1-8b-instruct+llama-3.1-70b-instruct,embed=/v1/embed:0.25:llama-3.1-8b-instruct,tools=/v1/tools:0.05:llama-3.1-70b-instruct';
const GENERATE = ['--seed', '17', '--rate', '25', '--duration', '120', '--ramp', '0', '--slots', '400', '--max-queue', '400', '--routes', ROUTES, '--degrade', 'gateway@60:4'];

interface Cli {
  json: Report;
  html: string;
  model: ReportViewModel;
}

function embeddedModel(html: string): ReportViewModel {
  const m = /<script type="application\/json" id="phasewise-data">([\s\S]*?)<\/script>/.exec(html);
  assert.ok(m, 'the data block');
  const page = JSON.parse(m[1]) as EmbeddedPage;
  assert.strictEqual(page.kind, 'report');
  return (page as { model: ReportViewModel }).model;
}

async function cli(dir: string, name: string, extra: string[]): Promise<Cli> {
  const args = ['analyze', '--run', path.join(dir, 'requests.ndjson'), '--spans', path.join(dir, 'spans.otlp.jsonl'), '--contract', CONTRACT, ...extra, '--quiet'];
  const json = path.join(dir, `${name}.json`);
  const html = path.join(dir, `${name}.html`);
  await run(process.execPath, [CLI, ...args, '--format', 'json', '--out', json]);
  await run(process.execPath, [CLI, ...args, '--format', 'html', '--out', html]);
  const text = fs.readFileSync(html, 'utf8');
  return { json: JSON.parse(fs.readFileSync(json, 'utf8')) as Report, html: html, model: embeddedModel(text) };
}

/** A report page on the test host, trace lists answered from the file's embedded lists. */
async function openReport(model: ReportViewModel, runId: string, theme: 'dark' | 'light' | 'high-contrast' = 'dark'): Promise<{ hp: HostPage; listed: R.TraceSelectionParams[] }> {
  const hp = await HostPage.open('report', { theme, width: 1300, height: 1000 });
  const listed: R.TraceSelectionParams[] = [];
  hp.channel.onRequest(R.ListTraces, (p) => {
    listed.push(p.selection);
    const list = model.embedded?.trace_lists.find((l) => l.key === traceListKey(p.selection));
    return { traces: list?.traces ?? [], total: list?.total ?? 0 };
  });
  hp.channel.onNotification(R.SaveState, () => undefined);
  hp.channel.notify(R.DidLoad, { run: runId, model: encodeJson(model), state: null });
  await hp.page.waitForSelector(`[data-loaded-run="${runId}"][data-series-drawn="true"]`);
  return { hp, listed };
}

async function cells(hp: HostPage, rowSelector: string): Promise<string[][]> {
  return hp.page.locator(rowSelector).evaluateAll((rows) => rows.map((r) => Array.from((r as unknown as { children: ArrayLike<{ textContent: string | null }> }).children, (c) => c.textContent ?? '')));
}

async function readout(hp: HostPage, testid: string): Promise<string> {
  return (await hp.page.locator(`[data-testid="${testid}"] .rp-chart-readout`).textContent()) ?? '';
}

function span(w: SeriesWindow): string {
  return `${w.label ?? `#${w.index}`} (${fmtInt(w.start_offset_ms / 1000)}–${fmtInt(w.end_offset_ms / 1000)} s)${w.partial ? ', partial' : ''}`;
}

const rate = (v: number | null): string => (v === null ? MISSING : v.toFixed(1));

function sha256(file: string): string {
  return createHash('sha256').update(fs.readFileSync(file)).digest('hex');
}

interface RecordLine {
  route_id: string;
  outcome: string;
  generator_dropped: boolean;
}

describe('report webview: groups, window series, diagnoses, join bias, user-observed figures and provenance (issue 17)', function () {
  this.timeout(300_000);
  let dir: string;
  let fixed: Cli;
  let sliding: Cli;
  let records: RecordLine[];
  let hp: HostPage;
  let listed: R.TraceSelectionParams[];

  before(async () => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'pw-report-series-'));
    await generateRun(parseArgs([...GENERATE, '--out', dir]));
    records = fs
      .readFileSync(path.join(dir, 'requests.ndjson'), 'utf8')
      .split('\n')
      .filter((l) => l.trim() !== '')
      .map((l) => JSON.parse(l) as RecordLine)
      .filter((r) => !r.generator_dropped);
    fixed = await cli(dir, 'fixed', []);
    sliding = await cli(dir, 'sliding', ['--window-slide', '10s']);
    ({ hp, listed } = await openReport(fixed.model, 'routes'));
  });
  after(async () => {
    await hp?.close();
    await closeBrowser();
    if (dir) fs.rmSync(dir, { recursive: true, force: true });
  });

  it('lists every group with the CLI’s figures, marks the one under the floor and says the overall tail mixes the routes', async () => {
    const j = fixed.json;
    const rows = await cells(hp, '[data-testid="groups"] tbody tr');
    assert.strictEqual(rows.length, j.groups.length);
    j.groups.forEach((g, i) => {
      const m = g.metrics.client_total_ms;
      assert.deepStrictEqual(rows[i], [
        g.too_small ? `${g.key}too small for a p95` : g.key,
        fmtInt(g.outcomes.started),
        fmtInt(g.successes),
        fmtPct(g.outcomes.error_rate),
        fmtPct(g.join.coverage),
        fmtMs(m.p50, false),
        g.too_small ? `(${fmtMs(m.p95, false)})` : fmtMs(m.p95, false),
        g.too_small ? MISSING : (g.tail.tail_ratio as number).toFixed(2),
        fmtPct(g.tail.tail_share),
        fmtPct(g.tail.session_tail_probability),
        rows[i][10],
      ], g.key);
    });
    // Independent of the analysis: the tools route's successes counted in the generated records.
    const toolsOk = records.filter((r) => r.route_id === 'tools' && r.outcome === 'succeeded').length;
    assert.ok(toolsOk > 0 && toolsOk < 200, `tools has ${toolsOk} successes`);
    const tools = j.groups.find((g) => g.dimensions.route === 'tools');
    assert.ok(tools?.too_small && tools.successes === toolsOk);
    assert.deepStrictEqual(j.groups.filter((g) => g.too_small).map((g) => g.key), [tools.key]);
    const mix = (await hp.page.locator('[data-testid="group-mix"]').allTextContents())[0];
    const byRoute = new Map<string, number>();
    for (const r of records) byRoute.set(r.route_id, (byRoute.get(r.route_id) ?? 0) + 1);
    const sorted = [...byRoute.entries()].sort((a, b) => b[1] - a[1]);
    assert.strictEqual(mix, `The run mixes 3 routes (${sorted.map(([k, n]) => `${k} ${fmtInt(n)}`).join(', ')}): the whole-run tail mixes them.`);
    // The dimensions' definitions are the model's text.
    const defs = await hp.page.locator('[data-testid="group-definitions"] dd').allTextContents();
    assert.deepStrictEqual(defs, Object.values(j.grouping.definitions));
  });

  it('opens a group with the keyboard: its quantile table and tail line are the CLI’s', async () => {
    const j = fixed.json;
    const i = j.groups.findIndex((g) => !g.too_small && g.dimensions.route === 'embed');
    const g = j.groups[i];
    await hp.page.locator(`[data-testid="group-${i}"] summary`).focus();
    await hp.page.keyboard.press('Enter');
    assert.strictEqual(await hp.page.locator(`[data-testid="group-${i}"]`).getAttribute('open'), '');
    const rows = await cells(hp, `[data-testid="group-${i}-q-matched"] tbody tr`);
    for (const [metric, q] of Object.entries(g.metrics).filter(([, q]) => q.n > 0)) {
      const row = rows.find((r) => r[0] === metric);
      assert.deepStrictEqual(row?.slice(0, 6), [metric, fmtInt(q.n), fmtMs(q.p50, false), fmtMs(q.p95, false), fmtMs(q.p99, false), fmtMs(q.mean, false)], metric);
    }
    const tail = (await hp.page.locator(`[data-testid="group-${i}-tail"]`).textContent()) ?? '';
    assert.ok(tail.startsWith(`tail ratio p95/p50 ${(g.tail.tail_ratio as number).toFixed(2)} · above the budget ${fmtMs(g.tail.budget_ms)}: ${fmtPct(g.tail.tail_share)}`), tail);
    assert.ok(tail.includes(`a session of ${g.tail.calls_per_session} calls hits the tail with probability ${fmtPct(g.tail.session_tail_probability)}`), tail);
    assert.strictEqual(await hp.page.locator(`[data-testid="group-${i}-tail-bar"] .rp-stack-seg`).count(), g.tail_attribution.phases.filter((x) => x.mean_ms > 0).length);
  });

  it('states the diagnosis the generator injected (gateway-bound from 60 s), with the CLI’s evidence and first check', async () => {
    const j = fixed.json;
    const codes = await hp.page.locator('[data-testid^="diagnosis-"][data-code]').evaluateAll((els) => els.map((e) => (e as unknown as { dataset: { code: string } }).dataset.code));
    assert.deepStrictEqual(codes, j.diagnoses.map((d) => d.code));
    assert.ok(codes.includes('gateway-bound'), codes.join(', '));
    assert.strictEqual(await hp.page.locator('[data-testid="diagnoses-summary"]').textContent(), `${j.diagnosis_status.summary} (read from how the owners moved together over ${fmtInt(j.diagnosis_status.windows_compared)} windows with enough matched successes).`);
    for (const [i, d] of j.diagnoses.entries()) {
      assert.strictEqual(await hp.page.locator(`#diagnosis-${i}-h`).textContent(), `${d.code} ${d.title}`);
      assert.strictEqual(await hp.page.locator(`[data-testid="diagnosis-${i}-first-check"]`).textContent(), `First check: ${d.first_check}`);
      const rows = await cells(hp, `[data-testid="diagnosis-${i}-evidence"] tbody tr`);
      assert.strictEqual(rows.length, d.evidence.length);
      d.evidence.forEach((e, k) => {
        assert.deepStrictEqual(rows[k].slice(0, 5), [e.figure, e.stat, e.role === 'correlated' && e.r !== undefined ? `correlated (r = ${e.r.toFixed(2)})` : e.role, `#${e.from_window}`, `#${e.to_window}`]);
        if (e.figure.endsWith('_ms')) assert.deepStrictEqual(rows[k].slice(5, 7), [fmtMs(e.from), fmtMs(e.to)]);
        assert.ok(rows[k][7].startsWith(e.figure === 'in_flight' ? (e.change as number).toFixed(1) : fmtDelta(e.change)), rows[k][7]);
        assert.strictEqual(rows[k][8], `${fmtInt(e.n_from)} → ${fmtInt(e.n_to)}`);
        assert.strictEqual(rows[k][9], e.text);
      });
    }
    const gw = j.diagnoses.find((d) => d.code === 'gateway-bound');
    const to = j.window_series.windows.find((w) => w.index === gw?.evidence[0].to_window);
    assert.ok((to?.start_offset_ms ?? 0) >= 60_000, 'the rise is seen in a window after the injected 60 s');
    const notEvaluated = await hp.page.locator('[data-testid="diagnoses-not-evaluated"] li').allTextContents();
    assert.deepStrictEqual(notEvaluated, j.diagnosis_status.not_evaluated.map((x) => `${x.code}: ${x.why}`));
  });

  it('draws the window series: keyboard readouts of rates, in-flight, errors, tokens/s and owner p95/p50 are the CLI’s per-window figures', async () => {
    const s = fixed.json.window_series;
    assert.strictEqual(s.kind, 'fixed');
    // The started counts over the series' windows add up to the generated records (none dropped).
    assert.strictEqual(s.windows.reduce((a, w) => a + w.started, 0), records.length);
    const page = hp.page;
    await page.locator('[data-testid="chart-series-rates"]').focus();
    for (let i = 0; i < s.windows.length; i++) {
      const w = s.windows[i];
      if (i > 0) await page.keyboard.press('ArrowRight');
      assert.strictEqual(await readout(hp, 'chart-series-rates'), `window ${span(w)}: scheduled ${rate(w.scheduled_per_s)}/s, started ${rate(w.started_per_s)}/s, completed ${rate(w.completed_per_s)}/s, ${fmtInt(w.started)} started`);
    }
    const w2 = s.windows[2];
    await page.locator('[data-testid="chart-series-inflight"]').focus();
    await page.keyboard.press('ArrowRight');
    await page.keyboard.press('ArrowRight');
    assert.strictEqual(await readout(hp, 'chart-series-inflight'), `window ${span(w2)}: ${rate(w2.in_flight)} requests in flight on average`);
    await page.locator('[data-testid="chart-series-errors"]').focus();
    await page.keyboard.press('End');
    const last = s.windows[s.windows.length - 1];
    const e = last.errors;
    assert.strictEqual(await readout(hp, 'chart-series-errors'), `window ${span(last)}: rejected ${fmtInt(e.rejected)}, timed out ${fmtInt(e.timed_out)}, transport failed ${fmtInt(e.transport_failed)}, canceled ${fmtInt(e.canceled)}, failed ${fmtInt(e.failed)}`);
    await page.locator('[data-testid="chart-series-tokens"]').focus();
    assert.strictEqual(await readout(hp, 'chart-series-tokens'), `window ${span(s.windows[0])}: ${fmtInt(s.windows[0].tokens_per_s)} output tokens/s`);
    const owners = ['client_total_ms', 'network_envelope_ms', 'gateway_ms', 'gpu_queue_ms', 'generation_ms', 'unattributed_server_ms'];
    const expectOwners = (k: 'p50' | 'p95', w: SeriesWindow): string =>
      `window ${span(w)}, ${k}: ${owners.map((o) => `${o.replace(/_ms$/, '').replace(/_/g, ' ')} ${fmtMs(w.owners[o][k])}`).join(', ')} (n=${fmtInt(w.owners.client_total_ms.n)})`;
    await page.locator('[data-testid="chart-series-owners"]').focus();
    await page.keyboard.press('ArrowRight');
    await page.keyboard.press('ArrowRight');
    assert.strictEqual(await readout(hp, 'chart-series-owners'), expectOwners('p95', w2));
    await page.locator('.pw-toggle[data-stat="p50"]').click();
    assert.strictEqual(await page.locator('.pw-toggle[data-stat="p50"]').getAttribute('aria-pressed'), 'true');
    await page.locator('[data-testid="chart-series-owners"]').focus();
    await page.keyboard.press('ArrowRight');
    await page.keyboard.press('ArrowRight');
    assert.strictEqual(await readout(hp, 'chart-series-owners'), expectOwners('p50', w2));
    // A fixed window on the report's grid lists its traces on Enter, as the window charts do.
    await page.keyboard.press('Enter');
    await page.waitForSelector('[data-testid="selected-traces"]');
    assert.deepStrictEqual(listed[listed.length - 1], { kind: 'window', index: w2.index });
  });

  it('names the worst window of each SLO figure and the owner that grew there, as the CLI does', async () => {
    const s = fixed.json.window_series;
    const rows = await cells(hp, '[data-testid="series-worst"] tbody tr');
    assert.strictEqual(rows.length, s.worst.length);
    assert.ok(s.worst.length >= 2 && s.worst.every((w) => w.source !== 'default'), 'the contract’s SLO gates pick the figures');
    s.worst.forEach((w, i) => {
      const win = s.windows.find((x) => x.index === w.window) as SeriesWindow;
      const g = w.owner_grew;
      assert.deepStrictEqual(rows[i], [
        `${w.metric} ${w.stat}`,
        `gate ${w.source}`,
        `#${w.window} (${fmtInt(win.start_offset_ms / 1000)}–${fmtInt(win.end_offset_ms / 1000)} s)`,
        fmtMs(w.value),
        fmtInt(w.n),
        fmtMs(w.typical),
        g === null ? 'no owner grew' : `${g.owner.replace(/_ms$/, '').replace(/_/g, ' ')}: mean ${fmtMs(g.typical_mean_ms)} → ${fmtMs(g.worst_mean_ms)} (${fmtDelta(g.delta_ms)})`,
      ]);
    });
  });

  it('shows the sliding series of --window-slide 10s: its windows overlap and each readout is the CLI’s', async () => {
    const s = sliding.json.window_series;
    assert.strictEqual(s.kind, 'sliding');
    assert.strictEqual(s.slide_ms, 10_000);
    const { hp: hp2, listed: listed2 } = await openReport(sliding.model, 'sliding', 'light');
    try {
      assert.strictEqual(await hp2.page.locator('#series-h').textContent(), `Window series (30 s windows sliding by 10 s, ${fmtInt(s.windows.length)} windows)`);
      await hp2.page.locator('[data-testid="chart-series-rates"]').focus();
      for (let i = 0; i < s.windows.length; i++) {
        if (i > 0) await hp2.page.keyboard.press('ArrowRight');
        const w = s.windows[i];
        assert.strictEqual(await readout(hp2, 'chart-series-rates'), `window ${span(w)}: scheduled ${rate(w.scheduled_per_s)}/s, started ${rate(w.started_per_s)}/s, completed ${rate(w.completed_per_s)}/s, ${fmtInt(w.started)} started`);
      }
      // Sliding windows overlap: the started counts add up to about three times the requests.
      const total = s.windows.reduce((a, w) => a + w.started, 0);
      assert.ok(total > 2.5 * records.length && total <= 3 * records.length, `${total} vs ${records.length}`);
      await hp2.page.keyboard.press('Enter');
      await hp2.page.waitForTimeout(100);
      assert.deepStrictEqual(listed2, [], 'a sliding window is not a window of the report’s grid: Enter lists nothing');
      await hp2.page.locator('#series').scrollIntoViewIfNeeded();
      await hp2.screenshot('report-routes-sliding-series-light');
      assert.deepStrictEqual(await hp2.allProblems(), []);
    } finally {
      await hp2.close();
    }
  });

  it('shows join bias, the user-observed figures with the catalog’s definitions beside them, and the definitions', async () => {
    const j = fixed.json;
    const b = j.join_bias;
    assert.deepStrictEqual(await cells(hp, '[data-testid="join-bias"] tbody tr'), [
      ['matched', fmtInt(b.matched.n), fmtMs(b.matched.p50, false), fmtMs(b.matched.p95, false)],
      ['unmatched', fmtInt(b.unmatched.n), fmtMs(b.unmatched.p50, false), fmtMs(b.unmatched.p95, false)],
    ]);
    assert.strictEqual(b.matched.n + b.unmatched.n, records.filter((r) => r.outcome === 'succeeded').length);
    assert.strictEqual(await hp.page.locator('[data-testid="join-bias-message"]').textContent(), b.message);
    const test = (await hp.page.locator('[data-testid="join-bias-test"]').textContent()) ?? '';
    assert.ok(test.includes(`D = ${(b.statistic as number).toFixed(3)}`) && test.includes('Declared trace.sampling: 1.'), test);
    const u = j.user_observed;
    const rows = await cells(hp, '[data-testid="user-observed"] tbody tr');
    const row = (name: string, q: { n: number; p50: number | null; p95: number | null; p99: number | null }): string[] => [name, fmtInt(q.n), fmtMs(q.p50, false), fmtMs(q.p95, false), fmtMs(q.p99, false), u.definitions[name]];
    assert.deepStrictEqual(rows, [row('first_content_ms', u.first_content_ms), row('censored_total_ms', u.censored_total_ms), row('api_total_ms', u.api_total_ms)]);
    // The definitions are the catalog's (the core's table), not text of the webview.
    for (const k of ['first_content_ms', 'censored_total_ms', 'api_total_ms']) assert.strictEqual(u.definitions[k], USER_OBSERVED_DEFINITIONS[k]);
    const c = u.censored_total_ms;
    // Independent of the analysis: every timeout is censored; rejected, failed, transport failures and cancels are left out.
    assert.ok(c.censored >= records.filter((r) => r.outcome === 'timed_out').length);
    assert.strictEqual(c.excluded, records.filter((r) => ['rejected', 'failed', 'transport_failed', 'canceled'].includes(r.outcome)).length);
    assert.strictEqual(await hp.page.locator('[data-testid="user-observed-censored"]').textContent(), `Censored total: ${fmtInt(c.succeeded)} successes at their own total, ${fmtInt(c.censored)} counted at the timeout (${fmtMs(30_000)}), ${fmtInt(c.excluded)} other failures left out.`);
    const defs = await hp.page.locator('[data-testid="definitions"] dt, [data-testid="definitions"] dd').allTextContents();
    assert.deepStrictEqual(defs, Object.entries(j.definitions).flat());
  });

  it('shows the provenance: each input with its size and a SHA-256 equal to the file’s, the contract’s hash, the resources, sampling, version and options', async () => {
    const p = fixed.json.provenance;
    const rows = await cells(hp, '[data-testid="provenance-inputs"] tbody tr');
    assert.deepStrictEqual(rows.map((r) => r[4]), [path.join(dir, 'requests.ndjson'), path.join(dir, 'spans.otlp.jsonl')]);
    for (const r of rows) {
      assert.strictEqual(r[3], sha256(r[4]), r[4]);
      const bytes = fs.statSync(r[4]).size;
      assert.strictEqual(r[2], bytes >= 1_000_000 ? `${(bytes / 1_000_000).toFixed(2)} MB` : `${fmtInt(bytes)} B`);
    }
    const run2 = new Map((await cells(hp, '[data-testid="provenance-run"] tr')).map((r) => [r[0], r[1]]));
    assert.strictEqual(run2.get('phasewise'), p.phasewise_version);
    assert.strictEqual(run2.get('contract SHA-256'), sha256(CONTRACT));
    assert.strictEqual(run2.get('contract'), `${p.contract?.name}: ${CONTRACT} (${fmtInt(fs.statSync(CONTRACT).size)} bytes)`);
    assert.strictEqual(run2.get('sampling'), 'trace.sampling 1 (contract)');
    assert.strictEqual(run2.get('option windowSizeMs'), '30000');
    for (const [k, v] of Object.entries(p.options).filter(([k]) => k !== 'phases')) assert.strictEqual(run2.get(`option ${k}`), JSON.stringify(v), k);
    const res = await cells(hp, '[data-testid="provenance-resources"] tbody tr');
    assert.deepStrictEqual(res, p.resources.map((r) => [r.service_name, r.service_version, r.sdk_name, r.sdk_version, r.sdk_language, r.schema_url].map((v) => v ?? MISSING).concat(r.sources.join(', '))));
    // The generator's resource, from the span file's first line.
    assert.deepStrictEqual(res[0].slice(0, 3), ['llm-gateway', '0.4.2', 'opentelemetry']);
  });

  it('keeps every owner pair apart in dark, light and high contrast (CIEDE2000 ≥ 20 between their swatches), with no CSP violation', async () => {
    const owners = ['network_envelope', 'gateway', 'gpu_queue', 'generation', 'unattributed_server'];
    for (const theme of ['dark', 'light', 'high-contrast'] as const) {
      await hp.setTheme(theme);
      await hp.page.waitForTimeout(150);
      const colors = await hp.page.locator('[data-testid="tail-table"] .pw-swatch[data-owner]').evaluateAll((els) =>
        els.map((e) => [(e as unknown as { dataset: { owner: string } }).dataset.owner, (globalThis as unknown as { getComputedStyle(x: unknown): { backgroundColor: string } }).getComputedStyle(e).backgroundColor]),
      );
      const byOwner = new Map(colors.map(([o, c]) => [o, c]));
      assert.deepStrictEqual([...byOwner.keys()].sort(), [...owners].sort());
      for (let a = 0; a < owners.length; a++) {
        for (let b = a + 1; b < owners.length; b++) {
          const d = deltaE2000(byOwner.get(owners[a]) as string, byOwner.get(owners[b]) as string);
          assert.ok(d >= 20, `${theme}: ${owners[a]} ${byOwner.get(owners[a])} vs ${owners[b]} ${byOwner.get(owners[b])}: ΔE00 ${d.toFixed(1)}`);
        }
      }
      // What the fix avoids: the light theme's charts-yellow and charts-orange are almost one colour.
      if (theme === 'light') {
        const vars = await hp.page.evaluate(() => {
          const st = (globalThis as unknown as { getComputedStyle(x: unknown): { getPropertyValue(n: string): string }; document: { body: unknown } }).getComputedStyle((globalThis as unknown as { document: { body: unknown } }).document.body);
          return [st.getPropertyValue('--vscode-charts-yellow').trim(), st.getPropertyValue('--vscode-charts-orange').trim()];
        });
        assert.ok(deltaE2000(vars[0], vars[1]) < 10, `yellow ${vars[0]} vs orange ${vars[1]}`);
      }
      await hp.page.evaluate(() => (globalThis as unknown as { scrollTo(x: number, y: number): void }).scrollTo(0, 0));
      await hp.screenshot(`report-routes-top-${theme}`);
      for (const id of ['diagnoses', 'groups', 'series']) {
        await hp.page.locator(`#${id}`).scrollIntoViewIfNeeded();
        await hp.page.evaluate((sel) => (globalThis as unknown as { document: { querySelector(s: string): { scrollIntoView(): void } } }).document.querySelector(sel).scrollIntoView(), `#${id}`);
        await hp.screenshot(`report-routes-${id}-${theme}`);
      }
    }
    assert.deepStrictEqual(await hp.allProblems(), []);
  });

  it('the exported HTML file (analyze --format html) shows the same sections, offline and within its CSP', async () => {
    const b = await browser();
    const page = await b.newPage({ viewport: { width: 1300, height: 1000 } });
    const problems: string[] = [];
    page.on('pageerror', (e) => problems.push(e.message));
    page.on('request', (r) => {
      if (r.url() !== `file://${fixed.html}` && !r.url().startsWith('blob:')) problems.push(`request ${r.url()}`);
    });
    await page.addInitScript(() => {
      const g = globalThis as unknown as { document: { addEventListener(t: string, f: (e: { violatedDirective: string }) => void): void }; __csp: string[] };
      g.__csp = [];
      g.document.addEventListener('securitypolicyviolation', (e) => g.__csp.push(e.violatedDirective));
    });
    try {
      await page.goto(`file://${fixed.html}`);
      await page.waitForSelector('[data-series-drawn="true"] [data-testid="groups"]');
      const j = fixed.json;
      assert.strictEqual(await page.locator('[data-testid="groups"] tbody tr').count(), j.groups.length);
      assert.deepStrictEqual(await page.locator('[data-code]').evaluateAll((els) => els.map((e) => (e as unknown as { dataset: { code: string } }).dataset.code)), j.diagnoses.map((d) => d.code));
      assert.strictEqual(await page.locator('[data-testid="series-charts"] canvas').count() > 0, true);
      assert.deepStrictEqual((await page.locator('[data-testid="provenance-inputs"] tbody tr td:nth-child(4)').allTextContents()), j.provenance.inputs.map((i) => i.sha256));
      assert.deepStrictEqual(await page.evaluate(() => (globalThis as unknown as { __csp: string[] }).__csp), []);
      assert.deepStrictEqual(problems, []);
    } finally {
      await page.close();
    }
  });
});
