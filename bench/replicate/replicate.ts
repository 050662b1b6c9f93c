/**
 * The real joined-otel-js run (OpenTelemetry JS SDK spans, k6-layout Points, per-request records)
 * turned into a run of any size: `copies` copies of it, each with fresh trace and span IDs (parent
 * links rewritten through the same map, so every trace keeps its exact tree), fresh request IDs, and
 * times shifted by whole milliseconds so that the run stays a realistic one.
 *
 * Time layout: `concurrent` copies run at once, interleaved by `stepMs` (the source's arrival gap
 * divided among them), and such a block repeats every `periodMs` (the source's schedule length), so
 * the arrival rate is `concurrent` × the source's (12 requests/s × 4 = 48/s by default) for as long
 * as the run lasts, and every window holds what a window of that run would.
 * Span lines: the source's request bodies, the `concurrent` copies of one body merged into one line,
 * as the SDK's BatchSpanProcessor would batch spans arriving `concurrent` × as fast (≈ 90–130 KB lines of
 * 130–190 spans by default). k6: Metric lines once; the `vus` gauge once per block with the block's
 * VUs added up, `vus_max` as the source has it; every other Point once per copy.
 */
import { createHash } from 'crypto';
import { mkdir, readFile, writeFile } from 'fs/promises';
import * as path from 'path';
import { LineSink } from '../generate/sink';
import { CopyIds } from './ids';
import { sourceEnvelopes, repeatedQuantiles } from './sourceEnvelope';
import { compileTemplate, fillTemplate, type Hole, type HoleKind, type LineTemplate } from './template';
import { shiftDecimalMs, shiftEpochNs, shiftRfc3339 } from './times';

export interface ReplicateOptions {
  /** Directory holding k6.ndjson, spans.otlp.jsonl and requests.ndjson of the real run. */
  source: string;
  outDir: string;
  copies: number;
  /** Copies running at the same time (see the file header). */
  concurrent: number;
  seed: number;
}

export interface ReplicatedRun {
  expected: Record<string, unknown>;
  bytes: number;
  seconds: number;
}

export const SOURCE_FILES = ['k6.ndjson', 'spans.otlp.jsonl', 'requests.ndjson'] as const;

interface SpanLine {
  head: string;
  tail: string;
  spans: LineTemplate[];
}

interface K6Line {
  template: LineTemplate;
  role: 'metric' | 'once-per-block' | 'point';
}

interface Source {
  spans: SpanLine[];
  k6: K6Line[];
  records: LineTemplate[];
  periodMs: number;
  stepMs: number;
  traceIds: string[];
  spanIds: string[];
  sha256: string;
  counts: { spans: number; points: number; records: number; httpReqs: number };
  texts: { k6: string; spans: string; records: string };
}

function lines(text: string): string[] {
  return text.split('\n').filter((l) => l.length > 0);
}

/** Parses a compact JSON line, refusing one that would not be written back byte for byte. */
function parseCompact(line: string, file: string, n: number): unknown {
  const value = JSON.parse(line) as unknown;
  if (JSON.stringify(value) !== line || line.includes('\\u0000')) {
    throw new Error(`${file}:${n}: not compact JSON that survives a round trip; the replicator copies such lines only`);
  }
  return value;
}

function makeRule(requestIds: ReadonlySet<string>, table: Readonly<Record<string, HoleKind>>, suffixes: ReadonlyArray<[string, HoleKind]>) {
  return (key: string, value: string | number): HoleKind | undefined => {
    if (typeof value === 'string' && value === '') return undefined;
    const kind = table[key] ?? suffixes.find(([s]) => key.endsWith(s))?.[1];
    if (kind !== undefined) return kind;
    return typeof value === 'string' && requestIds.has(value) ? 'request' : undefined;
  };
}

async function readSource(dir: string): Promise<Source> {
  const [k6Text, spansText, recordsText] = await Promise.all(SOURCE_FILES.map((f) => readFile(path.join(dir, f), 'utf8')));
  const recordObjs = lines(recordsText).map((l, i) => parseCompact(l, 'requests.ndjson', i + 1) as Record<string, unknown>);
  const requestIds = new Set(recordObjs.map((r) => String(r.request_id)));
  const spanRule = makeRule(requestIds, { traceId: 'trace', spanId: 'span', parentSpanId: 'span' }, [['UnixNano', 'epochNs']]);
  const k6Rule = makeRule(new Set(), { trace_id: 'trace', time: 'rfc3339' }, []);
  const vusRule = makeRule(new Set(), { trace_id: 'trace', time: 'rfc3339', value: 'vus' }, []);
  const recordRule = makeRule(requestIds, { trace_id: 'trace', request_id: 'request' }, [['_offset_ms', 'offsetMs']]);

  const spans: SpanLine[] = lines(spansText).map((line, i) => {
    const doc = parseCompact(line, 'spans.otlp.jsonl', i + 1) as { resourceSpans?: Array<{ scopeSpans?: Array<{ spans?: unknown[] }> }> };
    const rs = doc.resourceSpans ?? [];
    if (rs.length !== 1 || (rs[0].scopeSpans ?? []).length !== 1) {
      throw new Error(`spans.otlp.jsonl:${i + 1}: expected one resource with one scope per line (as the SDK's exporter writes them)`);
    }
    const scope = (rs[0].scopeSpans ?? [])[0];
    const spanList = scope.spans ?? [];
    scope.spans = ['\u0000spans'];
    const [head, tail] = JSON.stringify(doc).split('"\\u0000spans"');
    return { head, tail, spans: spanList.map((s) => compileTemplate(s, spanRule)) };
  });
  const k6: K6Line[] = lines(k6Text).map((line, i) => {
    const o = parseCompact(line, 'k6.ndjson', i + 1) as { type?: string; metric?: string };
    if (o.type !== 'Point') return { template: compileTemplate(o, k6Rule), role: 'metric' };
    if (o.metric === 'vus') return { template: compileTemplate(o, vusRule), role: 'once-per-block' };
    if (o.metric === 'vus_max') return { template: compileTemplate(o, k6Rule), role: 'once-per-block' };
    return { template: compileTemplate(o, k6Rule), role: 'point' };
  });
  const records = recordObjs.map((r) => compileTemplate(r, recordRule));

  // IDs in order of first appearance (spans, then k6, then records), so each copy's map is fixed.
  const traceIds = new Set<string>();
  const spanIds = new Set<string>();
  const collect = (t: LineTemplate): void => {
    for (const h of t.holes) {
      if (h.kind === 'trace') traceIds.add(h.value);
      else if (h.kind === 'span') spanIds.add(h.value);
    }
  };
  spans.forEach((l) => l.spans.forEach(collect));
  k6.forEach((l) => collect(l.template));
  records.forEach(collect);

  // The source's schedule: its arrival gap and length (records' scheduled offsets).
  const offsets = recordObjs.map((r) => Number(r.scheduled_offset_ms)).filter(Number.isFinite).sort((a, b) => a - b);
  if (offsets.length < 2) throw new Error('requests.ndjson needs at least two scheduled_offset_ms values to derive the arrival gap');
  const gapMs = (offsets[offsets.length - 1] - offsets[0]) / (offsets.length - 1);
  // Rounded to the µs first: the offsets are printed to 6 decimals, so their sum is not exact.
  const periodMs = Math.ceil(Math.round((offsets[offsets.length - 1] + gapMs) * 1000) / 1000);
  const hash = createHash('sha256');
  for (const t of [k6Text, spansText, recordsText]) hash.update(t);
  const httpReqs = k6.filter((l) => l.role === 'point' && l.template.parts[0].includes('"metric":"http_reqs"')).length;
  return {
    spans,
    k6,
    records,
    periodMs,
    stepMs: gapMs,
    traceIds: [...traceIds],
    spanIds: [...spanIds],
    sha256: hash.digest('hex'),
    counts: {
      spans: spans.reduce((n, l) => n + l.spans.length, 0),
      points: k6.filter((l) => l.role !== 'metric').length,
      records: records.length,
      httpReqs,
    },
    texts: { k6: k6Text, spans: spansText, records: recordsText },
  };
}

/** One copy's rewriting of a hole: fresh IDs, shifted times, request IDs made unique. */
function filler(ids: { trace: Map<string, string>; span: Map<string, string> }, shiftMs: number, copy: number, members: number): (h: Hole) => string {
  return (h) => {
    switch (h.kind) {
      case 'trace':
        return ids.trace.get(h.value) as string;
      case 'span':
        return ids.span.get(h.value) as string;
      case 'epochNs':
        return shiftEpochNs(h.value, shiftMs);
      case 'rfc3339':
        return shiftRfc3339(h.value, shiftMs);
      case 'offsetMs':
        return shiftDecimalMs(h.value, shiftMs);
      case 'request':
        return `${h.value}.${copy}`;
      case 'vus':
        // The gauge of `members` copies running at once: their VUs add up.
        return JSON.stringify(Number(h.value) * members);
    }
  };
}

/** Writes the replicated run (k6.ndjson, spans.otlp.jsonl, requests.ndjson, expected.json) into outDir. */
export async function replicateRun(o: ReplicateOptions): Promise<ReplicatedRun> {
  const started = process.hrtime.bigint();
  if (!(Number.isInteger(o.copies) && o.copies >= 1)) throw new Error(`copies must be a positive integer, got ${o.copies}`);
  if (!(Number.isInteger(o.concurrent) && o.concurrent >= 1)) throw new Error(`concurrent must be a positive integer, got ${o.concurrent}`);
  const src = await readSource(o.source);
  await mkdir(o.outDir, { recursive: true });
  // Whole milliseconds keep the SDK's ms-granular starts; the copies of a block never coincide.
  const stepMs = Math.max(1, Math.floor(src.stepMs / o.concurrent));
  const sinks = { k6: new LineSink(path.join(o.outDir, 'k6.ndjson'), false), spans: new LineSink(path.join(o.outDir, 'spans.otlp.jsonl'), false), records: new LineSink(path.join(o.outDir, 'requests.ndjson'), false) };
  const ids = new CopyIds(o.seed, src.traceIds, src.spanIds);
  const blocks = Math.ceil(o.copies / o.concurrent);
  const flush = async (): Promise<void> => {
    for (const s of Object.values(sinks)) if (s.needsFlush) await s.flush();
  };
  for (let b = 0; b < blocks; b++) {
    const members = Math.min(o.concurrent, o.copies - b * o.concurrent);
    const fills = Array.from({ length: members }, (_, j) => filler(ids.next(), b * src.periodMs + j * stepMs, b * o.concurrent + j, members));
    for (const line of src.spans) {
      const parts: string[] = [];
      for (const fill of fills) for (const span of line.spans) parts.push(fillTemplate(span, fill));
      sinks.spans.lineParts(line.head, parts, line.tail);
    }
    for (const line of src.k6) {
      if (line.role === 'metric') {
        if (b === 0) sinks.k6.line(fillTemplate(line.template, fills[0]));
      } else if (line.role === 'once-per-block') {
        sinks.k6.line(fillTemplate(line.template, fills[0]));
      } else {
        for (const fill of fills) sinks.k6.line(fillTemplate(line.template, fill));
      }
    }
    for (const record of src.records) for (const fill of fills) sinks.records.line(fillTemplate(record, fill));
    await flush();
  }
  await Promise.all(Object.values(sinks).map((s) => s.close()));

  const env = sourceEnvelopes(src.texts.k6, src.texts.spans);
  const expected = {
    generator: 'phasewise bench/replicate',
    options: { copies: o.copies, concurrent: o.concurrent, seed: o.seed },
    source: { dir: path.basename(o.source), sha256: src.sha256, ...src.counts, period_ms: src.periodMs, arrival_gap_ms: src.stepMs },
    step_ms: stepMs,
    counts: {
      copies: o.copies,
      http_reqs: src.counts.httpReqs * o.copies,
      spans: src.counts.spans * o.copies,
      records: src.counts.records * o.copies,
      source_matched_succeeded: env.length,
    },
    matched_succeeded: { network_envelope_ms: repeatedQuantiles(env, o.copies) },
    files: {
      k6: { lines: sinks.k6.lines, bytes: sinks.k6.bytesWritten },
      requests: { lines: sinks.records.lines, bytes: sinks.records.bytesWritten },
      spans: { lines: sinks.spans.lines, bytes: sinks.spans.bytesWritten },
    },
    notes:
      'Envelope figures from the source run (its matched successful requests, computed in sourceEnvelope.ts), ' +
      'each value repeated once per copy: the copies differ only in IDs and whole-ms time shifts, so their durations are the source\'s.',
  };
  await writeFile(path.join(o.outDir, 'expected.json'), JSON.stringify(expected, null, 2) + '\n');
  const bytes = sinks.k6.bytesWritten + sinks.spans.bytesWritten + sinks.records.bytesWritten;
  return { expected, bytes, seconds: Number(process.hrtime.bigint() - started) / 1e9 };
}
