/**
 * The receiver against what a client may send: the spec's status codes and bodies for each bad body,
 * and a valid export still accepted afterwards (the receiver never crashes). The valid bodies are
 * the real binary and JSON samples (shared/samples/otlp-protobuf); the bad ones are made from them.
 */
import { strict as assert } from 'assert';
import { readFileSync } from 'fs';
import * as http from 'http';
import * as path from 'path';
import { gzipSync } from 'zlib';
import { OtlpReceiver } from '../../../src/core/probe/receiver/receiver';
import { otlpTypes } from '../../../src/core/probe/receiver/otlpProto';
import { TraceIndex } from '../../../src/core/probe/receiver/traceIndex';
import { fixture } from '../../helpers/paths';

const PB = readFileSync(fixture('shared-samples', 'otlp-protobuf', 'grafana_grafana_pkg_tsdb_tempo_testData_tempo_proto_response.pb'));
const SMALL_PB = readFileSync(fixture('shared-samples', 'otlp-protobuf', 'smithclay_otlp2parquet_testdata_trace.pb'));

interface Answer {
  status: number;
  type: string;
  body: Buffer;
}

function post(address: string, body: Buffer, headers: Record<string, string>, pathname = '/v1/traces', method = 'POST'): Promise<Answer> {
  const [host, port] = address.split(':');
  return new Promise((resolve, reject) => {
    const req = http.request({ host, port, path: pathname, method, headers: { ...headers, 'content-length': String(body.length) } }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (d: Buffer) => chunks.push(d));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, type: String(res.headers['content-type']), body: Buffer.concat(chunks) }));
    });
    // A receiver that refuses early may close before the whole body is written: that is its right.
    req.on('error', (err: NodeJS.ErrnoException) => (err.code === 'EPIPE' || err.code === 'ECONNRESET' ? resolve({ status: -1, type: '', body: Buffer.alloc(0) }) : reject(err)));
    req.end(body);
  });
}

/** google.rpc.Status {code = 1, message = 2} decoded by hand (varint, length-delimited). */
function decodeStatus(buf: Buffer): { code: number; message: string } {
  assert.equal(buf[0], 0x08);
  const code = buf[1];
  assert.equal(buf[2], 0x12);
  let len = 0;
  let shift = 0;
  let i = 3;
  for (; ; i++) {
    len |= (buf[i] & 0x7f) << shift;
    shift += 7;
    if ((buf[i] & 0x80) === 0) break;
  }
  return { code, message: buf.subarray(i + 1, i + 1 + len).toString('utf8') };
}

describe('OTLP/HTTP receiver: bad bodies get the spec status, and the receiver keeps answering', function () {
  this.timeout(30_000);
  let receiver: OtlpReceiver;
  let index: TraceIndex;

  before(async () => {
    index = new TraceIndex();
    receiver = new OtlpReceiver({ host: '127.0.0.1', port: 0, sinks: [index] });
    await receiver.listen();
  });
  after(async () => {
    await receiver.stop();
  });

  const pbHeaders = { 'content-type': 'application/x-protobuf' };

  it('accepts the real Tempo protobuf response (30 spans) with 200 and an empty ExportTraceServiceResponse', async () => {
    const a = await post(receiver.address, PB, pbHeaders);
    assert.equal(a.status, 200);
    assert.equal(a.type, 'application/x-protobuf');
    assert.equal(a.body.length, 0);
    assert.equal(receiver.snapshot().accepted_spans, 30);
  });

  it('garbage → 400 with a protobuf Status (INVALID_ARGUMENT)', async () => {
    const a = await post(receiver.address, Buffer.from('this is not protobuf at all, just text \u00ff\u00fe'), pbHeaders);
    assert.equal(a.status, 400);
    const s = decodeStatus(a.body);
    assert.equal(s.code, 3);
    assert.match(s.message, /not a protobuf ExportTraceServiceRequest/);
  });

  it('truncated protobuf → 400', async () => {
    const a = await post(receiver.address, PB.subarray(0, Math.floor(PB.length * 0.6)), pbHeaders);
    assert.equal(a.status, 400);
    assert.match(decodeStatus(a.body).message, /index out of range|invalid wire type/);
  });

  it('a gzip bomb (64 MiB of zeros in ≈64 KiB) → 413, stopped while decompressing past 20 MiB', async () => {
    const bomb = gzipSync(Buffer.alloc(64 * 1024 * 1024), { level: 9 });
    const before = process.memoryUsage().rss;
    const a = await post(receiver.address, bomb, { ...pbHeaders, 'content-encoding': 'gzip' });
    assert.equal(a.status, 413);
    assert.match(decodeStatus(a.body).message, /after decompression/);
    assert.ok(process.memoryUsage().rss - before < 200 * 1024 * 1024);
  });

  it('a corrupt gzip body → 400', async () => {
    const gz = gzipSync(SMALL_PB);
    gz[gz.length - 6] ^= 0xff;
    const a = await post(receiver.address, gz.subarray(0, gz.length - 3), { ...pbHeaders, 'content-encoding': 'gzip' });
    assert.equal(a.status, 400);
  });

  it('30 MB → 413 (over the 20 MiB limit)', async () => {
    const a = await post(receiver.address, Buffer.alloc(30 * 1000 * 1000, 0x41), { 'content-type': 'application/json' });
    assert.ok(a.status === 413 || a.status === -1, `status ${a.status}`);
    if (a.status === 413) assert.equal(JSON.parse(a.body.toString()).code, 8);
  });

  it('wrong content type → 415; another path → 404; GET → 405', async () => {
    const a = await post(receiver.address, SMALL_PB, { 'content-type': 'text/plain' });
    assert.equal(a.status, 415);
    assert.match(JSON.parse(a.body.toString()).message, /expected application\/x-protobuf or application\/json/);
    assert.equal((await post(receiver.address, SMALL_PB, pbHeaders, '/v1/metrics')).status, 404);
    assert.equal((await post(receiver.address, Buffer.alloc(0), pbHeaders, '/v1/traces', 'GET')).status, 405);
  });

  it('JSON with one span whose traceId is all zeros → 200 with partial_success rejected_spans 1', async () => {
    const json = readFileSync(fixture('shared-samples', 'otlp-protobuf', 'smithclay_otlp2parquet_testdata_trace.json'), 'utf8');
    const doc = JSON.parse(json) as { resourceSpans: Array<{ scopeSpans: Array<{ spans: Array<{ traceId: string }> }> }> };
    const spans = doc.resourceSpans.flatMap((r) => r.scopeSpans.flatMap((s) => s.spans));
    spans[0].traceId = '00000000000000000000000000000000';
    const a = await post(receiver.address, Buffer.from(JSON.stringify(doc)), { 'content-type': 'application/json' });
    assert.equal(a.status, 200);
    const body = JSON.parse(a.body.toString()) as { partialSuccess: { rejectedSpans: string; errorMessage: string } };
    assert.equal(body.partialSuccess.rejectedSpans, '1');
    assert.match(body.partialSuccess.errorMessage, /traceId/);
  });

  it('still accepts a valid export after all of that, and decodes it as the JSON twin says', async () => {
    const beforeSpans = receiver.snapshot().accepted_spans;
    const a = await post(receiver.address, gzipSync(SMALL_PB), { ...pbHeaders, 'content-encoding': 'gzip' });
    assert.equal(a.status, 200);
    assert.equal(receiver.snapshot().accepted_spans, beforeSpans + 2);
    // The JSON twin (base64 IDs) names the same trace: its ID decoded by hand from base64.
    const twin = JSON.parse(readFileSync(fixture('shared-samples', 'otlp-protobuf', 'smithclay_otlp2parquet_testdata_trace.json'), 'utf8')) as {
      resourceSpans: Array<{ scopeSpans: Array<{ spans: Array<{ traceId: string; name: string }> }> }>;
    };
    const first = twin.resourceSpans[0].scopeSpans[0].spans[0];
    const hex = Buffer.from(first.traceId, 'base64').toString('hex');
    assert.ok(index.trace(hex)?.spans.some((s) => s.name === first.name));
    const s = receiver.snapshot();
    assert.ok((s.refused['400'] ?? 0) >= 3 && (s.refused['413'] ?? 0) >= 1 && s.refused['415'] === 1 && s.refused['404'] === 1);
  });

  it('the protobuf decoder is the generated opentelemetry-proto type (round trip of the sample)', () => {
    const { ExportTraceServiceRequest } = otlpTypes();
    const again = ExportTraceServiceRequest.encode(ExportTraceServiceRequest.decode(SMALL_PB)).finish();
    assert.deepEqual(Buffer.from(again), SMALL_PB);
    assert.ok(path.basename(require.resolve('@opentelemetry/otlp-transformer/build/src/generated/root.js')) === 'root.js');
  });
});
