/**
 * SQL expression builders shared by the span readers (OTLP, Jaeger, Zipkin). Each takes a SQL
 * expression written by a reader (never user text) and returns a SQL expression, so that every
 * format normalises IDs, kinds, statuses and times the same way inside DuckDB.
 */

/** The staging table every span reader fills before `finishSpans` dedupes and publishes it. */
export const SPAN_STAGE_COLUMNS = `(
  line BIGINT,
  trace_id VARCHAR,
  span_id VARCHAR,
  parent_span_id VARCHAR,
  name VARCHAR,
  kind VARCHAR,
  service VARCHAR,
  start_ns BIGINT,
  end_ns BIGINT,
  status VARCHAR,
  attributes MAP(VARCHAR, VARCHAR),
  events STRUCT(name VARCHAR, time_ns BIGINT)[],
  otlp_attributes VARCHAR,
  follows_from BOOLEAN
)`;

/**
 * Which shorter hex IDs are left-padded with zeros: none (OTLP: IDs are exactly 16 or 8 bytes, and a
 * shorter one is reported as invalid), or any hex ID shorter than its size ('left-pad': Jaeger and
 * Zipkin). Jaeger writes an ID as a number in hex without its leading zeros (a 128-bit trace ID whose
 * first digit is 0 has 31 digits; a 64-bit one 16 or fewer), and Zipkin's own Span.normalizeTraceId pads
 * short IDs the same way, so padding gives back the ID a W3C traceparent carries.
 */
export type IdPadding = 'none' | 'left-pad';

/**
 * Normalises a trace or span ID to lower-case hex of `bytes` bytes:
 * - lower-case hex of the right length (the usual case) is kept as it is, checked first because it is hot;
 * - other hex of the right length is lower-cased;
 * - a shorter hex ID is left-padded to its size (IdPadding 'left-pad');
 * - padded base64 of exactly `bytes` bytes (the proto3 JSON mapping of `bytes` fields) is decoded;
 * - empty means absent (OTLP writes `parentSpanId: ""` for roots);
 * - anything else is kept lower-cased as found, for the analysis to reject and report.
 */
export function normalizeIdSql(expr: string, bytes: 8 | 16, padding: IdPadding): string {
  const hexLen = bytes * 2;
  const b64Len = Math.ceil(bytes / 3) * 4;
  const pad = padding === 'left-pad'
    ? `WHEN length(trim(${expr})) < ${hexLen} AND regexp_full_match(trim(${expr}), '[0-9a-fA-F]+') THEN lpad(lower(trim(${expr})), ${hexLen}, '0')`
    : '';
  // First branch: already canonical (nearly every ID), returned without copying (no trim or lower):
  // ≈ 40 % less CPU for this expression over 2M IDs.
  return `(CASE
    WHEN regexp_full_match(${expr}, '[0-9a-f]{${hexLen}}') THEN ${expr}
    WHEN ${expr} IS NULL OR trim(${expr}) = '' THEN NULL
    WHEN length(${expr}) = ${hexLen} AND regexp_full_match(${expr}, '[0-9a-fA-F]+') THEN lower(${expr})
    ${pad}
    WHEN length(${expr}) = ${b64Len} AND regexp_full_match(${expr}, '[A-Za-z0-9+/_-]+=*')
      THEN coalesce(lower(hex(try(from_base64(translate(${expr}, '-_', '+/'))))), lower(${expr}))
    ELSE lower(trim(${expr})) END)`;
}

/**
 * OTLP SpanKind as a number (proto enum, JSON numbers or strings) or its enum name
 * ("SPAN_KIND_SERVER"); Jaeger/Zipkin lower/upper-case words ("server", "CLIENT"). Missing → UNSPECIFIED.
 */
export function kindSql(expr: string): string {
  return `(CASE upper(replace(coalesce(${expr}, ''), 'SPAN_KIND_', ''))
    WHEN '1' THEN 'INTERNAL' WHEN 'INTERNAL' THEN 'INTERNAL'
    WHEN '2' THEN 'SERVER' WHEN 'SERVER' THEN 'SERVER'
    WHEN '3' THEN 'CLIENT' WHEN 'CLIENT' THEN 'CLIENT'
    WHEN '4' THEN 'PRODUCER' WHEN 'PRODUCER' THEN 'PRODUCER'
    WHEN '5' THEN 'CONSUMER' WHEN 'CONSUMER' THEN 'CONSUMER'
    ELSE 'UNSPECIFIED' END)`;
}

/** OTLP Status.code as a number or enum name ("STATUS_CODE_ERROR"); missing → UNSET. */
export function otlpStatusSql(expr: string): string {
  return `(CASE upper(replace(coalesce(${expr}, ''), 'STATUS_CODE_', ''))
    WHEN '1' THEN 'OK' WHEN 'OK' THEN 'OK'
    WHEN '2' THEN 'ERROR' WHEN 'ERROR' THEN 'ERROR'
    ELSE 'UNSET' END)`;
}

/**
 * Status from tags (Jaeger, Zipkin): the OpenTelemetry exporters write `otel.status_code`; older
 * instrumentation only sets an `error` tag (Zipkin: any value, even empty, means error; Jaeger: "true").
 * `tagsExpr` is a MAP(VARCHAR, VARCHAR).
 */
export function tagStatusSql(tagsExpr: string, errorTagAnyValue: boolean): string {
  const errorTag = errorTagAnyValue ? `${tagsExpr}['error'] IS NOT NULL` : `lower(${tagsExpr}['error']) = 'true'`;
  return `(CASE
    WHEN upper(${tagsExpr}['otel.status_code']) = 'ERROR' OR ${errorTag} THEN 'ERROR'
    WHEN upper(${tagsExpr}['otel.status_code']) = 'OK' THEN 'OK'
    ELSE 'UNSET' END)`;
}

/**
 * Microseconds (Jaeger, Zipkin) to nanoseconds. Values whose ×1000 would overflow BIGINT (a file
 * that is already in ns) become NULL instead of failing the whole load; finishSpans counts them.
 */
export function microsToNanosSql(expr: string): string {
  return `(CASE WHEN abs(${expr}) < 9223372036854775 THEN ${expr} * 1000 END)`;
}

/** Epoch ns of 1990-01-01 and 2200-01-01: span times outside are a unit mistake, not real data. */
export const PLAUSIBLE_FROM_NS = 631152000000000000n;
export const PLAUSIBLE_TO_NS = 7258118400000000000n;
