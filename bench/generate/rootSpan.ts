import type { Attr, ExportFate, Outcome, RequestTruth, SpanTruth } from './truth';

const ROUTE = '/v1/chat/completions';

/**
 * The gateway's SERVER span, with HTTP semantic-convention attributes. Its parent is the k6 client
 * span, which is never exported (docs/metrics.md §3.3). Status ERROR only for 5xx: a SERVER span does not
 * mark 4xx as errors (OpenTelemetry HTTP semantic conventions).
 */
export function rootSpan(spanId: string, startNs: number, endNs: number, status: number, r: RequestTruth, tls: boolean): SpanTruth {
  const route = r.routePath ?? ROUTE;
  const attrs: Attr[] = [
    ['http.request.method', 's', 'POST'],
    ['http.route', 's', route],
    ['url.path', 's', route],
    ['url.scheme', 's', tls ? 'https' : 'http'],
    ['server.address', 's', 'localhost'],
    ['server.port', 'i', tls ? 8443 : 8080],
    ['network.protocol.version', 's', '1.1'],
    ['http.response.status_code', 'i', status],
    ['llm.request_id', 's', r.requestId],
    ['llm.stream', 'b', r.streaming],
  ];
  if (status >= 500) attrs.push(['error.type', 's', String(status)]);
  return { spanId, name: `POST ${route}`, kind: 2, startNs, endNs, attrs, events: [], statusCode: status >= 500 ? 2 : 0 };
}

/** docs/metrics.md §2 classification of an HTTP status. */
export function outcomeFor(status: number): Outcome {
  if (status >= 200 && status < 300) return 'succeeded';
  if (status === 429 || status === 503) return 'rejected';
  return 'failed';
}

/** One uniform draw decides a trace's fate: lost entirely, root lost, or exported whole. */
export function exportFate(u: number, lostTrace: number, lostRoot: number): ExportFate {
  if (u < lostTrace) return 'none';
  if (u < lostTrace + lostRoot) return 'no-root';
  return 'full';
}
