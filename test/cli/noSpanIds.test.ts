import * as assert from 'assert';
import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import { sharedSamplesDir } from '../helpers/paths';
import { runCli } from './runCli';

/** Real span files with every ID emptied: nothing of them can be loaded, which is bad input (exit 4). */
describe('a span file in which every span lacks an ID (built CLI)', function () {
  this.timeout(120_000);
  let dir: string;
  before(() => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'pw-noid-'));
  });
  after(() => fs.rmSync(dir, { recursive: true, force: true }));

  const cases: { name: string; source: string; blank: (text: string) => string; count: (text: string) => number; missing: RegExp }[] = [
    {
      name: 'Zipkin (zipkin-lens messaging-kafka), empty traceId',
      source: path.join(sharedSamplesDir, 'zipkin-json', 'zipkin_zipkin-lens_testdata_messaging-kafka.json'),
      blank: (t) => t.replace(/"traceId":\s*"[0-9a-f]*"/g, '"traceId": ""'),
      count: (t) => (JSON.parse(t) as unknown[]).length,
      missing: /without a trace ID/,
    },
    {
      name: 'OTLP (Jaeger UI api_v3 trace), empty spanId',
      source: path.join(sharedSamplesDir, 'otlp-json', 'jaeger-ui_api_v3_v3-trace-local-2.21.0.json'),
      blank: (t) => t.replace(/"spanId":\s*"[^"]*"/g, '"spanId": ""'),
      count: (t) => {
        const doc = JSON.parse(t) as { result: { resourceSpans: { scopeSpans: { spans: unknown[] }[] }[] } };
        return doc.result.resourceSpans.flatMap((r) => r.scopeSpans.flatMap((s) => s.spans)).length;
      },
      missing: /without a span ID/,
    },
  ];
  for (const c of cases) {
    it(`${c.name}: exit 4 naming the file and what was missing`, async () => {
      const text = c.blank(fs.readFileSync(c.source, 'utf8'));
      const file = path.join(dir, path.basename(c.source));
      fs.writeFileSync(file, text);
      const res = await runCli(['analyze', '--spans', file, '-q']);
      assert.strictEqual(res.status, 4, res.stdout + res.stderr);
      assert.ok(res.stderr.includes(file), res.stderr);
      assert.match(res.stderr, new RegExp(`none among its ${c.count(text)} span\\(s\\)`));
      assert.match(res.stderr, c.missing);
      assert.doesNotMatch(res.stdout, /client-only/);
    });
  }
});
