/**
 * One large trace for the waterfall tests and bench: an OTLP JSON document (the Collector's shape,
 * what the readers load) with a root SERVER span, the default-phase children and a deep tree of
 * tool/db/cache calls below generation, with overlapping siblings (parallel calls), errors, events,
 * GenAI attributes and a prompt attribute (masked in the view). The matching k6 request is written too,
 * so the trace is matched. Deterministic for a seed.
 */
import { writeFileSync } from 'fs';
import { Prng } from '../../src/core/prng';

export interface BigTrace {
  traceId: string;
  spanCount: number;
  /** The root's duration in ms (exact: integer µs). */
  rootMs: number;
}

interface GenSpan {
  id: string;
  parent: string | null;
  name: string;
  kind: number;
  startUs: number;
  endUs: number;
  attrs: [string, string | number][];
  events: [string, number][];
  error: boolean;
}

const hex = (rng: Prng, digits: number): string => {
  let s = '';
  while (s.length < digits) s += rng.nextU32().toString(16).padStart(8, '0');
  return s.slice(0, digits);
};

/** Writes `<dir>/big.otlp.json` and `<dir>/big.k6.ndjson` with one trace of `spans` spans. */
export function writeBigTrace(dir: string, spans: number, seed = 20261201): BigTrace & { otlp: string; k6: string } {
  const rng = new Prng(seed);
  const rand = (): number => rng.nextU32() / 4294967296;
  const traceId = hex(rng, 32);
  const list: GenSpan[] = [];
  const baseUs = 1_795_000_000_000_000;
  const rootUs = 12_000_000;
  const root: GenSpan = { id: hex(rng, 16), parent: 'ffffffffffffffff', name: 'POST /v1/chat/completions', kind: 2, startUs: 0, endUs: rootUs, attrs: [['http.route', '/v1/chat/completions']], events: [], error: false };
  list.push(root);
  const child = (parent: GenSpan, name: string, from: number, to: number, attrs: [string, string | number][] = []): GenSpan => {
    const s: GenSpan = { id: hex(rng, 16), parent: parent.id, name, kind: 1, startUs: Math.round(from), endUs: Math.round(to), attrs, events: [], error: false };
    list.push(s);
    return s;
  };
  child(root, 'auth.check', 1_000, 4_000);
  child(root, 'request.prepare', 4_000, 9_000);
  child(root, 'route.select', 9_000, 10_000);
  child(root, 'inference.acquire_slot', 10_000, 410_000, [['llm.phase', 'queue']]);
  const gen = child(root, 'inference.generate', 410_000, 11_900_000, [
    ['llm.phase', 'generation'],
    ['gen_ai.operation.name', 'chat'],
    ['gen_ai.request.model', 'llama-3.1-70b'],
    ['gen_ai.usage.input_tokens', 812],
    ['gen_ai.usage.output_tokens', 2048],
    ['gen_ai.prompt', 'You are a helpful assistant. Summarise the attached incident report in three bullet points.'],
  ]);
  gen.events.push(['first_token', 650_000]);
  child(root, 'response.write', 11_900_000, 11_990_000);
  // Below generation: a breadth-first tree of calls, up to 4 children each, parallel siblings overlapping.
  const names = ['tool.call', 'db.query', 'cache.get', 'kv.lookup', 'http.get', 'rerank', 'embed'];
  const queue: GenSpan[] = [gen];
  while (list.length < spans && queue.length > 0) {
    const p = queue.shift() as GenSpan;
    const k = 1 + Math.floor(rand() * 4);
    const len = p.endUs - p.startUs;
    for (let c = 0; c < k && list.length < spans; c++) {
      const a = p.startUs + rand() * len * 0.7;
      const b = Math.min(p.endUs, a + (0.05 + rand() * 0.5) * len);
      if (b - a < 2) continue;
      const name = names[Math.floor(rand() * names.length)];
      const s = child(p, name, a, b, [['peer.service', `svc-${Math.floor(rand() * 9)}`], ['call.index', c]]);
      if (rand() < 0.01) {
        s.error = true;
        s.events.push(['exception', Math.round(s.startUs + (s.endUs - s.startUs) / 2)]);
      }
      queue.push(s);
    }
  }
  const ns = (us: number): string => `${(BigInt(baseUs + us) * 1000n).toString()}`;
  const attr = ([k, v]: [string, string | number]): object => ({ key: k, value: typeof v === 'number' ? { intValue: String(v) } : { stringValue: v } });
  const doc = {
    resourceSpans: [
      {
        resource: { attributes: [{ key: 'service.name', value: { stringValue: 'llm-gateway' } }] },
        scopeSpans: [
          {
            scope: { name: 'phasewise-bench' },
            spans: list.map((s) => ({
              traceId,
              spanId: s.id,
              parentSpanId: s.parent ?? '',
              name: s.name,
              kind: s.kind,
              startTimeUnixNano: ns(s.startUs),
              endTimeUnixNano: ns(s.endUs),
              attributes: s.attrs.map(attr),
              events: s.events.map(([name, t]) => ({ name, timeUnixNano: ns(t) })),
              status: s.error ? { code: 2, message: 'tool failed' } : {},
            })),
          },
        ],
      },
    ],
  };
  const otlp = `${dir}/big.otlp.json`;
  writeFileSync(otlp, JSON.stringify(doc));
  // The k6 request: sent 3 ms before the root starts, 12.006 s in all (envelope 6 ms).
  const totalMs = rootUs / 1000 + 6;
  const endIso = new Date((baseUs + rootUs + 3_000) / 1000).toISOString();
  const tags = { method: 'POST', name: 'http://gateway/v1/chat/completions', status: '200', url: 'http://gateway/v1/chat/completions', scenario: 'big', expected_response: 'true' };
  const point = (metric: string, value: number): string => JSON.stringify({ type: 'Point', metric, data: { time: endIso, value, tags, metadata: { trace_id: traceId } } });
  const k6 = `${dir}/big.k6.ndjson`;
  writeFileSync(
    k6,
    [
      point('http_reqs', 1),
      point('http_req_duration', totalMs),
      point('http_req_blocked', 0.8),
      point('http_req_connecting', 0.5),
      point('http_req_tls_handshaking', 0),
      point('http_req_sending', 0.1),
      point('http_req_waiting', 640),
      point('http_req_receiving', totalMs - 640.1),
      point('http_req_failed', 0),
    ].join('\n') + '\n',
  );
  return { traceId, spanCount: list.length, rootMs: rootUs / 1000, otlp, k6 };
}
