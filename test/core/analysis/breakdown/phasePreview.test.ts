import * as assert from 'assert';
import * as fs from 'fs';
import * as path from 'path';
import { buildBreakdown } from '../../../../src/core/analysis/breakdown/pipeline';
import { previewPhases, type PhasePick } from '../../../../src/core/analysis/breakdown/phasePreview';
import { DEFAULT_ANALYSIS_OPTIONS, DEFAULT_PHASES, type PhaseDefinition, type SpanMatcher } from '../../../../src/core/analysis/options';
import { loadFiles } from '../../../../src/core/formats/loadFiles';
import { DuckStore } from '../../../../src/core/store/duckStore';
import { sharedSamplesDir } from '../../../helpers/paths';

/**
 * The phase preview on the real joined sample (joined-otel-js, OpenTelemetry JS SDK output) against a
 * count made here without DuckDB: each export line parsed with JSON.parse, each span's name,
 * attributes (AnyValue as text) and resource service.name tested against the selector by hand.
 */
interface HandSpan {
  traceId: string;
  spanId: string;
  name: string;
  service: string | null;
  attributes: Map<string, string>;
}

function anyValueText(v: Record<string, unknown>): string {
  if ('stringValue' in v) return String(v.stringValue);
  if ('intValue' in v) return String(v.intValue);
  if ('boolValue' in v) return String(v.boolValue);
  if ('doubleValue' in v) return String(v.doubleValue);
  return JSON.stringify(v);
}

function readSpans(file: string): HandSpan[] {
  const seen = new Set<string>();
  const out: HandSpan[] = [];
  for (const line of fs.readFileSync(file, 'utf8').split('\n')) {
    if (line.trim() === '') continue;
    const doc = JSON.parse(line) as { resourceSpans: { resource: { attributes: { key: string; value: Record<string, unknown> }[] }; scopeSpans: { spans: Record<string, unknown>[] }[] }[] };
    for (const rs of doc.resourceSpans) {
      const svc = rs.resource.attributes.find((a) => a.key === 'service.name');
      for (const ss of rs.scopeSpans) {
        for (const s of ss.spans) {
          const key = `${String(s.traceId)}/${String(s.spanId)}`;
          if (seen.has(key)) continue;
          seen.add(key);
          const attrs = new Map<string, string>();
          for (const a of (s.attributes as { key: string; value: Record<string, unknown> }[] | undefined) ?? []) attrs.set(a.key, anyValueText(a.value));
          out.push({ traceId: String(s.traceId), spanId: String(s.spanId), name: String(s.name), service: svc ? anyValueText(svc.value) : null, attributes: attrs });
        }
      }
    }
  }
  return out;
}

function matches(s: HandSpan, m: SpanMatcher): boolean {
  const clauses: boolean[] = [];
  if (m.names !== undefined) clauses.push(m.names.includes(s.name));
  for (const [k, v] of Object.entries(m.attributes ?? {})) clauses.push(s.attributes.get(k) === v);
  for (const k of m.attributePresent ?? []) clauses.push(s.attributes.has(k));
  if (m.service !== undefined) clauses.push(s.service === m.service);
  return clauses.length > 0 && clauses.every(Boolean);
}

function handPick(spans: HandSpan[], phase: PhaseDefinition, top: number): PhasePick {
  const picked = spans.filter((s) => phase.anyOf.some((m) => matches(s, m)));
  const byName = new Map<string, number>();
  for (const s of picked) byName.set(s.name, (byName.get(s.name) ?? 0) + 1);
  const names = [...byName.entries()]
    .map(([name, count]) => ({ name, count }))
    .sort((a, b) => b.count - a.count || (a.name < b.name ? -1 : a.name > b.name ? 1 : 0))
    .slice(0, top);
  return { spans: picked.length, traces: new Set(picked.map((s) => s.traceId)).size, names };
}

describe('phase preview (the analysis selection, counted)', () => {
  const dir = path.join(sharedSamplesDir, 'joined-otel-js');
  let store: DuckStore;
  let spans: HandSpan[];
  before(async () => {
    spans = readSpans(path.join(dir, 'spans.otlp.jsonl'));
    store = new DuckStore();
    await loadFiles(store, [path.join(dir, 'k6.ndjson'), path.join(dir, 'spans.otlp.jsonl')]);
    await buildBreakdown(store, DEFAULT_ANALYSIS_OPTIONS);
  });
  after(async () => store.close());

  it('counts what the default phases pick as the hand count does', async () => {
    assert.strictEqual(spans.length, 812, 'the sample has 812 spans (the join test says so too)');
    const got = await previewPhases(store, DEFAULT_PHASES);
    for (const p of DEFAULT_PHASES) assert.deepStrictEqual(got[p.name], handPick(spans, p, 5), p.name);
    // Four gateway span names per trace, in all 117 exported traces.
    assert.deepStrictEqual([got.gateway.spans, got.gateway.traces], [468, 117]);
  });

  it('counts attribute, presence and service selectors and other mappings than the analysis used, without writing span_phase', async () => {
    const before = await store.all<{ n: number }>('SELECT count(*) AS n FROM span_phase');
    const phases: PhaseDefinition[] = [
      { name: 'slots', anyOf: [{ attributePresent: ['llm.gpu_slot'], service: 'llm-gateway' }] },
      { name: 'queue_attr', anyOf: [{ attributes: { 'llm.phase': 'queue' } }] },
      { name: 'streams', anyOf: [{ attributes: { 'llm.stream': 'true' } }, { names: ['first_token', 'response.write'] }] },
      { name: 'nothing', anyOf: [{ names: ['no.such.span'] }] },
      { name: 'other_service', anyOf: [{ names: ['auth.check'], service: 'not-the-gateway' }] },
    ];
    const got = await previewPhases(store, phases, 3);
    for (const p of phases) assert.deepStrictEqual(got[p.name], handPick(spans, p, 3), p.name);
    assert.ok(got.slots.spans > 0 && got.streams.spans > 0, 'the selectors pick something');
    assert.deepStrictEqual(got.nothing, { spans: 0, traces: 0, names: [] });
    assert.deepStrictEqual(await store.all<{ n: number }>('SELECT count(*) AS n FROM span_phase'), before, 'span_phase untouched');
  });
});
