import * as assert from 'assert';
import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import { fixture } from '../helpers/paths';
import { runCli } from './runCli';

/**
 * A folder mixing the vLLM bench serve fixture (start_times are perf_counter seconds, no epoch) with
 * AIPerf's (epoch ns) and guidellm's (epoch s): the requests' send times spread over months. compare must refuse the side as
 * bad input (exit 4, naming it and its files), not fail inside the bootstrap (it threw "Invalid typed
 * array length", exit 5); analyze of the same files must finish (its window series is bounded).
 */
describe('compare and analyze of a folder whose files use different clocks (built CLI)', function () {
  this.timeout(120_000);
  const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'phasewise-mixed-clocks-'));
  const folder = path.join(tmp, 'mixed');
  const AIPERF = fixture('tools', 'aiperf-profile_export.from-docs.jsonl');
  const VLLM = fixture('tools', 'vllm-bench-serve.save-detailed.from-code.json');
  const GUIDELLM = fixture('tools', 'guidellm-report.from-schema.json');
  before(() => {
    fs.mkdirSync(folder);
    fs.copyFileSync(AIPERF, path.join(folder, 'aiperf.jsonl'));
    fs.copyFileSync(VLLM, path.join(folder, 'vllm.json'));
    fs.copyFileSync(GUIDELLM, path.join(folder, 'guidellm.json'));
  });
  after(() => fs.rmSync(tmp, { recursive: true, force: true }));

  it('compare refuses the mixed side with exit 4, naming the side, its files and what was expected', async () => {
    const res = await runCli(['compare', '--base', AIPERF, '--head', folder, '--resamples', '100'], undefined, { debug: false });
    assert.strictEqual(res.status, 4, res.stderr);
    assert.ok(res.stderr.startsWith(`phasewise: ${folder}: expected HEAD's requests sent within 24 h of each other`), res.stderr);
    assert.match(res.stderr, /found send times spread over [\d.]+ (days|years)/);
    for (const f of ['aiperf.jsonl', 'guidellm.json', 'vllm.json']) assert.ok(res.stderr.includes(path.join(folder, f)), res.stderr);
    assert.doesNotMatch(res.stderr, /Invalid typed array length|internal error/i);
    // Each tool's file alone is one clock: compared with itself, it passes.
    const alone = await runCli(['compare', '--base', VLLM, '--head', VLLM, '--resamples', '100']);
    assert.strictEqual(alone.status, 0, alone.stderr);
  });

  it('analyze of the same files finishes with a report (not an internal error)', async () => {
    const res = await runCli(['analyze', '--run', path.join(folder, 'aiperf.jsonl'), path.join(folder, 'vllm.json'), path.join(folder, 'guidellm.json'), '--format', 'json'], undefined, { debug: false });
    assert.ok(res.status !== null && res.status <= 3, `${res.status} ${res.stderr}`);
    // 9 AIPerf records, 7 vLLM requests, 6 guidellm ones (test/fixtures/tools/README.md), every one counted.
    const r = JSON.parse(res.stdout) as { outcomes: { started: number }; load_issues: { by_code: Record<string, number>; examples: Array<{ path: string; code: string; message: string }> } };
    assert.strictEqual(r.outcomes.started, 22);
    // The files' clocks disagree: a warning on the file whose sends lie apart from the others', with
    // the gap worked out here from the raw timestamps (guidellm: info.timings.request_start, epoch s; AIPerf: epoch ns; a day is 86,400 s, so the reader's choice among guidellm's per-request times does not move the figure).
    assert.strictEqual(r.load_issues.by_code['distant-timestamps'], 1);
    const warning = r.load_issues.examples.find((e) => e.code === 'distant-timestamps');
    assert.ok(warning !== undefined && warning.path === path.join(folder, 'guidellm.json'), JSON.stringify(r.load_issues));
    const aiperfStartsMs = fs.readFileSync(AIPERF, 'utf8').split('\n').filter((l) => l.trim() !== '').map((l) => Number((JSON.parse(l) as { metadata: { request_start_ns: number } }).metadata.request_start_ns) / 1e6);
    const guidellmStartsMs: number[] = [];
    JSON.stringify(JSON.parse(fs.readFileSync(GUIDELLM, 'utf8')), (k, v: unknown) => {
      if (k === 'request_start' && typeof v === 'number') guidellmStartsMs.push(v * 1000);
      return v;
    });
    assert.strictEqual(guidellmStartsMs.length, 6);
    const gapDays = (Math.min(...aiperfStartsMs) - Math.max(...guidellmStartsMs)) / 86_400_000;
    const m = /this file's 6 request\(s\) were sent ([\d.]+) days before the 9 of the other client file\(s\)/.exec(warning.message);
    assert.ok(m !== null, warning.message);
    assert.strictEqual(m[1], gapDays.toFixed(1));
    // Each tool's file alone is one clock: no such warning.
    for (const f of [AIPERF, VLLM, GUIDELLM]) {
      const alone = await runCli(['analyze', '--run', f, '--format', 'json'], undefined, { debug: false });
      const a = JSON.parse(alone.stdout) as { load_issues: { by_code: Record<string, number> } };
      assert.strictEqual(a.load_issues.by_code['distant-timestamps'], undefined, f);
    }
  });
});
