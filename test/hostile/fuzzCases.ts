/**
 * The fuzz test's cases: slices of the real samples, and the seeded mutations applied to them
 * (fuzz.test.ts runs them). The same seed gives the same bytes on every machine.
 */
import * as fs from 'fs';
import { gzipSync } from 'zlib';
import { fixture } from '../helpers/paths';

export type Kind = 'k6' | 'otlp' | 'records' | 'records-csv' | 'k6-csv' | 'zipkin' | 'jaeger';

export interface Sample {
  kind: Kind;
  side: '--run' | '--spans';
  bytes: Buffer;
}

function lines(file: string, count?: number): Buffer {
  const text = fs.readFileSync(fixture(file), 'utf8').split('\n');
  return Buffer.from(text.slice(0, count ?? text.length).join('\n') + (count === undefined ? '' : '\n'), 'utf8');
}

/** Slices of the real samples, small enough for a few hundred runs. */
const SAMPLES: Sample[] = [
  { kind: 'k6', side: '--run', bytes: lines('shared-samples/joined-otel-js/k6.ndjson', 240) },
  { kind: 'otlp', side: '--spans', bytes: lines('shared-samples/joined-otel-js/spans.otlp.jsonl', 3) },
  { kind: 'records', side: '--run', bytes: lines('shared-samples/joined-otel-js/requests.ndjson', 60) },
  { kind: 'records-csv', side: '--run', bytes: lines('client-readers/records-slice.csv') },
  { kind: 'k6-csv', side: '--run', bytes: lines('client-readers/k6-joined-slice.csv', 200) },
  { kind: 'zipkin', side: '--spans', bytes: lines('shared-samples/zipkin-json/zipkin_zipkin-lens_testdata_yelp.json') },
  { kind: 'jaeger', side: '--spans', bytes: lines('shared-samples/jaeger-json/jaeger-ui_utils_fixtures_oltp2jaeger-multi-out.json') },
];

/** mulberry32: a small, fixed, seedable generator (the same cases on every machine). */
export function rng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

type Mutation = (b: Buffer, r: () => number) => Buffer;
export const pick = (r: () => number, n: number): number => Math.floor(r() * n);
const splitLines = (b: Buffer): Buffer[] => {
  const out: Buffer[] = [];
  let from = 0;
  for (let nl = b.indexOf(0x0a); nl !== -1; nl = b.indexOf(0x0a, from)) {
    out.push(b.subarray(from, nl + 1));
    from = nl + 1;
  }
  if (from < b.length) out.push(b.subarray(from));
  return out;
};

const MUTATIONS: Readonly<Record<string, Mutation>> = {
  truncate: (b, r) => b.subarray(0, pick(r, b.length)),
  flipBytes: (b, r) => {
    const out = Buffer.from(b);
    for (let i = 1 + pick(r, 4); i > 0; i--) out[pick(r, out.length)] ^= 1 + pick(r, 255);
    return out;
  },
  printableByte: (b, r) => {
    const out = Buffer.from(b);
    out[pick(r, out.length)] = 0x20 + pick(r, 95);
    return out;
  },
  duplicateLines: (b, r) => {
    const ls = splitLines(b);
    for (let i = 1 + pick(r, 3); i > 0; i--) {
      const at = pick(r, ls.length);
      ls.splice(at, 0, ls[at]);
    }
    return Buffer.concat(ls);
  },
  deleteLines: (b, r) => {
    const ls = splitLines(b);
    for (let i = 1 + pick(r, 3); i > 0 && ls.length > 2; i--) ls.splice(1 + pick(r, ls.length - 1), 1);
    return Buffer.concat(ls);
  },
  swapLines: (b, r) => {
    const ls = splitLines(b);
    const i = pick(r, ls.length);
    const j = pick(r, ls.length);
    [ls[i], ls[j]] = [ls[j], ls[i]];
    return Buffer.concat(ls);
  },
  crlf: (b) => Buffer.from(b.toString('latin1').replace(/\n/g, '\r\n'), 'latin1'),
  mixedCrlf: (b, r) => Buffer.concat(splitLines(b).map((l) => (r() < 0.5 && l[l.length - 1] === 0x0a ? Buffer.concat([l.subarray(0, l.length - 1), Buffer.from('\r\n')]) : l))),
  utf16: (b) => Buffer.concat([Buffer.from([0xff, 0xfe]), Buffer.from(b.toString('utf8'), 'utf16le')]),
  utf8Bom: (b) => Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), b]),
  latin1Byte: (b, r) => {
    const ls = splitLines(b);
    const at = 1 + pick(r, Math.max(1, ls.length - 1));
    if (at < ls.length) ls[at] = Buffer.concat([Buffer.from([0xe9]), ls[at]]);
    return Buffer.concat(ls);
  },
  controlCharacters: (b, r) => {
    const ls = splitLines(b);
    const at = pick(r, ls.length);
    ls.splice(at, 0, Buffer.from(['\u001b[2J', '\u001b]0;PWNED\u0007', '\u0000', '\u202e', '\r', '\u0001'][pick(r, 6)] + 'x\n', 'utf8'));
    return Buffer.concat(ls);
  },
  blankLines: (b, r) => {
    const ls = splitLines(b);
    ls.splice(pick(r, ls.length), 0, Buffer.from(['\n', '   \n', '\t\n'][pick(r, 3)]));
    return Buffer.concat(ls);
  },
  gzip: (b) => gzipSync(b),
  gzipTruncated: (b, r) => {
    const z = gzipSync(b);
    return z.subarray(0, 10 + pick(r, z.length - 10));
  },
  gzipFlip: (b, r) => {
    const z = Buffer.from(gzipSync(b));
    z[10 + pick(r, z.length - 10)] ^= 1 + pick(r, 255);
    return z;
  },
};
const MUTATION_NAMES = Object.keys(MUTATIONS);
/** Byte-level edits run before the file-level ones (encodings, gzip), never after. */
const FILE_LEVEL = new Set(['utf16', 'gzip', 'gzipTruncated', 'gzipFlip']);

export interface FuzzCase {
  seed: number;
  sample: Sample;
  mutations: string[];
  bytes: Buffer;
}

/**
 * One to three mutations drawn from `names` (all by default), byte-level ones first and at most one
 * file-level one (an encoding, gzip) last, applied to `bytes`.
 */
export function mutate(bytes: Buffer, r: () => number, names: readonly string[] = MUTATION_NAMES): { mutations: string[]; bytes: Buffer } {
  const drawn: string[] = [];
  for (let n = 1 + pick(r, 3); n > 0; n--) drawn.push(names[pick(r, names.length)]);
  const ordered = [...drawn.filter((m) => !FILE_LEVEL.has(m)), ...drawn.filter((m) => FILE_LEVEL.has(m)).slice(0, 1)];
  let out = bytes;
  for (const m of ordered) out = MUTATIONS[m](out, r);
  return { mutations: ordered, bytes: out };
}

export function makeCase(seed: number): FuzzCase {
  const r = rng(seed);
  const sample = SAMPLES[pick(r, SAMPLES.length)];
  return { seed, sample, ...mutate(sample.bytes, r) };
}

