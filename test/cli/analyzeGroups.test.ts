import * as assert from 'assert';
import { createHash } from 'crypto';
import { readFileSync } from 'fs';
import * as path from 'path';
import type { Report } from '../../src/core/report/model';
import { repoRoot } from '../helpers/paths';
import { runCli } from './runCli';

const samples = path.join(repoRoot, 'samples');
const RUN = ['--run', path.join(samples, 'k6.ndjson'), '--spans', path.join(samples, 'spans.otlp.jsonl')];
const CONTRACT = path.join(samples, 'steady.loadcontract.yaml');

describe('phasewise analyze: --group-by, --min-group-size, --window-slide and the issue-17 JSON', function () {
  this.timeout(120_000);
  let report: Report;
  before(async () => {
    const r = await runCli(['analyze', ...RUN, '--contract', CONTRACT, '--group-by', 'model', '--min-group-size', '300', '--window', '20s', '--window-slide', '10s', '--format', 'json']);
    assert.ok(r.status === 0 || r.status === 1, r.stderr);
    report = JSON.parse(r.stdout) as Report;
  });

  it('puts groups and diagnoses at the top level: each group with its dimensions, each diagnosis as {code, title, evidence, first_check}', () => {
    assert.ok(Array.isArray(report.groups) && Array.isArray(report.diagnoses));
    assert.deepStrictEqual(report.grouping.by, ['model']);
    assert.strictEqual(report.grouping.source, 'option');
    assert.strictEqual(report.grouping.min_group_size, 300);
    // The sample's two models (the k6 tag model_class), the groups adding up to the run.
    assert.deepStrictEqual(report.groups.map((g) => Object.keys(g.dimensions)), report.groups.map(() => ['model']));
    assert.strictEqual(report.groups.reduce((a, g) => a + g.outcomes.started, 0), report.outcomes.started);
    for (const g of report.groups) assert.strictEqual(g.too_small, g.successes < 300, g.key);
    for (const d of report.diagnoses) assert.deepStrictEqual(Object.keys(d).sort(), ['code', 'evidence', 'first_check', 'title']);
  });

  it('slides 20 s windows by 10 s, and takes the timeout, the sampling and the contract identity from the contract', () => {
    const s = report.window_series;
    assert.deepStrictEqual([s.kind, s.size_ms, s.slide_ms], ['sliding', 20_000, 10_000]);
    assert.ok(s.windows.every((w, i) => i === 0 || w.start_offset_ms - s.windows[i - 1].start_offset_ms === 10_000));
    assert.strictEqual(report.user_observed.timeout_ms, 30_000); // steady.loadcontract.yaml: timeout 30s
    assert.strictEqual(report.join_bias.declared_sampling, 1);
    const bytes = readFileSync(CONTRACT);
    assert.deepStrictEqual(report.provenance.contract, { path: CONTRACT, name: 'chat-completions steady SLO check', sha256: createHash('sha256').update(bytes).digest('hex'), bytes: bytes.length });
  });

  it('rejects an unknown dimension with a suggestion (exit 4), and a slide not shorter than the window', async () => {
    const typo = await runCli(['analyze', ...RUN, '--group-by', 'modle']);
    assert.strictEqual(typo.status, 4);
    assert.match(typo.stderr, /--group-by: unknown dimension 'modle' \(did you mean model\?\)/);
    const slide = await runCli(['analyze', ...RUN, '--window', '10s', '--window-slide', '10s']);
    assert.strictEqual(slide.status, 4);
    assert.match(slide.stderr, /--window-slide \(10000 ms\) must be shorter than the window \(10000 ms\)/);
  });

  it('refuses a window step that would expand the series beyond 100M rows (exit 4), naming the flags', async () => {
    const r = await runCli(['analyze', ...RUN, '--window', '1h', '--window-slide', '1ms']);
    assert.strictEqual(r.status, 4, r.stderr);
    assert.match(r.stderr, /the window series \(--window and --window-slide, or the contract's windows.size and windows.slide\)/);
    const found = /found ([\d,]+) rows for 3600000 ms windows every 1 ms/.exec(r.stderr);
    assert.ok(found, r.stderr);
    // Independently: 3 send/end/schedule rows per window holding an instant (3.6M of them) per request,
    // plus each request's flight over (duration + 1 h) / 1 ms windows: between these bounds.
    const durations = readFileSync(RUN[1], 'utf8').split('\n').filter((l) => l.includes('"http_req_duration"') && l.includes('"Point"'))
      .map((l) => (JSON.parse(l) as { data: { value: number } }).data.value);
    const rows = Number(found[1].replace(/,/g, ''));
    const low = 3 * 3_600_000 * durations.length;
    const high = low + durations.reduce((a, d) => a + Math.ceil(d + 3_600_000) + 1, 0);
    assert.ok(rows >= low && rows <= high, `${rows} not in [${low}, ${high}]`);
    assert.strictEqual((await runCli(['analyze', ...RUN, '--window', '30s', '--window-slide', '10s', '--format', 'json'])).status === 4, false);
  });
});
