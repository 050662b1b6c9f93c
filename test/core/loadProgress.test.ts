import * as assert from 'assert';
import { aboutSeconds, describeLoad, isScanMessage, LoadProgress } from '../../src/core/loadProgress';
import { createProgress } from '../../src/cli/progress';

describe('load progress: bytes read, rate and time left', () => {
  it('adds finished files and the share of the current one, and divides by the time spent reading', () => {
    let t = 1_000_000;
    const p = new LoadProgress(() => t);
    p.setTotal(900e6);
    p.file('/data/k6.ndjson', 400e6);
    t += 2000;
    p.fraction(0.5);
    // 200 MB in 2 s: 100 MB/s, 700 MB left: 7 s.
    assert.deepStrictEqual(p.snapshot(), { file: 'k6.ndjson', read: 200e6, total: 900e6, rate: 100e6, etaSeconds: 7 });
    assert.strictEqual(p.describe(), 'k6.ndjson: 200 of 900 MB (22%), 100 MB/s, about 7 s left to read');
    // A second pass over the same file does not move the count back; the next file starts from the first's end.
    p.fraction(0.1);
    assert.strictEqual(p.snapshot().read, 200e6);
    t += 2000;
    p.file('/data/spans.otlp.jsonl', 500e6);
    p.fraction(0.2);
    assert.strictEqual(p.snapshot().read, 500e6);
    assert.strictEqual(p.snapshot().rate, 125e6);
    assert.strictEqual(p.describe(false), '500 of 900 MB (55%), 125 MB/s, about 3 s left to read');
  });

  it('says nothing it does not know: no rate before time has passed, no time left without a total', () => {
    const p = new LoadProgress(() => 0);
    p.file('a.jsonl', 10e6);
    assert.strictEqual(p.describe(), 'a.jsonl: 0.0 MB read');
    assert.strictEqual(describeLoad({ read: 5e6, rate: 1e6 }), '5.0 MB read, 1.0 MB/s');
    assert.strictEqual(aboutSeconds(0.4), 'under a second');
    assert.strictEqual(aboutSeconds(130), 'about 2 min 10 s');
    assert.ok(isScanMessage('reading spans.otlp.jsonl') && !isScanMessage('loading spans.otlp.jsonl (otlp-json)'));
  });

  it('prints the CLI lines with bytes, rate and time left, throttled, and the final throughput', () => {
    let t = 0;
    const lines: string[] = [];
    const progress = createProgress(true, (s) => lines.push(s.trimEnd()), () => t);
    progress.onFile('/d/k6.ndjson', 400e6, 'client', 1000e6);
    t = 1000;
    progress.sink('reading k6.ndjson', 0.25);
    t = 1200;
    progress.sink('reading k6.ndjson', 0.3); // within 500 ms of the last line: not printed
    t = 2000;
    progress.sink('reading k6.ndjson', 0.5);
    progress.sink('k6 JSON has findings to report by line; reading it again with line numbers');
    t = 5000;
    progress.done('loaded');
    assert.deepStrictEqual(lines, [
      'phasewise: [0.0s] loading client file k6.ndjson (400.0 MB)',
      'phasewise: [1.0s] reading k6.ndjson: 100 of 1000 MB (10%), 100 MB/s, about 9 s left to read',
      'phasewise: [2.0s] reading k6.ndjson: 200 of 1000 MB (20%), 100 MB/s, about 8 s left to read',
      'phasewise: [2.0s] k6 JSON has findings to report by line; reading it again with line numbers',
      'phasewise: [5.0s] loaded (400.0 MB, 80.0 MB/s)',
    ]);
  });
});
