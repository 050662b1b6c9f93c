/**
 * A source line compiled once into literal text and holes, so that thousands of copies are written
 * by concatenation (no JSON.parse or JSON.stringify per copy). Holes are the values a copy changes:
 * trace IDs, span IDs, timestamps, per-request IDs and offsets. The literal text is the source's own
 * (its JSON is compact and survives a parse/stringify round trip unchanged; the replicator checks).
 */

/** What a hole holds (and how a copy rewrites it). */
export type HoleKind =
  | 'trace' // a W3C trace ID (OTLP traceId, k6 metadata/tag trace_id, records trace_id)
  | 'span' // a span ID (spanId, parentSpanId)
  | 'epochNs' // OTLP *UnixNano
  | 'rfc3339' // k6 data.time
  | 'offsetMs' // records *_offset_ms
  | 'request' // a per-request ID (records request_id and the span attribute that carries it)
  | 'vus'; // the value of a k6 vus gauge Point

export interface Hole {
  kind: HoleKind;
  /** The source value: a string's content (without quotes) or a number's JSON text. */
  value: string;
  /** Whether the value is a JSON string (written back with quotes) or a number (bare). */
  quoted: boolean;
}

/** Alternating literal text and holes: parts[0], holes[0], parts[1], …, parts[n]. */
export interface LineTemplate {
  parts: string[];
  holes: Hole[];
}

/** Decides which values of a parsed line are holes: the kind for (key, value), or undefined. */
export type HoleRule = (key: string, value: string | number) => HoleKind | undefined;

/** Compiles a parsed line (or one element of it, e.g. a span) into a template; `rule` picks the holes. */
export function compileTemplate(value: unknown, rule: HoleRule): LineTemplate {
  const holes: Hole[] = [];
  // Each hole becomes the JSON string "\u0000pwN" (JSON.stringify escapes the NUL, which no compact
  // source line contains), then the text is split at those strings.
  const text = JSON.stringify(mark(value, rule, holes));
  const parts = text.split(/"\\u0000pw\d+"/);
  const order = [...text.matchAll(/"\\u0000pw(\d+)"/g)].map((m) => holes[Number(m[1])]);
  if (parts.length !== order.length + 1 || order.length !== holes.length) throw new Error('template markers did not split cleanly');
  return { parts, holes: order };
}

/** Writes a template with each hole's value replaced by `fill(hole)` (quoted again when it was a string). */
export function fillTemplate(t: LineTemplate, fill: (hole: Hole) => string): string {
  let out = t.parts[0];
  for (let i = 0; i < t.holes.length; i++) {
    const h = t.holes[i];
    out += (h.quoted ? `"${fill(h)}"` : fill(h)) + t.parts[i + 1];
  }
  return out;
}

function mark(value: unknown, rule: HoleRule, holes: Hole[]): unknown {
  if (Array.isArray(value)) return value.map((v) => mark(v, rule, holes));
  if (value === null || typeof value !== 'object') return value;
  const out: Record<string, unknown> = {};
  for (const [key, v] of Object.entries(value)) {
    const kind = typeof v === 'string' || typeof v === 'number' ? rule(key, v) : undefined;
    if (kind === undefined) {
      out[key] = mark(v, rule, holes);
    } else {
      holes.push({ kind, value: typeof v === 'string' ? v : JSON.stringify(v), quoted: typeof v === 'string' });
      out[key] = `\u0000pw${holes.length - 1}`;
    }
  }
  return out;
}
