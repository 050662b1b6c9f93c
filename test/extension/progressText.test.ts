// The load progress line of the editor's notification, fed the worker's progress messages with a fake clock.
import * as assert from 'assert';
import { LoadProgressText } from '../../src/extension/runs/progressText';

const msg = (m: Partial<{ message: string; fraction: number | null; file: string | null; bytes: number | null; total_bytes: number | null }>): { message: string; fraction: number | null; file: string | null; bytes: number | null; total_bytes: number | null } => ({
  message: '',
  fraction: null,
  file: null,
  bytes: null,
  total_bytes: null,
  ...m,
});

describe('load progress text', () => {
  it('names the file, counts the bytes read of the whole load, the rate and the time left, and never goes back', () => {
    let now = 1_000;
    const p = new LoadProgressText(() => now);
    p.update(msg({ message: 'loading k6.ndjson', file: '/runs/k6.ndjson', bytes: 40e6, total_bytes: 100e6 }));
    assert.strictEqual(p.percent, 0);
    now += 2_000;
    p.update(msg({ message: 'reading k6.ndjson', fraction: 0.5, total_bytes: 100e6 }));
    // 20 MB of 100 MB in 2 s.
    assert.strictEqual(p.read, 20e6);
    assert.strictEqual(p.percent, 20);
    // 80 MB left at 10 MB/s.
    assert.strictEqual(p.describe(), 'k6.ndjson: 20.0 of 100 MB (20%), 10.0 MB/s, about 8 s left to read');
    // A second pass over the file reports a smaller share: the bar does not move back.
    p.update(msg({ message: 'reading k6.ndjson with line numbers', fraction: 0.1 }));
    assert.strictEqual(p.read, 20e6);
    now += 2_000;
    p.update(msg({ message: 'loading spans.otlp.jsonl', file: '/runs/spans.otlp.jsonl', bytes: 60e6, total_bytes: 100e6 }));
    assert.strictEqual(p.read, 40e6);
    assert.strictEqual(p.describe(), 'spans.otlp.jsonl: 40.0 of 100 MB (40%), 10.0 MB/s, about 6 s left to read');
    // A phase other than the scan is named after the figures; a non-scan fraction does not move the bytes.
    p.update(msg({ message: 'checking and writing the spans', fraction: 0.9 }));
    assert.strictEqual(p.read, 40e6);
    assert.strictEqual(p.describe(), 'spans.otlp.jsonl: 40.0 of 100 MB (40%), 10.0 MB/s, about 6 s left to read · checking and writing the spans');
  });

  it('before any file: the phase message alone', () => {
    const p = new LoadProgressText(() => 0);
    p.update(msg({ message: 'analysing' }));
    assert.strictEqual(p.describe(), 'analysing');
    assert.strictEqual(p.percent, undefined);
  });
});
