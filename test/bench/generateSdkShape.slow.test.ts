import * as assert from 'assert';
import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import { parseArgs } from '../../bench/generate/options';
import { generateRun } from '../../bench/generate/run';

/** The real OpenTelemetry JS SDK export the SDK shape is checked against (a copy of the shared sample). */
const SAMPLE = path.join(__dirname, '..', '..', '..', 'test', 'fixtures', 'shared-samples', 'joined-otel-js', 'spans.otlp.jsonl');

const ARGS = ['--rate', '20', '--duration', '20', '--ramp', '2', '--slots', '56', '--error-fraction', '0.05', '--lost-root-fraction', '0.03', '--seed', '7'];

type Json = Record<string, unknown>;

/**
 * What a file's JSON looks like, as sets of signatures: the ordered keys of every object kind
 * (document, resourceSpans element, resource, scopeSpans element, scope, span, event, status, KeyValue,
 * AnyValue) and the JSON type of every AnyValue kind, of `kind`, `flags` and the dropped counters.
 */
function shapeOf(file: string): Map<string, Set<string>> {
  const out = new Map<string, Set<string>>();
  const add = (what: string, sig: string): void => {
    const set = out.get(what) ?? new Set<string>();
    set.add(sig);
    out.set(what, set);
  };
  const keys = (o: Json): string => Object.keys(o).join(',');
  const kv = (list: Json[]): void => {
    for (const a of list) {
      add('keyvalue', keys(a));
      const v = a.value as Json;
      add('anyvalue', keys(v));
      for (const [k, x] of Object.entries(v)) add(`anyvalue.${k}`, typeof x);
    }
  };
  for (const line of fs.readFileSync(file, 'utf8').split('\n').filter((l) => l.length > 0)) {
    const doc = JSON.parse(line) as Json;
    add('document', keys(doc));
    for (const rs of doc.resourceSpans as Json[]) {
      add('resourceSpans[]', keys(rs));
      add('resource', keys(rs.resource as Json));
      kv((rs.resource as Json).attributes as Json[]);
      for (const ss of rs.scopeSpans as Json[]) {
        add('scopeSpans[]', keys(ss));
        add('scope', keys(ss.scope as Json));
        for (const s of ss.spans as Json[]) {
          add('span', keys(s));
          add('span.kind', typeof s.kind);
          add('span.flags', typeof s.flags);
          for (const k of ['droppedAttributesCount', 'droppedEventsCount', 'droppedLinksCount']) add(`span.${k}`, JSON.stringify(s[k]));
          add('span.links', JSON.stringify(s.links));
          add('status', keys(s.status as Json));
          add('status.code', typeof (s.status as Json).code);
          kv(s.attributes as Json[]);
          for (const e of s.events as Json[]) {
            add('event', keys(e));
            kv(e.attributes as Json[]);
          }
        }
      }
    }
  }
  return out;
}

interface FlatSpan {
  traceId: string;
  spanId: string;
  parentSpanId: string;
  name: string;
  kind: number;
  start: bigint;
  end: bigint;
  attributes: Array<{ key: string; value: Json }>;
  events: Array<{ name: string; timeUnixNano: string }>;
  status: Json;
}

function spansOf(file: string): FlatSpan[] {
  const out: FlatSpan[] = [];
  for (const line of fs.readFileSync(file, 'utf8').split('\n').filter((l) => l.length > 0)) {
    for (const rs of (JSON.parse(line) as { resourceSpans: Array<{ scopeSpans: Array<{ spans: Json[] }> }> }).resourceSpans) {
      for (const ss of rs.scopeSpans) {
        for (const s of ss.spans) {
          out.push({ ...(s as unknown as FlatSpan), start: BigInt(s.startTimeUnixNano as string), end: BigInt(s.endTimeUnixNano as string), events: (s.events as FlatSpan['events']) ?? [] });
        }
      }
    }
  }
  return out;
}

describe('bench/generate: the OpenTelemetry JS SDK shape', () => {
  const dirs: string[] = [];
  let sdkDir: string;
  let collectorDir: string;

  before(async () => {
    sdkDir = fs.mkdtempSync(path.join(os.tmpdir(), 'pw-sdk-'));
    collectorDir = fs.mkdtempSync(path.join(os.tmpdir(), 'pw-col-'));
    dirs.push(sdkDir, collectorDir);
    await generateRun(parseArgs([...ARGS, '--otlp-shape', 'sdk', '--out', sdkDir]));
    // The same simulated run in the Collector shape, with the SDK's integer and time conventions.
    await generateRun(parseArgs([...ARGS, '--int-values', 'number', '--ms-start-granularity', '--out', collectorDir]));
  });

  after(() => {
    for (const d of dirs) fs.rmSync(d, { recursive: true, force: true });
  });

  it('writes every object with the keys, key order and value types of the real SDK export', () => {
    const real = shapeOf(SAMPLE);
    const ours = shapeOf(path.join(sdkDir, 'spans.otlp.jsonl'));
    assert.deepStrictEqual([...ours.keys()].sort(), [...real.keys()].sort());
    for (const [what, sigs] of real) {
      // The sample's exception event and the error status without message are also generated.
      assert.deepStrictEqual([...(ours.get(what) ?? [])].sort(), [...sigs].sort(), what);
    }
    // Spot checks of what the signatures encode, against the sample itself.
    assert.deepStrictEqual([...real.get('span') ?? []], [
      'traceId,spanId,parentSpanId,name,kind,startTimeUnixNano,endTimeUnixNano,attributes,droppedAttributesCount,events,droppedEventsCount,status,links,droppedLinksCount,flags',
    ]);
    assert.deepStrictEqual([...real.get('anyvalue.intValue') ?? []], ['number']);
    assert.deepStrictEqual([...real.get('span.kind') ?? []], ['number']);
  });

  it('keeps empties as the SDK does: events [] on spans without events, status {code: 0} when unset, no schemaUrl', () => {
    const text = fs.readFileSync(path.join(sdkDir, 'spans.otlp.jsonl'), 'utf8');
    const spans = spansOf(path.join(sdkDir, 'spans.otlp.jsonl'));
    assert.ok(spans.filter((s) => s.events.length === 0).length > spans.length * 0.9);
    assert.ok(spans.some((s) => s.events.some((e) => e.name === 'first_token')));
    assert.ok(spans.some((s) => s.events.some((e) => e.name === 'exception')));
    assert.strictEqual(spans.filter((s) => JSON.stringify(s.status) === '{"code":0}').length, spans.filter((s) => s.status.code === 0).length);
    assert.ok(spans.some((s) => JSON.stringify(s.status) === '{"code":2,"message":"model backend error"}'));
    assert.ok(spans.some((s) => JSON.stringify(s.status) === '{"code":2}'));
    assert.ok(!text.includes('schemaUrl'));
    assert.ok(!text.includes('"intValue":"'));
  });

  it('stamps starts on a millisecond clock, like the sample, with exact durations', () => {
    const real = spansOf(SAMPLE);
    const ours = spansOf(path.join(sdkDir, 'spans.otlp.jsonl'));
    for (const list of [real, ours]) {
      assert.ok(list.every((s) => s.start % 1000000n === 0n));
      // Ends are not floored: durations keep their nanoseconds.
      assert.ok(list.filter((s) => s.end % 1000000n !== 0n).length > list.length * 0.9);
    }
  });

  it('changes only the layout: the same spans, times and attributes as the Collector shape of the same run', () => {
    const sdk = spansOf(path.join(sdkDir, 'spans.otlp.jsonl'));
    const col = new Map(spansOf(path.join(collectorDir, 'spans.otlp.jsonl')).map((s) => [s.spanId, s]));
    assert.strictEqual(sdk.length, col.size);
    const sdkOnly = new Set(['client.address', 'client.port', 'user_agent.original', 'http.request.header.x-request-id']);
    for (const s of sdk) {
      const c = col.get(s.spanId) as FlatSpan;
      assert.deepStrictEqual([s.traceId, s.parentSpanId, s.name, s.kind, s.start, s.end], [c.traceId, c.parentSpanId, c.name, c.kind, c.start, c.end]);
      assert.deepStrictEqual(s.attributes.filter((a) => !sdkOnly.has(a.key)), c.attributes);
      assert.deepStrictEqual(s.events.map((e) => [e.name, e.timeUnixNano]), c.events.map((e) => [e.name, e.timeUnixNano]));
      if (s.kind === 2) {
        // The request ID header carries the root's request ID.
        const header = s.attributes.find((a) => a.key === 'http.request.header.x-request-id')?.value as { arrayValue: { values: Array<{ stringValue: string }> } };
        const id = s.attributes.find((a) => a.key === 'llm.request_id')?.value.stringValue;
        assert.deepStrictEqual(header.arrayValue.values, [{ stringValue: id }]);
      }
    }
    // And the client side is byte-identical.
    assert.ok(fs.readFileSync(path.join(sdkDir, 'k6.ndjson')).equals(fs.readFileSync(path.join(collectorDir, 'k6.ndjson'))));
  });

  it('batches like the bench-100k-sdk preset at its rate: request bodies of 40–170 spans, 35–155 KB lines', async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'pw-sdkb-'));
    dirs.push(dir);
    const preset = parseArgs(['--preset', 'bench-100k-sdk', '--requests', '10000', '--ramp', '0', '--out', dir]);
    assert.deepStrictEqual([preset.otlpShape, preset.intValues, preset.msStartGranularity], ['sdk', 'number', true]);
    await generateRun(preset);
    const lines = fs.readFileSync(path.join(dir, 'spans.otlp.jsonl'), 'utf8').split('\n').filter((l) => l.length > 0);
    const spans = lines.map((l) => (JSON.parse(l) as { resourceSpans: Array<{ scopeSpans: Array<{ spans: unknown[] }> }> }).resourceSpans[0].scopeSpans[0].spans.length);
    const median = (xs: number[]): number => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
    assert.ok(Math.max(...spans) === 170, `largest body ${Math.max(...spans)} spans`);
    assert.ok(median(spans) >= 40 && median(spans) <= 170, `median ${median(spans)} spans`);
    const kb = median(lines.map((l) => Buffer.byteLength(l) / 1000));
    assert.ok(kb >= 35 && kb <= 155, `median line ${kb} KB`);
  });
});
