/**
 * One chat-completion request timed on one monotonic clock (`performance.now()`): DNS, connect, TLS,
 * request written, first byte, first and last content event, end. A fresh connection per request
 * (no agent, no keep-alive) so that DNS, connect and TLS are measured every time, as a k6 run with
 * `noConnectionReuse` would. Timeouts, resets, refusals and cancellations resolve as outcomes (the
 * ledger's classes); this function never rejects for a network reason.
 */
import * as http from 'http';
import * as https from 'https';
import { isIP } from 'net';
import { performance } from 'perf_hooks';
import { outcomeForHttpStatus, type Outcome } from '../../formats/client/outcome';
import type { ClientMarks, ClientTimings, ProbeSend } from '../result';
import { chatRequestBody, chatRequestUrl, displayUrl, DEFAULT_PROMPT_SHAPE, type ChatRequestSpec } from './chatRequest';
import { isObject, readChatChunk, readUsage, outputChars, SseParser } from './sse';
import { formatTraceparent, generateTraceparent, type Traceparent } from './traceparent';

export const ITL_DEFINITION = 'mean interval between consecutive content events after the first one (TTFT excluded): (last − first) / (events − 1)';

/** Bodies past this are not read further (a probe's answer is small; a runaway stream is cut). */
const MAX_BODY_BYTES = 16 * 1024 * 1024;

export interface TimedRequestOptions extends ChatRequestSpec {
  /** Sent as `Authorization: Bearer …`; never returned, logged or stored. */
  apiToken?: string;
  /** The whole request (connect to end of body); past it the outcome is timed_out. */
  timeoutMs: number;
  traceparent?: Traceparent;
  /** Aborting resolves the request as canceled. */
  signal?: AbortSignal;
  /** Accept self-signed certificates (a local gateway); off by default. */
  insecure?: boolean;
}

interface Collected {
  status: number | null;
  contentType: string;
  contentEvents: number[];
  parseErrors: number;
  completionTokens?: number;
  promptTokens?: number;
  errorMessage?: string;
  retryAfter?: string;
  bodyCut: boolean;
}

/** Sends one request and resolves with what happened; `Date.now()` is read once, for the record's start time only. */
export function sendTimedRequest(options: TimedRequestOptions): Promise<ProbeSend> {
  const tp = options.traceparent ?? generateTraceparent();
  const url = chatRequestUrl(options);
  const body = Buffer.from(chatRequestBody(options), 'utf8');
  const headers: http.OutgoingHttpHeaders = {
    'content-type': 'application/json',
    accept: options.stream ? 'text/event-stream' : 'application/json',
    'content-length': body.length,
    traceparent: formatTraceparent(tp),
    'user-agent': 'phasewise-probe',
  };
  if (options.apiToken) headers.authorization = `Bearer ${options.apiToken}`;

  const started = performance.now();
  const startedEpoch = Date.now();
  const at = (): number => performance.now() - started;
  const marks: ClientMarks = {
    dns_done: null, connected: null, tls_done: null, send_start: null, request_written: null,
    first_byte: null, first_content: null, last_content: null, end: null,
  };
  const got: Collected = { status: null, contentType: '', contentEvents: [], parseErrors: 0, bodyCut: false };

  return new Promise<ProbeSend>((resolve) => {
    let settled = false;
    const finish = (outcome: Outcome, detail: string): void => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      options.signal?.removeEventListener('abort', onAbort);
      req.destroy();
      resolve(toProbeSend(options, tp, url, startedEpoch, outcome, detail, marks, got));
    };
    const transport = url.protocol === 'https:' ? https : http;
    const req = transport.request(url, {
      method: 'POST',
      headers,
      agent: false,
      rejectUnauthorized: !options.insecure,
    });
    const timer = setTimeout(() => finish('timed_out', `no complete response within ${options.timeoutMs} ms`), options.timeoutMs);
    const onAbort = (): void => finish('canceled', 'canceled by the user');
    if (options.signal?.aborted) {
      queueMicrotask(onAbort);
    } else {
      options.signal?.addEventListener('abort', onAbort, { once: true });
    }

    req.on('socket', (socket) => {
      socket.once('lookup', () => (marks.dns_done = at()));
      socket.once('connect', () => {
        marks.connected = at();
        if (url.protocol === 'http:') marks.send_start = marks.connected;
      });
      socket.once('secureConnect', () => {
        marks.tls_done = at();
        marks.send_start = marks.tls_done;
      });
    });
    req.on('finish', () => (marks.request_written = at()));
    req.on('error', (err) => finish(...classifyError(err, got.status)));
    req.on('response', (res) => {
      marks.first_byte = at();
      got.status = res.statusCode ?? 0;
      got.contentType = String(res.headers['content-type'] ?? '');
      if (typeof res.headers['retry-after'] === 'string') got.retryAfter = res.headers['retry-after'];
      const sse = /text\/event-stream/i.test(got.contentType);
      const chunks: Buffer[] = [];
      let bytes = 0;
      const parser = new SseParser((event) => {
        if (event.data === '[DONE]') return;
        const chunk = readChatChunk(event.data);
        if (!chunk) {
          got.parseErrors++;
          return;
        }
        if (chunk.contentChars > 0) {
          marks.first_content ??= event.atMs;
          marks.last_content = event.atMs;
          got.contentEvents.push(event.atMs);
        }
        if (chunk.completionTokens !== undefined) got.completionTokens = chunk.completionTokens;
        if (chunk.promptTokens !== undefined) got.promptTokens = chunk.promptTokens;
        if (chunk.error) got.errorMessage = chunk.error;
      });
      res.on('data', (data: Buffer) => {
        const now = at();
        bytes += data.length;
        if (bytes > MAX_BODY_BYTES) {
          got.bodyCut = true;
          finish('failed', `the response body passed ${MAX_BODY_BYTES / 1_048_576} MiB; the probe stopped reading`);
          return;
        }
        if (sse) parser.push(data, now);
        else chunks.push(data);
      });
      res.on('end', () => {
        marks.end = at();
        if (!sse) readJsonBody(Buffer.concat(chunks), got, marks);
        const outcome = outcomeForHttpStatus(got.status ?? 0);
        finish(outcome, statusDetail(got, res.statusMessage));
      });
      res.on('aborted', () => finish('transport_failed', `the connection closed after the ${got.status} headers, before the body ended`));
      res.on('error', (err) => finish(...classifyError(err, got.status)));
    });
    req.end(body);
  });
}

/** A non-streaming body: output chars, usage, or the server's error message. Not kept. */
function readJsonBody(body: Buffer, got: Collected, marks: ClientMarks): void {
  let doc: unknown;
  try {
    doc = JSON.parse(body.toString('utf8'));
  } catch {
    if (body.length > 0 && got.status !== null && got.status < 400) got.parseErrors++;
    return;
  }
  if (!isObject(doc)) return;
  readUsage(doc.usage, got);
  if (isObject(doc.error) && typeof doc.error.message === 'string') got.errorMessage = doc.error.message;
  const choices = Array.isArray(doc.choices) ? doc.choices : [];
  const chars = choices.reduce<number>((n, c) => n + (isObject(c) && isObject(c.message) ? outputChars(c.message) : 0), 0);
  // One body, one "event": content arrived with the body's end; ITL is not defined.
  if (chars > 0 && marks.end !== null) got.contentEvents.push(marks.end);
}

function statusDetail(got: Collected, statusMessage: string | undefined): string {
  const parts = [`HTTP ${got.status}${statusMessage ? ` ${statusMessage}` : ''}`];
  if (got.retryAfter !== undefined) parts.push(`Retry-After: ${clean(got.retryAfter)}`);
  if (got.errorMessage !== undefined) parts.push(`server says: ${clean(got.errorMessage)}`);
  return parts.join('; ');
}

/** Error text from a server may hold anything: one line, printable, bounded. */
function clean(text: string): string {
  // eslint-disable-next-line no-control-regex
  const flat = text.replace(/[\u0000-\u001f\u007f-\u009f]+/g, ' ').trim();
  return flat.length > 200 ? `${flat.slice(0, 199)}…` : flat;
}

/** Network errors → the ledger's class and a plain reason (docs/metrics.md §2: no status → transport_failed). */
export function classifyError(err: unknown, status: number | null): [Outcome, string] {
  const code = typeof err === 'object' && err !== null && 'code' in err ? String((err as { code: unknown }).code) : '';
  const after = status !== null ? ` after the ${status} headers` : '';
  switch (code) {
    case 'ECONNREFUSED':
      return ['transport_failed', 'connection refused (nothing listens on that port)'];
    case 'ECONNRESET':
    case 'EPIPE':
      return ['transport_failed', `connection reset by the server${after}`];
    case 'ENOTFOUND':
    case 'EAI_AGAIN':
    case 'EAI_FAIL':
      return ['transport_failed', `DNS lookup failed (${code})`];
    case 'ETIMEDOUT':
      return ['timed_out', 'the connection attempt timed out (ETIMEDOUT)'];
    case 'EHOSTUNREACH':
    case 'ENETUNREACH':
      return ['transport_failed', `host unreachable (${code})`];
    default:
      if (/^(ERR_TLS|ERR_SSL|CERT_|UNABLE_TO|DEPTH_ZERO|SELF_SIGNED|EPROTO)/.test(code)) return ['transport_failed', `TLS failed (${code})`];
      return ['transport_failed', `${code || 'network error'}${after}`];
  }
}

function toProbeSend(
  options: TimedRequestOptions,
  tp: Traceparent,
  url: URL,
  startedEpoch: number,
  outcome: Outcome,
  detail: string,
  marks: ClientMarks,
  got: Collected,
): ProbeSend {
  const since = (from: number | null, to: number | null): number | null => (from === null || to === null ? null : to - from);
  const ipLiteral = isIP(url.hostname.replace(/^\[|\]$/g, '')) !== 0;
  const dns = ipLiteral ? null : marks.dns_done;
  const connectFrom = dns ?? 0;
  const events = got.contentEvents;
  const streamed = /text\/event-stream/i.test(got.contentType);
  const setup = [dns, since(connectFrom, marks.connected), since(marks.connected, marks.tls_done)];
  const client: ClientTimings = {
    total_ms: since(marks.send_start, marks.end),
    ttfb_ms: since(marks.send_start, marks.first_byte),
    ttft_ms: options.stream && streamed ? since(marks.send_start, marks.first_content) : null,
    dns_ms: dns,
    connect_ms: since(connectFrom, marks.connected),
    tls_ms: since(marks.connected, marks.tls_done),
    transport_setup_ms: marks.connected === null ? null : setup.reduce<number>((s, v) => s + (v ?? 0), 0),
    itl_ms: streamed && events.length >= 2 ? (events[events.length - 1] - events[0]) / (events.length - 1) : null,
    itl_definition: ITL_DEFINITION,
    content_events: events.length,
    content_parse_errors: got.parseErrors,
    output_tokens: got.completionTokens ?? (streamed && events.length > 0 ? events.length : null),
    output_tokens_source: got.completionTokens !== undefined ? 'usage' : streamed && events.length > 0 ? 'content_events' : null,
    input_tokens: got.promptTokens ?? null,
    marks,
  };
  return {
    trace_id: tp.traceId,
    traceparent: formatTraceparent(tp),
    parent_span_id: tp.parentId,
    url: displayUrl(url),
    model: options.model,
    stream: options.stream,
    prompt_shape_id: (options.shape ?? DEFAULT_PROMPT_SHAPE).id,
    outcome,
    outcome_detail: detail,
    http_status: got.status,
    started_epoch_ms: startedEpoch,
    client,
  };
}
