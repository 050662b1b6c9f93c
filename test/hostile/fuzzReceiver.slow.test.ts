import * as assert from 'assert';
import * as fs from 'fs';
import * as http from 'http';
import * as net from 'net';
import * as os from 'os';
import * as path from 'path';
import { gunzipSync, gzipSync } from 'zlib';
import { OtlpReceiver } from '../../src/core/probe/receiver/receiver';
import { JsonlFileSink } from '../../src/core/probe/receiver/sinks';
import { otlpTypes } from '../../src/core/probe/receiver/otlpProto';
import { fixture } from '../helpers/paths';
import { mutate, pick, rng } from './fuzzCases';

/**
 * Seeded fuzzing of the receiver with the real OTLP samples (issue 31): each case mutates one body (a
 * line of the joined OTLP JSON sample, a pretty-printed OTLP JSON file, the two protobuf samples) with
 * the fuzz test's mutations, sends it as JSON or protobuf, plain or gzipped, to a real receiver on
 * 127.0.0.1, and checks:
 * - the answer is 200, 400, 413 or 415 (never 500, never a reset), within 10 s;
 * - a 200's accepted + refused spans are the spans the body holds, counted here with JSON.parse or the
 *   protobuf types, not with the receiver's walk; every nanosecond time it stored is one the body
 *   holds, digit for digit (bodies may be edited to write them as JSON numbers, or to nest an attribute
 *   thousands of levels deep, which must be a 400);
 * - a client that goes away mid-body is counted as cut off, never as a 500;
 * - at the end, no request was counted as a 500, every stored line is one JSON object, the spans
 *   stored are the spans accepted, and the untouched samples are still accepted.
 * Knobs: PHASEWISE_FUZZ_RECEIVER_CASES (default 400: ≈ 2 s), PHASEWISE_FUZZ_SEED (first seed, default 1).
 */
const CASES = Number(process.env.PHASEWISE_FUZZ_RECEIVER_CASES ?? 400);
const FIRST_SEED = Number(process.env.PHASEWISE_FUZZ_SEED ?? 1);

type Encoding = 'json' | 'protobuf';
interface Body {
  name: string;
  encoding: Encoding;
  bytes: Buffer;
}

function jsonLines(file: string, count: number): Body[] {
  return fs.readFileSync(fixture(file), 'utf8').split('\n').slice(0, count).map((line, i) => ({ name: `${path.basename(file)}:${i + 1}`, encoding: 'json', bytes: Buffer.from(line, 'utf8') }));
}

const BODIES: Body[] = [
  ...jsonLines('shared-samples/joined-otel-js/spans.otlp.jsonl', 3),
  { name: 'otlp2jaeger-in.json', encoding: 'json', bytes: fs.readFileSync(fixture('shared-samples/otlp-json/jaeger-ui_utils_fixtures_otlp2jaeger-in.json')) },
  { name: 'trace.json (base64 IDs)', encoding: 'json', bytes: fs.readFileSync(fixture('shared-samples/otlp-protobuf/smithclay_otlp2parquet_testdata_trace.json')) },
  { name: 'tempo.pb', encoding: 'protobuf', bytes: fs.readFileSync(fixture('shared-samples/otlp-protobuf/grafana_grafana_pkg_tsdb_tempo_testData_tempo_proto_response.pb')) },
  { name: 'trace.pb', encoding: 'protobuf', bytes: fs.readFileSync(fixture('shared-samples/otlp-protobuf/smithclay_otlp2parquet_testdata_trace.pb')) },
];

/** Mutations that make sense for one body (line-level ones too: the pretty-printed JSON has lines). */
const BODY_MUTATIONS = ['truncate', 'flipBytes', 'printableByte', 'duplicateLines', 'deleteLines', 'swapLines', 'crlf', 'utf16', 'utf8Bom', 'latin1Byte', 'controlCharacters', 'blankLines'];

/**
 * Edits of an OTLP JSON body that exporters make and that the file mutations do not: nanosecond times
 * and int64 values written as JSON numbers (which JSON.parse rounds past 2^53), and an attribute value
 * nested thousands of levels deep (the receiver must refuse it with 400).
 */
const JSON_EDITS: Readonly<Record<string, (text: string, r: () => number) => string>> = {
  numericTimes: (text) => text.replace(/("(?:startTimeUnixNano|endTimeUnixNano|timeUnixNano|intValue)"\s*:\s*)"(\d+)"/g, '$1$2'),
  deepAttribute: (text, r) => {
    let value = '{"boolValue":true}';
    for (let i = 500 + pick(r, 2500); i > 0; i--) value = `{"arrayValue":{"values":[${value}]}}`;
    return text.replace('"attributes":[', `"attributes":[{"key":"deep","value":${value}},`);
  },
};

/** The nanosecond times a JSON text holds, as written (digits), for the exact-digits check. */
function timesIn(text: string): string[] {
  return [...text.matchAll(/"(?:startTimeUnixNano|endTimeUnixNano|timeUnixNano)"\s*:\s*"?(\d+)/g)].map((m) => m[1]);
}

const CONTENT_TYPE: Record<Encoding, string> = { json: 'application/json', protobuf: 'application/x-protobuf' };

/** The spans a body holds, read here; undefined when it is not an export the receiver can decode. */
function spansHeld(bytes: Buffer, encoding: Encoding): number | undefined {
  let doc: unknown;
  try {
    if (encoding === 'json') doc = JSON.parse(bytes.toString('utf8'));
    else {
      const { ExportTraceServiceRequest } = otlpTypes();
      doc = ExportTraceServiceRequest.toObject(ExportTraceServiceRequest.decode(bytes), { longs: String, enums: Number, bytes: String, defaults: false });
    }
  } catch {
    return undefined;
  }
  const isObject = (v: unknown): v is Record<string, unknown> => v !== null && typeof v === 'object' && !Array.isArray(v);
  if (!isObject(doc)) return undefined;
  if (doc.resourceSpans === undefined) return 0;
  if (!Array.isArray(doc.resourceSpans)) return undefined;
  let n = 0;
  for (const rs of doc.resourceSpans) {
    if (!isObject(rs)) return undefined;
    const scopes = Array.isArray(rs.scopeSpans) ? rs.scopeSpans : Array.isArray(rs.instrumentationLibrarySpans) ? rs.instrumentationLibrarySpans : [];
    for (const ss of scopes) {
      if (!isObject(ss) || (ss.spans !== undefined && !Array.isArray(ss.spans))) return undefined;
      for (const sp of (ss.spans as unknown[] | undefined) ?? []) {
        if (!isObject(sp)) return undefined;
        n++;
      }
    }
  }
  return n;
}

interface Answer {
  status: number;
  type: string;
  body: string;
}

function post(port: number, body: Buffer, headers: Record<string, string>): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const req = http.request({ host: '127.0.0.1', port, path: '/v1/traces', method: 'POST', headers: { ...headers, 'content-length': String(body.length) } }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (d: Buffer) => chunks.push(d));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, type: String(res.headers['content-type'] ?? ''), body: Buffer.concat(chunks).toString('latin1') }));
    });
    req.setTimeout(10_000, () => req.destroy(new Error('no answer in 10 s')));
    req.on('error', reject);
    req.end(body);
  });
}

/** Sends the headers and the first `at` bytes of `body` over a raw socket, then closes it. */
function cutOff(port: number, body: Buffer, at: number, headers: Record<string, string>): Promise<void> {
  return new Promise((resolve, reject) => {
    const socket = net.connect(port, '127.0.0.1', () => {
      const head = Object.entries({ ...headers, 'content-length': String(body.length) }).map(([k, v]) => `${k}: ${v}\r\n`).join('');
      socket.write(`POST /v1/traces HTTP/1.1\r\nHost: 127.0.0.1\r\n${head}\r\n`);
      socket.write(body.subarray(0, at), () => socket.destroy());
    });
    socket.on('error', reject);
    socket.on('close', () => resolve());
  });
}

/**
 * Line `index` (0-based) of the sink's file, once it has landed: the sink writes one line per accepted
 * export, in the order they were accepted, so export k is line k (waiting at most 5 s for the write).
 */
async function storedLine(file: string, index: number): Promise<string | undefined> {
  for (let i = 0; i < 500; i++) {
    const lines = fs.existsSync(file) ? fs.readFileSync(file, 'utf8').split('\n') : [];
    // The last element is what follows the last newline: complete lines are the ones before it.
    if (lines.length - 1 > index) return lines[index];
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
  return undefined;
}

describe(`fuzzing the receiver with the real OTLP samples (${CASES} seeded cases from seed ${FIRST_SEED})`, function () {
  this.timeout(300_000);
  let dir: string;
  before(() => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'pw-fuzz-receiver-'));
  });
  after(() => fs.rmSync(dir, { recursive: true, force: true }));

  it('answers every body with a status from the spec and stores exactly what it accepted', async () => {
    const out = path.join(dir, 'received.otlp.jsonl');
    const receiver = new OtlpReceiver({ host: '127.0.0.1', port: 0, sinks: [new JsonlFileSink(out)] });
    const exports: Array<{ accepted: number; rejected: number }> = [];
    receiver.on('event', (e) => {
      if (e.type === 'export') exports.push({ accepted: e.accepted, rejected: e.rejected });
    });
    await receiver.listen();
    const port = Number(receiver.address.split(':')[1]);
    const failures: string[] = [];
    const statuses: Record<string, number> = {};
    let cut = 0;
    try {
      for (let seed = FIRST_SEED; seed < FIRST_SEED + CASES; seed++) {
        const r = rng(seed);
        const sample = BODIES[pick(r, BODIES.length)];
        const edit = sample.encoding === 'json' && r() < 0.3 ? Object.keys(JSON_EDITS)[pick(r, 2)] : undefined;
        const edited = edit === undefined ? sample.bytes : Buffer.from(JSON_EDITS[edit](sample.bytes.toString('utf8'), r), 'utf8');
        // An edited body is sent as it is half the time, so the edit itself is what the receiver meets.
        const { mutations, bytes } = edit !== undefined && r() < 0.5 ? { mutations: [edit], bytes: edited } : mutate(edited, r, BODY_MUTATIONS);
        if (edit !== undefined && mutations[0] !== edit) mutations.unshift(edit);
        // Mostly the sample's own encoding; now and then the other one (a mislabelled body).
        const encoding: Encoding = r() < 0.85 ? sample.encoding : sample.encoding === 'json' ? 'protobuf' : 'json';
        const gzip = r() < 0.3;
        let wire = gzip ? gzipSync(bytes) : bytes;
        const damage = gzip && r() < 0.3 ? (r() < 0.5 ? 'gzipTruncated' : 'gzipFlip') : undefined;
        if (damage === 'gzipTruncated') wire = wire.subarray(0, 10 + pick(r, wire.length - 10));
        if (damage === 'gzipFlip') {
          wire = Buffer.from(wire);
          wire[10 + pick(r, wire.length - 10)] ^= 1 + pick(r, 255);
        }
        // Now and then the client goes away mid-body: not a server error (the summary is checked at the end).
        const cutAt = wire.length > 1 && r() < 0.05 ? 1 + pick(r, wire.length - 1) : undefined;
        const label = `seed ${seed} (${sample.name} as ${encoding}${gzip ? ', gzip' : ''}: ${[...mutations, ...(damage ? [damage] : []), ...(cutAt ? [`cut at ${cutAt}`] : [])].join(', ')})`;
        const headers = { 'content-type': CONTENT_TYPE[encoding], ...(gzip ? { 'content-encoding': 'gzip' } : {}) };
        if (cutAt !== undefined) {
          await cutOff(port, wire, cutAt, headers);
          cut++;
          continue;
        }
        const before = exports.length;
        let answer: Answer;
        try {
          answer = await post(port, wire, headers);
        } catch (err) {
          failures.push(`${label}: ${err instanceof Error ? err.message : String(err)}`);
          continue;
        }
        statuses[answer.status] = (statuses[answer.status] ?? 0) + 1;
        if (![200, 400, 413, 415].includes(answer.status)) failures.push(`${label}: HTTP ${answer.status} ${answer.body.slice(0, 200)}`);
        if (answer.type !== CONTENT_TYPE[encoding]) failures.push(`${label}: answered as ${answer.type}`);
        if (answer.status !== 200) continue;
        let plain: Buffer | undefined = bytes;
        if (damage) {
          try {
            plain = gunzipSync(wire);
          } catch {
            plain = undefined;
          }
        }
        const held = plain === undefined ? undefined : spansHeld(plain, encoding);
        const got = exports[before];
        if (held === undefined) failures.push(`${label}: 200 for a body this test cannot read as an export`);
        else if (got === undefined || got.accepted + got.rejected !== held) failures.push(`${label}: ${got?.accepted} accepted + ${got?.rejected} refused spans, the body holds ${held}`);
        if (encoding === 'json' && plain !== undefined) {
          // Every time stored is one the body holds, digit for digit (a rounded one is not).
          const sent = new Set(timesIn(plain.toString('utf8')));
          const line = await storedLine(out, before);
          if (line === undefined) failures.push(`${label}: its export was not stored within 5 s`);
          const wrong = timesIn(line ?? '').filter((t) => !sent.has(t));
          if (wrong.length > 0) failures.push(`${label}: stored times the body does not hold: ${wrong.slice(0, 3).join(', ')}`);
        }
      }
      // The untouched samples are still accepted.
      for (const b of BODIES) {
        const a = await post(port, b.bytes, { 'content-type': CONTENT_TYPE[b.encoding] });
        if (a.status !== 200) failures.push(`the untouched ${b.name}: HTTP ${a.status}`);
      }
    } finally {
      await receiver.stop();
    }
    const summary = receiver.snapshot();
    if (summary.refused['500'] !== undefined) failures.push(`${summary.refused['500']} request(s) answered 500`);
    if (summary.incomplete_requests !== cut) failures.push(`${summary.incomplete_requests} request(s) counted as cut off, ${cut} were`);
    let stored = 0;
    for (const [i, line] of fs.readFileSync(out, 'utf8').split('\n').entries()) {
      if (line === '') continue;
      const held = spansHeld(Buffer.from(line, 'utf8'), 'json');
      if (held === undefined) failures.push(`stored line ${i + 1} is not an export`);
      else stored += held;
    }
    if (stored !== summary.accepted_spans) failures.push(`${stored} spans stored, ${summary.accepted_spans} accepted`);
    process.stdout.write(`      receiver fuzz: ${CASES} bodies, answers ${JSON.stringify(statuses)}, ${cut} cut off mid-body, ${summary.accepted_spans} spans accepted and stored\n`);
    assert.deepStrictEqual(failures, []);
    // The cases must reach the decoder, not only its refusals (a flipped byte breaks most JSON).
    assert.ok((statuses['200'] ?? 0) >= CASES / 8, `only ${statuses['200'] ?? 0} of ${CASES} bodies were accepted`);
  });
});
