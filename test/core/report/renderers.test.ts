import * as assert from 'assert';
import { renderReport } from '../../../src/core/report';
import { formatMs, formatShare } from '../../../src/core/report/format';
import { renderMarkdownReport } from '../../../src/core/report/markdown';
import { renderTextReport } from '../../../src/core/report/text';
import { handBuiltReport } from './handBuiltReport';

/** Lines of the output with leading/trailing blanks removed and runs of spaces collapsed. */
function normalized(text: string): string[] {
  return text.split('\n').map((l) => l.trim().replace(/ {2,}/g, ' '));
}

describe('report renderers', () => {
  describe('format', () => {
    it('prints ms with one decimal, shares as %, and absent figures as a dash (never 0)', () => {
      assert.strictEqual(formatMs(1842.37), '1842.4 ms');
      assert.strictEqual(formatMs(-0.04), '0.0 ms');
      assert.strictEqual(formatMs(null), '–');
      // 940 / 990 = 0.949494… → 94.9%
      assert.strictEqual(formatShare(940 / 990), '94.9%');
      assert.strictEqual(formatShare(null), '–');
    });
  });

  describe('text', () => {
    const text = renderTextReport(handBuiltReport());
    const rows = normalized(text);

    it('starts with the verdict and names the broken phase', () => {
      assert.strictEqual(text.split('\n')[0], 'Phasewise verdict: FAIL (gpu_queue budget broke) · phasewise 0.1.0');
      assert.ok(rows.includes('- budget.gpu_queue_ms.p95: observed 428.5 ms > limit 400 ms'));
      assert.ok(rows.includes('3 gates: 2 passed, 1 failed, 0 without data'));
    });

    it('gives join coverage both ways with counts', () => {
      assert.ok(
        rows.includes('client → server: 940 of 990 client requests matched a trace with exactly one root (94.9%)'),
        text,
      );
      // 940/980 = 95.918…%
      assert.ok(rows.some((l) => l.startsWith('of 980 with a valid trace ID: 95.9% · without a trace ID 5 · invalid trace IDs 5')));
      // 12 orphans of 940 + 12 rooted traces = 1.26…%
      assert.ok(rows.some((l) => l.includes('12 server roots carry a trace ID no client record has (1.3% of rooted traces)')));
    });

    it('prints the tail attribution table with mean and share per owner', () => {
      // 610 / 2050 = 29.756…% ; 1220 / 2050 = 59.512…%
      assert.ok(rows.includes('gpu_queue 610.0 29.8%'), text);
      assert.ok(rows.includes('generation 1220.0 59.5%'));
      assert.ok(rows.includes("largest owner: generation (59.5% of the tail's time)"));
    });

    it('prints every quantile with its n and the population', () => {
      assert.ok(rows.includes('population: matched successful requests (n per row; 940 requests matched in all)'));
      assert.ok(rows.includes('client_total_ms 930 1200.0 1842.4 2102.0 1250.5 2202.0'), text);
      assert.ok(rows.includes('population: all successful client requests (comparable with k6)'));
      assert.ok(rows.includes('client_total_ms 950 1190.0 1850.0 2110.0 1245.0 2210.0'));
      assert.ok(rows.includes('server_root_ms 952 1049.0 1690.0 1899.0 1099.0 1999.0'));
    });

    it('shows negative envelopes with count, share and the most negative value', () => {
      // 3 / 930 = 0.3226%
      assert.ok(rows.includes('network_envelope_ms < 0 in 3 of 930 matched requests (0.3%); most negative -2.1 ms'), text);
    });

    it('prints the ledger equations and whether they reconcile', () => {
      assert.ok(rows.includes('scheduled 1,000 = started 990 + generator_dropped 10'));
      assert.ok(rows.includes('started 990 = succeeded 950 + rejected 20 + timed_out 5 + transport_failed 5 + canceled 0 + failed 10'));
      assert.ok(rows.includes('error rate 4.0%'));
      assert.ok(rows.includes('the ledger reconciles'));
    });

    it('names the worst window and marks it in the table', () => {
      assert.ok(rows.includes('worst window #1 (30.0s–60.0s): client_total_ms p95 1990.3 ms (n=460), 25 errors of 495 started'), text);
      assert.ok(rows.includes('*1 30.0s–60.0s 495 470 25 1990.3 (n=460) 152.0 (n=460) yes'));
    });

    it('lists gates with observed, limit, n and status', () => {
      assert.ok(
        rows.includes(
          'FAIL budget.gpu_queue_ms.p95 gpu_queue_ms.p95 428.5 ms <= 400.0 ms 930 steady 30000–60000 ms, matched successes',
        ),
        text,
      );
      assert.ok(rows.includes('PASS gates.error_rate error_rate.value 4.0% <= 5.0% 990 whole run'));
      assert.ok(rows.some((l) => l.startsWith('PASS slo.total_ms.p95 (steady.loadcontract.yaml:12)')));
    });

    it('lists slow traces with their phases, k6 beside ours, skipped lines and warnings', () => {
      assert.ok(rows.includes('0000000000000007000000000000012f succeeded 1842.4 1691.3 151.1 37.2 428.1 1209.9 16.1'), text);
      assert.ok(rows.includes('http_req_duration p(95) 1850.3 1850.0 client_total_ms (n=950)'));
      assert.ok(rows.includes('- iterations: count=990, rate=16.50'));
      assert.ok(rows.includes('client k6-json 12.0 MB 990 2 /runs/k6.ndjson'));
      assert.ok(rows.includes('- /runs/k6.ndjson:17: warning malformed-json: line is not JSON'));
      assert.ok(rows.includes('- 12 server roots have no client record'));
    });
  });

  describe('markdown', () => {
    const md = renderMarkdownReport(handBuiltReport());
    const mdLines = md.split('\n');

    it('renders the same content as GitHub tables', () => {
      assert.strictEqual(mdLines[0], '# Phasewise verdict: FAIL (gpu_queue budget broke) · phasewise 0.1.0');
      assert.ok(mdLines.includes('## Who owns the p95'));
      assert.ok(mdLines.includes('| owner | mean ms | share |'));
      assert.ok(mdLines.includes('|:---|---:|---:|'));
      assert.ok(mdLines.includes('| gpu_queue | 610.0 | 29.8% |'), md);
      assert.ok(mdLines.includes('| client_total_ms | 930 | 1200.0 | 1842.4 | 2102.0 | 1250.5 | 2202.0 |'));
      // `<=` is escaped so it cannot open an HTML tag in a PR comment.
      assert.ok(mdLines.includes('| FAIL | budget.gpu_queue_ms.p95 | gpu_queue_ms.p95 | 428.5 ms | \\<= 400.0 ms | 930 | steady 30000–60000 ms, matched successes |'), md);
    });
  });

  describe('json', () => {
    it('is the Report model itself', () => {
      const report = handBuiltReport();
      assert.deepStrictEqual(JSON.parse(renderReport(report, 'json')), report);
    });
  });
});
