/**
 * Files that look like a span format but are not one Phasewise reads: a single Zipkin span object, a
 * lone Jaeger span, a service dependency graph, Zipkin v1. The sniffer (sniff.ts) asks here before it
 * gives up, so the error says what was seen and what is accepted instead of listing every format.
 */

/** What a near miss was, and what Phasewise accepts in its place. */
export interface NearMiss {
  expected: string;
  found: string;
}

const SPAN_FILES = 'span files: OTLP JSON, Jaeger JSON ({"data":[{traceID, spans, processes}]}) or Zipkin v2 JSON ([{traceId, id, …}, …])';

function has(head: string, key: string): boolean {
  return new RegExp(`"${key}"\\s*:`).test(head);
}

/** `trimmed` is the file's (decompressed) head without leading space; undefined when it is no near miss. */
export function nearMiss(trimmed: string): NearMiss | undefined {
  const list = trimmed.startsWith('[');
  if (has(trimmed, 'parent') && has(trimmed, 'child') && has(trimmed, 'callCount') && !has(trimmed, 'spans') && !has(trimmed, 'traceId')) {
    return {
      expected: SPAN_FILES,
      found: 'a service dependency graph (Jaeger or Zipkin dependencies: parent, child, callCount), which holds no spans',
    };
  }
  if (has(trimmed, 'binaryAnnotations') || (has(trimmed, 'annotations') && has(trimmed, 'endpoint') && has(trimmed, 'serviceName') && !has(trimmed, 'localEndpoint'))) {
    return { expected: 'Zipkin v2 JSON ([{traceId, id, timestamp, duration, localEndpoint, …}, …]); convert v1 with Zipkin\'s own tools', found: 'Zipkin v1 JSON (annotations with endpoints, binaryAnnotations)' };
  }
  if (!list && has(trimmed, 'traceId') && has(trimmed, 'id') && !has(trimmed, 'resourceSpans')) {
    return { expected: 'Zipkin v2 JSON: a list of spans ([{traceId, id, …}, …])', found: 'a single Zipkin span object (not in a list)' };
  }
  if (has(trimmed, 'traceID') && has(trimmed, 'spanID') && !has(trimmed, 'spans')) {
    return {
      expected: 'Jaeger JSON: a trace {traceID, spans, processes}, or {"data":[trace, …]} (the query API, the UI download)',
      found: list ? 'a list of Jaeger span objects without their trace' : 'a single Jaeger span object without its trace',
    };
  }
  return undefined;
}
