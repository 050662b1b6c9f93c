/**
 * The embedded OTLP/HTTP trace receiver (https://opentelemetry.io/docs/specs/otlp/#otlphttp):
 * `POST /v1/traces` with `application/x-protobuf` or `application/json`, optionally
 * `Content-Encoding: gzip`. Answers as the spec says:
 * - 200 with an ExportTraceServiceResponse (in the request's encoding), `partial_success` with
 *   `rejected_spans` and a message when some spans were refused;
 * - 400 with a google.rpc.Status for a body that cannot be decoded (bad gzip, bad protobuf, bad JSON);
 * - 413 when the body passes the limit (20 MiB by default) after decompression, checked while reading;
 * - 415 for other content types or encodings; 405 for other methods on /v1/traces; 404 elsewhere;
 * - 503 with Retry-After while storage is behind, or when a sink could not store the export
 *   (retryable: the exporter sends it again). 200 is answered only once every sink stored the export:
 *   an acknowledged span is a stored span.
 * A handler never throws past its request: whatever a client sends, the receiver keeps answering.
 */
import { EventEmitter } from 'events';
import * as http from 'http';
import type { AddressInfo } from 'net';
import { performance } from 'perf_hooks';
import { createGunzip } from 'zlib';
import { exportLines } from './exportLines';
import { decodeJsonExport, decodeProtobufExport, UndecodableError, type DecodedExport } from './otlpDecode';
import { storageFailure } from './storageFailure';
import {
  encodeExportResponse, encodeStatus, exportResponseJson, statusJson,
  RPC_INTERNAL, RPC_INVALID_ARGUMENT, RPC_RESOURCE_EXHAUSTED, RPC_UNAVAILABLE,
} from './otlpProto';
import type { SpanSink } from './sinks';
import type { ReceiverEvent, ReceiverSummary } from './events';

export const DEFAULT_MAX_BODY_BYTES = 20 * 1024 * 1024;

/**
 * Limits that keep a connection from holding one of the receiver's MAX_CONNECTIONS without exporting.
 * Node's own timeouts (checked every CHECK_MS) close a connection whose headers or request take too
 * long, but not one that is idle: connected and silent, or stopped mid-headers (measured on Node 20:
 * neither was closed in 15 s), so 300 of them kept every export out for 90 s and more. A socket with
 * no bytes for IDLE_MS is closed unless its request is being handled (an export being stored sends
 * nothing while it waits: that is not idleness).
 */
const MAX_CONNECTIONS = 256;
const IDLE_MS = 5_000;
const HEADERS_MS = 10_000;
const REQUEST_MS = 30_000;
const KEEP_ALIVE_MS = 5_000;
const CHECK_MS = 1_000;
export const DEFAULT_LISTEN = { host: '127.0.0.1', port: 4318 };

export interface ReceiverOptions {
  host?: string;
  /** 0 picks a free port (tests). */
  port?: number;
  maxBodyBytes?: number;
  /** Storage backlog above which exports are refused with 503 (default 64 MiB). */
  maxBacklogBytes?: number;
  sinks: SpanSink[];
  /** Strings that must never be stored (the probe's API token): replaced by `[REDACTED]` in every line. */
  redact?: readonly string[];
  /** How long a request may take to arrive whole (default 30 s; tests shorten it). */
  requestTimeoutMs?: number;
}

/** The client closed the connection, or stalled past the request timeout, before its body was complete: nothing to answer. */
class ClientGone extends Error {}

type Encoding = 'protobuf' | 'json';

/** A refusal, answered with a Status body in the request's encoding. */
class Refusal extends Error {
  constructor(
    readonly status: number,
    readonly rpcCode: number,
    message: string,
    readonly retryAfterS?: number,
  ) {
    super(message);
  }
}

export class OtlpReceiver extends EventEmitter<{ event: [ReceiverEvent] }> {
  private server: http.Server | undefined;
  private readonly started = performance.now();
  private readonly summary: ReceiverSummary = {
    address: '', requests: 0, exports_accepted: 0, accepted_spans: 0, rejected_spans: 0,
    refused: {}, incomplete_requests: 0, bytes_received: 0, redactions: 0, duration_s: 0, stored: [], not_stored: {},
  };

  constructor(private readonly options: ReceiverOptions) {
    super();
  }

  /** Starts listening; resolves with `host:port`. */
  async listen(): Promise<string> {
    // Sockets whose request is being handled (from the request to its answer): never idle.
    const busy = new WeakSet<object>();
    // Tests shorten the request timeout; Node ignores one shorter than the headers timeout.
    const requestTimeout = this.options.requestTimeoutMs ?? REQUEST_MS;
    const server = http.createServer(
      { headersTimeout: Math.min(HEADERS_MS, requestTimeout), requestTimeout, keepAliveTimeout: KEEP_ALIVE_MS, connectionsCheckingInterval: Math.min(CHECK_MS, requestTimeout) },
      (req, res) => {
        busy.add(req.socket);
        res.on('close', () => busy.delete(req.socket));
        void this.handle(req, res);
      },
    );
    // Limits: a slow, stuck or silent client cannot hold the receiver (see IDLE_MS).
    server.maxHeadersCount = 100;
    server.maxConnections = MAX_CONNECTIONS;
    server.timeout = IDLE_MS;
    server.on('timeout', (socket: import('net').Socket) => {
      if (!busy.has(socket)) socket.destroy();
    });
    // A bad request line or headers, or one past its timeout: answered, then the socket is closed
    // (ending our side only left it open as long as the client kept writing: a trickle of headers held
    // its connection forever).
    server.on('clientError', (err: NodeJS.ErrnoException, socket) => {
      // A request that did not arrive whole in time is the client's (408), not a malformed one (400).
      const status = err.code === 'ERR_HTTP_REQUEST_TIMEOUT' ? '408 Request Timeout' : '400 Bad Request';
      if (socket.writable) socket.end(`HTTP/1.1 ${status}\r\nConnection: close\r\nContent-Length: 0\r\n\r\n`, () => socket.destroy());
      else socket.destroy();
    });
    this.server = server;
    const { host = DEFAULT_LISTEN.host, port = DEFAULT_LISTEN.port } = this.options;
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(port, host, () => {
        server.off('error', reject);
        resolve();
      });
    });
    // After listening, a server error (EMFILE, say) is reported, never thrown.
    server.on('error', (err) => this.emit('event', { type: 'error', message: err.message }));
    const addr = server.address() as AddressInfo;
    this.summary.address = `${addr.family === 'IPv6' ? `[${addr.address}]` : addr.address}:${addr.port}`;
    this.emit('event', { type: 'listening', address: this.summary.address });
    return this.summary.address;
  }

  get address(): string {
    return this.summary.address;
  }

  /** Stops accepting, lets requests in flight finish, flushes and closes every sink; returns the summary. */
  async stop(): Promise<ReceiverSummary> {
    const server = this.server;
    this.server = undefined;
    if (server) {
      await new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeIdleConnections();
        // Exporters that keep a connection open mid-request get 2 s, then are cut.
        setTimeout(() => server.closeAllConnections(), 2000).unref();
      });
    }
    for (const sink of this.options.sinks) {
      await sink.flush();
      await sink.close();
    }
    this.summary.duration_s = (performance.now() - this.started) / 1000;
    // A sink that failed every export stored nothing (an accepted export is in every sink).
    const storedAny = (label: string): boolean => this.summary.exports_accepted > 0 || this.summary.not_stored[label] === undefined;
    this.summary.stored = this.options.sinks.filter((s) => s.label !== 'memory' && storedAny(s.label)).map((s) => s.label);
    this.emit('event', { type: 'stopped', summary: this.summary });
    return this.summary;
  }

  snapshot(): ReceiverSummary {
    return { ...this.summary, refused: { ...this.summary.refused }, not_stored: { ...this.summary.not_stored }, duration_s: (performance.now() - this.started) / 1000 };
  }

  private async handle(req: http.IncomingMessage, res: http.ServerResponse): Promise<void> {
    this.summary.requests++;
    let encoding: Encoding = 'json';
    try {
      const pathname = (req.url ?? '/').split('?')[0];
      if (pathname !== '/v1/traces') throw new Refusal(404, 5, `no such endpoint ${pathname.slice(0, 100)}: this receiver serves POST /v1/traces`);
      if (req.method !== 'POST') {
        res.setHeader('allow', 'POST');
        throw new Refusal(405, 12, `method ${req.method}: /v1/traces accepts POST`);
      }
      const type = String(req.headers['content-type'] ?? '').split(';')[0].trim().toLowerCase();
      if (type === 'application/x-protobuf' || type === 'application/protobuf') encoding = 'protobuf';
      else if (type !== 'application/json') {
        throw new Refusal(415, RPC_INVALID_ARGUMENT, `content type '${type.slice(0, 100)}': expected application/x-protobuf or application/json`);
      }
      const contentEncoding = String(req.headers['content-encoding'] ?? 'identity').trim().toLowerCase();
      if (contentEncoding !== 'gzip' && contentEncoding !== 'identity' && contentEncoding !== '') {
        throw new Refusal(415, RPC_INVALID_ARGUMENT, `content encoding '${contentEncoding.slice(0, 50)}': expected gzip or none`);
      }
      this.refuseWhenBehind();
      const body = await this.readBody(req, contentEncoding === 'gzip');
      const decoded = encoding === 'protobuf' ? decodeProtobufExport(body) : decodeJsonExport(body);
      const { rejected, reasons } = await this.accept(decoded, encoding, body.length);
      const message = rejected > 0 ? `${rejected} span(s) refused: ${reasons.join('; ')}` : '';
      if (encoding === 'protobuf') send(res, 200, 'application/x-protobuf', encodeExportResponse(rejected, message));
      else send(res, 200, 'application/json', exportResponseJson(rejected, message));
    } catch (err) {
      if (err instanceof ClientGone) {
        // Not a server error, and no one to answer: counted apart from the refusals.
        this.summary.incomplete_requests++;
        res.destroy();
        return;
      }
      const refusal =
        err instanceof Refusal
          ? err
          : err instanceof UndecodableError
            ? new Refusal(400, RPC_INVALID_ARGUMENT, err.message.slice(0, 300))
            : new Refusal(500, RPC_INTERNAL, `internal error: ${err instanceof Error ? err.message : String(err)}`);
      this.refuse(req, res, refusal, encoding);
    }
  }

  private refuseWhenBehind(): void {
    for (const sink of this.options.sinks) {
      if (sink.backlogBytes() > (this.options.maxBacklogBytes ?? 64 * 1024 * 1024)) {
        throw new Refusal(503, RPC_UNAVAILABLE, `storage is behind (${sink.label}); retry later`, 1);
      }
    }
  }

  /** Reads the body, gunzipping as it arrives; refuses with 413 as soon as it passes the limit. */
  private readBody(req: http.IncomingMessage, gzip: boolean): Promise<Buffer> {
    const limit = this.options.maxBodyBytes ?? DEFAULT_MAX_BODY_BYTES;
    const declared = Number(req.headers['content-length']);
    if (Number.isFinite(declared) && declared > limit) {
      return Promise.reject(new Refusal(413, RPC_RESOURCE_EXHAUSTED, `body of ${declared} bytes is over the limit of ${limit} bytes`));
    }
    return new Promise<Buffer>((resolve, reject) => {
      const chunks: Buffer[] = [];
      let size = 0;
      let done = false;
      const fail = (err: Error): void => {
        if (done) return;
        done = true;
        source.removeAllListeners('data');
        if (gunzip) gunzip.destroy();
        reject(err);
      };
      const gunzip = gzip ? createGunzip() : undefined;
      const source: NodeJS.ReadableStream = gunzip ?? req;
      let raw = 0;
      req.on('data', (d: Buffer) => {
        raw += d.length;
        this.summary.bytes_received += d.length;
        if (raw > limit) fail(new Refusal(413, RPC_RESOURCE_EXHAUSTED, `body is over the limit of ${limit} bytes`));
      });
      req.on('error', () => fail(new ClientGone('the connection failed before the body was complete')));
      req.on('aborted', () => fail(new ClientGone('the client closed the connection (or stalled) before the body was complete')));
      if (gunzip) {
        req.pipe(gunzip);
        gunzip.on('error', () => fail(new UndecodableError('the gzip body could not be decompressed (corrupt or truncated)')));
      }
      source.on('data', (d: Buffer) => {
        if (done) return;
        size += d.length;
        if (size > limit) {
          fail(new Refusal(413, RPC_RESOURCE_EXHAUSTED, `body is over the limit of ${limit} bytes after decompression`));
          return;
        }
        chunks.push(d);
      });
      source.on('end', () => {
        if (done) return;
        done = true;
        resolve(Buffer.concat(chunks, size));
      });
    });
  }

  /**
   * Stores the export in every sink (its lines cut by exportLines.ts) and resolves with the spans
   * refused, once all of them stored it; throws a 503 Refusal when one could not (the export counts as
   * not received, and the exporter sends it again).
   */
  private async accept(decoded: DecodedExport, encoding: Encoding, bytes: number): Promise<{ rejected: number; reasons: string[] }> {
    const cut = exportLines(decoded);
    const reasons = [...decoded.rejectReasons];
    if (cut.oversized > 0) reasons.push('a span is larger than the receiver stores (4 MiB as JSON)');
    const rejected = decoded.rejected + cut.oversized;
    let redacted = 0;
    const lines = cut.lines.map((original) => {
      let line = original;
      for (const secret of this.options.redact ?? []) {
        if (secret.length >= 4 && line.includes(secret)) {
          const parts = line.split(secret);
          redacted += parts.length - 1;
          line = parts.join('[REDACTED]');
        }
      }
      return line;
    });
    const batch = { lines, spans: cut.spans, lineOfSpan: cut.lineOfSpan, receivedAtMs: performance.now() };
    const results = await Promise.allSettled(this.options.sinks.map((sink) => sink.write(batch)));
    const failed: string[] = [];
    for (const [i, r] of results.entries()) {
      if (r.status === 'fulfilled') continue;
      const sink = this.options.sinks[i];
      const reason = storageFailure(r.reason);
      const entry = (this.summary.not_stored[sink.label] ??= { exports: 0, spans: 0, reason });
      entry.exports++;
      entry.spans += cut.spans.length;
      entry.reason = reason;
      failed.push(`${sink.label}: ${reason}`);
      this.emit('event', { type: 'error', message: `${sink.label}: an export of ${cut.spans.length} span(s) was not stored (${reason}); answered 503` });
    }
    if (failed.length > 0) throw new Refusal(503, RPC_UNAVAILABLE, `storage failed (${failed.join('; ')}); retry later`, 2);
    if (redacted > 0) {
      this.summary.redactions += redacted;
      this.emit('event', { type: 'redacted', count: redacted });
    }
    this.summary.exports_accepted++;
    this.summary.accepted_spans += cut.spans.length;
    this.summary.rejected_spans += rejected;
    const traces = [...new Set(cut.spans.map((s) => s.traceId))];
    this.emit('event', { type: 'export', encoding, bytes, accepted: cut.spans.length, rejected, traceIds: traces });
    return { rejected, reasons };
  }

  private refuse(req: http.IncomingMessage, res: http.ServerResponse, refusal: Refusal, encoding: Encoding): void {
    const key = String(refusal.status);
    this.summary.refused[key] = (this.summary.refused[key] ?? 0) + 1;
    this.emit('event', { type: 'refused', status: refusal.status, reason: refusal.message });
    if (res.headersSent) {
      res.destroy();
      return;
    }
    // An unread body would be drained by Node for keep-alive; a refused one is not worth reading.
    if (!req.complete) res.setHeader('connection', 'close');
    if (refusal.retryAfterS !== undefined) res.setHeader('retry-after', String(refusal.retryAfterS));
    if (encoding === 'protobuf') send(res, refusal.status, 'application/x-protobuf', encodeStatus(refusal.rpcCode, refusal.message));
    else send(res, refusal.status, 'application/json', statusJson(refusal.rpcCode, refusal.message));
    if (!req.complete) res.on('finish', () => req.destroy());
  }
}

function send(res: http.ServerResponse, status: number, type: string, body: string | Uint8Array): void {
  res.writeHead(status, { 'content-type': type, 'content-length': Buffer.byteLength(body) });
  res.end(body);
}
