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
    const r = JSON.parse(res.stdout) as { outcomes: { started: number } };
    assert.strictEqual(r.outcomes.started, 22);
  });
});
