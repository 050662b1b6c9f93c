/**
 * Where a probe's trace is fetched from: the embedded receiver, a Jaeger or Tempo query API, or a
 * span file a Collector writes. Each look returns the spans' digests (for polling and the
 * propagation check) and the documents to load into DuckDB for the reconciliation.
 */
import * as http from 'http';
import * as https from 'https';
import type { SpanDigest } from '../spans/digest';

/** A document that holds the trace, in a format the span readers load. */
export interface TraceDocument {
  /** `otlp`: an ExportTraceServiceRequest object per line (JSONL); `jaeger`: a query API response. */
  format: 'otlp' | 'jaeger';
  text: string;
}

export interface TraceLook {
  spans: SpanDigest[];
  documents: TraceDocument[];
  /** Why this look found nothing, when the backend says (HTTP 404, file missing). */
  note?: string;
}

/** Evidence a backend has about other traffic, for the reasons a trace may be missing. */
export interface BackendEvidence {
  /** Spans of any trace that arrived since the probe was sent (undefined: the backend cannot tell). */
  spansSinceSend?: number;
  /** Parentless SERVER roots that arrived since the probe was sent (a gateway that started its own trace). */
  parentlessRoots?: SpanDigest[];
}

export interface TraceBackend {
  /** For messages and the result: `receiver 127.0.0.1:4318`, `jaeger http://…/api/v3`. */
  readonly name: string;
  look(traceId: string, signal?: AbortSignal): Promise<TraceLook>;
  /** `sinceMs`: performance.now() when the probe was sent. */
  evidence?(sinceMs: number): BackendEvidence;
  /** Ingestion delay to mention: a query API indexes spans some seconds after they are exported. */
  readonly ingestNote?: string;
}

/** A GET that resolves with status and body (≤ 64 MiB), rejecting only on network failure. */
export function httpGet(url: URL, headers: Record<string, string>, timeoutMs: number, signal?: AbortSignal): Promise<{ status: number; body: string }> {
  const transport = url.protocol === 'https:' ? https : http;
  return new Promise((resolve, reject) => {
    const req = transport.get(url, { headers, signal, timeout: timeoutMs }, (res) => {
      const chunks: Buffer[] = [];
      let size = 0;
      res.on('data', (d: Buffer) => {
        size += d.length;
        if (size > 64 * 1024 * 1024) req.destroy(new Error('response over 64 MiB'));
        else chunks.push(d);
      });
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body: Buffer.concat(chunks).toString('utf8') }));
      res.on('error', reject);
    });
    req.on('timeout', () => req.destroy(new Error(`no answer within ${timeoutMs} ms`)));
    req.on('error', reject);
  });
}

/** `http://host:16686/` + `api/traces/ID`, keeping a path prefix the user gave (a UI behind /jaeger). */
export function joinUrl(base: string, tail: string): URL {
  const url = new URL(base);
  url.pathname = url.pathname.replace(/\/+$/, '') + tail;
  return url;
}

/** Parses JSON, or each line as JSON (grpc-gateway streams one `{"result":…}` object per chunk). */
export function parseJsonDocuments(text: string): unknown[] {
  try {
    return [JSON.parse(text)];
  } catch {
    const docs: unknown[] = [];
    for (const line of text.split(/\r?\n/)) {
      if (line.trim() === '') continue;
      try {
        docs.push(JSON.parse(line));
      } catch {
        // A line that is not JSON holds no spans; the look reports what it found.
      }
    }
    return docs;
  }
}
