import * as assert from 'assert';
import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import { sniffFile } from '../../../src/core/formats/sniff';
import { fixture } from '../../helpers/paths';

/** Real files that look like a span format but are not one: the error says what was seen and what is accepted. */
describe('near misses of the span formats (nearMiss.ts)', () => {
  let dir: string;
  before(() => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'pw-near-'));
  });
  after(() => fs.rmSync(dir, { recursive: true, force: true }));

  async function errorOf(file: string): Promise<string> {
    try {
      await sniffFile(file);
    } catch (err) {
      return (err as Error).message;
    }
    return 'no error';
  }

  it("one span of Zipkin Lens's Kafka trace, not in a list", async () => {
    const spans = JSON.parse(fs.readFileSync(fixture('shared-samples', 'zipkin-json', 'zipkin_zipkin-lens_testdata_messaging-kafka.json'), 'utf8')) as unknown[];
    const file = path.join(dir, 'one-span.json');
    fs.writeFileSync(file, JSON.stringify(spans[5], null, 2));
    const msg = await errorOf(file);
    assert.ok(msg.startsWith(`${file}:1: expected Zipkin v2 JSON: a list of spans ([{traceId, id, …}, …]), found a single Zipkin span object (not in a list)`), msg);
    assert.doesNotMatch(msg, /k6 CSV/);
  });

  it("Jaeger UI's dependency graph sample", async () => {
    const file = fixture('trace', 'jaeger-ui-dependencies-small.json');
    const msg = await errorOf(file);
    assert.ok(msg.startsWith(`${file}:1: expected span files: OTLP JSON, Jaeger JSON`), msg);
    assert.match(msg, /found a service dependency graph \(Jaeger or Zipkin dependencies: parent, child, callCount\), which holds no spans/);
    assert.doesNotMatch(msg, /k6 CSV/);
  });

  it("one span of Jaeger UI's flamegraph trace, without its trace", async () => {
    // The UI's redux wrapper: {"data": {traceID, spans, processes}}.
    const doc = JSON.parse(fs.readFileSync(fixture('shared-samples', 'jaeger-json', 'jaeger-ui_TraceFlamegraph_testTrace.json'), 'utf8')) as { data: { spans: unknown[] } };
    const span = doc.data.spans[0];
    const file = path.join(dir, 'jaeger-span.json');
    fs.writeFileSync(file, JSON.stringify(span));
    const msg = await errorOf(file);
    assert.match(msg, /expected Jaeger JSON: a trace \{traceID, spans, processes\}.*, found a single Jaeger span object without its trace/);
  });

  it('a file that is none of these still lists every accepted format', async () => {
    const file = path.join(dir, 'other.json');
    fs.writeFileSync(file, '{"hello": "world"}\n');
    assert.match(await errorOf(file), /expected k6 JSON output .*, found '\{"hello": "world"\}'/);
  });
});
