/**
 * Plausibility checks after every file is loaded (docs/metrics.md §7: a unit mistake must not pass silently).
 * They never change or drop a row; each finding is a warning with a count and an example, on the
 * span file it is about.
 *
 * - Durations against start times, per µs source (Jaeger, Zipkin, whose durations are a field of
 *   their own): durations written in ns instead of µs (or starts in ms) make a 131 ms root 131,848 ms
 *   while its children still start milliseconds apart, so the start times spread over a tiny share of
 *   the longest span and nearly every span overlaps the sibling after it (checkDurationSpread).
 * - Against the client (a sample of the matched requests, so the cost does not grow with the run):
 *   a span cannot last much longer than the client request it served (durations are each measured
 *   on one clock, so this holds whatever the clocks say), and a span that starts hours away from its
 *   request means a clock or unit mistake, or files from different runs.
 * - Client files on different clocks: each file's send times are one clock, but files whose send
 *   times fall more than a day apart from every other file's (vLLM bench serve's start_times are
 *   perf_counter seconds, not epoch times; or files of different runs) spread the run's windows and
 *   rates over the gap.
 * - Output-token counts (the one attribute read as a number) that are not a non-negative number
 *   (`intValue: "12abc"`): the span then has no count, which changes the generation figures per token.
 */
import type { QueryRunner } from '../store/duckStore';
import { spanAttributeSql } from '../store/spanAttributes';

/** Median share of the longest span's duration covered by the spread of start times, below which durations look 1000× too long. */
const SPREAD_SHARE = 0.01;
/** Traces need this many spans for their spread of start times to say anything. */
const MIN_SPANS = 3;
/**
 * Consecutive siblings (by start) that overlap, as a share of all such pairs, above which the spans
 * look stretched: sequential phases (auth, route, generate) do not overlap, and a prelude followed by
 * a long generation alone (a small spread) is a normal LLM trace. Real fan-out traces in our samples
 * overlap in 9–53 % of the pairs; durations ×1000 made every pair overlap.
 */
const OVERLAP_SHARE = 0.9;
const MIN_PAIRS = 5;
/** Client requests compared with their spans. */
const SAMPLE_REQUESTS = 10_000;
/** A span longer than twice its request and by more than this many ms is not that request's span. */
const LONGER_BY_MS = 100;
/** Start times an hour apart are not one request seen from two sides. */
const FAR_MS = 3_600_000;
/** Client files whose send times are further apart than this are not one run on one clock. */
const CLOCK_GAP_MS = 24 * 3_600_000;

export async function checkPlausibility(store: QueryRunner): Promise<void> {
  await checkDurationSpread(store);
  await checkAgainstClient(store);
  await checkClientClocks(store);
  await checkTokenCounts(store);
}

/**
 * Client files grouped by their send times, a group ending where the next file starts more than
 * CLOCK_GAP_MS after every earlier one ends. With several groups, every file outside the largest one
 * (by requests) gets a warning naming how far its sends are from the others'.
 */
async function checkClientClocks(store: QueryRunner): Promise<void> {
  const files = await store.all<{ source_id: number; lo: number; hi: number; n: number; line: number | null }>(
    `SELECT source_id, min(start_ms) AS lo, max(start_ms) AS hi, count(*) AS n, min(line) AS line
     FROM client_requests WHERE isfinite(start_ms) GROUP BY source_id ORDER BY lo, source_id`,
  );
  if (files.length < 2) return;
  const groups: Array<{ lo: number; hi: number; n: number; files: typeof files }> = [];
  for (const f of files) {
    const last = groups[groups.length - 1];
    if (last !== undefined && f.lo - last.hi <= CLOCK_GAP_MS) {
      last.hi = Math.max(last.hi, f.hi);
      last.n += Number(f.n);
      last.files.push(f);
    } else groups.push({ lo: f.lo, hi: f.hi, n: Number(f.n), files: [f] });
  }
  if (groups.length < 2) return;
  const main = groups.reduce((a, b) => (b.n > a.n ? b : a));
  for (const g of groups) {
    if (g === main) continue;
    const gapMs = g.lo > main.hi ? g.lo - main.hi : main.lo - g.hi;
    for (const f of g.files) {
      await store.run(`INSERT INTO load_issues VALUES ($1, $2, 'warning', 'distant-timestamps', $3)`, [
        f.source_id,
        f.line,
        `this file's ${f.n} request(s) were sent ${days(gapMs)} ${g.lo > main.hi ? 'after' : 'before'} the ${main.n} of the other client file(s): their clocks differ (e.g. vLLM bench serve's start_times are perf_counter seconds, not epoch times) or they are from different runs. Windows and rates span the gap; analyse each run's files alone`,
      ]);
    }
  }
}

function days(ms: number): string {
  const d = ms / 86_400_000;
  return d >= 730 ? `${(d / 365.25).toFixed(1)} years` : `${d.toFixed(1)} days`;
}

/** The keys analysis/index/spanIndex.ts reads output tokens from, in its order. */
const TOKEN_KEYS = ['gen_ai.usage.output_tokens', 'llm.output_tokens'] as const;

/** The compact text of an OTLP KeyValue (spanAttributes.ts) whose value is a plain number, for `key`. */
function plainNumberPattern(key: string): string {
  return `"key":"${key.replace(/\./g, '\\.')}","value":\\{"(intValue|doubleValue|stringValue)":"?[0-9]+(\\.[0-9]+)?([eE][+-]?[0-9]+)?"?\\}`;
}

async function checkTokenCounts(store: QueryRunner): Promise<void> {
  const [first, second] = TOKEN_KEYS;
  const value = `coalesce(${TOKEN_KEYS.map((k) => spanAttributeSql('s', `'${k}'`)).join(', ')})`;
  // Typing a span's attribute list costs ≈ 50 µs and a tenth of the spans carry a count: one substring
  // test, then a pattern on the text for the plain numbers nearly every count is, and only the rest typed.
  const plain = `(regexp_matches(s.otlp_attributes, '${plainNumberPattern(first)}')
       OR (NOT contains(s.otlp_attributes, '"${first}"') AND regexp_matches(s.otlp_attributes, '${plainNumberPattern(second)}')))`;
  const rows = await store.all<{ source_id: number; bad: number; line: number | null; example: string | null }>(
    // MATERIALIZED: otherwise the optimizer may evaluate the typing before the cheap tests, on every span.
    `WITH c AS MATERIALIZED (
       SELECT s.source_id, s.line, s.trace_id, s.span_id, s.attributes, s.otlp_attributes
       FROM spans s
       WHERE (contains(s.otlp_attributes, 'output_tokens') AND NOT ${plain})
          OR ${TOKEN_KEYS.map((k) => `map_contains(s.attributes, '${k}')`).join(' OR ')}),
     v AS (SELECT s.source_id, s.line, s.trace_id, s.span_id, ${value} AS tokens FROM c s)
     SELECT source_id, count(*) AS bad, min(line) AS line,
            min(format('trace {}, span {}: {}', trace_id, span_id, to_json(left(tokens, 40)))) AS example
     FROM v WHERE tokens IS NOT NULL AND NOT coalesce(TRY_CAST(tokens AS DOUBLE) >= 0 AND isfinite(TRY_CAST(tokens AS DOUBLE)), false)
     GROUP BY source_id`,
  );
  for (const r of rows) {
    await store.run(`INSERT INTO load_issues VALUES ($1, $2, 'warning', 'invalid-value', $3)`, [
      r.source_id,
      r.line,
      `${r.bad} span(s) carry an output-token count (${TOKEN_KEYS.join(' or ')}) that is not a non-negative number (e.g. ${r.example ?? '?'}): those spans count as having no tokens`,
    ]);
  }
}

async function checkDurationSpread(store: QueryRunner): Promise<void> {
  const rows = await store.all<{ source_id: number; traces: number; share: number; pairs: number; overlapping: number; example: string | null; line: number | null }>(
    `WITH s AS (
       SELECT * FROM spans WHERE source_id IN (SELECT source_id FROM sources WHERE format IN ('jaeger-json', 'zipkin-json'))),
     t AS (
       SELECT source_id, trace_id, (max(start_ns) - min(start_ns)) / 1e6 / max(duration_ms) AS share, arg_max(line, duration_ms) AS line
       FROM s WHERE duration_ms > 0 GROUP BY source_id, trace_id HAVING count(*) >= ${MIN_SPANS}),
     siblings AS (
       SELECT source_id, start_ns, lag(end_ns) OVER (PARTITION BY source_id, trace_id, parent_span_id ORDER BY start_ns, end_ns) AS previous_end
       FROM s WHERE parent_span_id IS NOT NULL),
     o AS (
       SELECT source_id, count(previous_end) AS pairs, count(*) FILTER (WHERE previous_end > start_ns + 1000000) AS overlapping
       FROM siblings GROUP BY source_id)
     SELECT t.source_id, count(*) AS traces, median(share) AS share, any_value(o.pairs) AS pairs, any_value(o.overlapping) AS overlapping,
            arg_min(trace_id, share) AS example, arg_min(line, share) AS line
     FROM t JOIN o USING (source_id)
     GROUP BY t.source_id
     HAVING median(share) < ${SPREAD_SHARE} AND any_value(o.pairs) >= ${MIN_PAIRS} AND any_value(o.overlapping) >= ${OVERLAP_SHARE} * any_value(o.pairs)`,
  );
  for (const r of rows) {
    await store.run(`INSERT INTO load_issues VALUES ($1, $2, 'warning', 'implausible-duration', $3)`, [
      r.source_id,
      r.line,
      `span durations look about 1000× too long for their start times: in ${r.traces} trace(s) the start times spread over a median ${(r.share * 100).toFixed(2)}% of the longest span, and ${r.overlapping} of ${r.pairs} consecutive sibling spans overlap (e.g. trace ${r.example}). Were the durations written in ns instead of µs (or the start times in ms)? Values loaded as found`,
    ]);
  }
}

async function checkAgainstClient(store: QueryRunner): Promise<void> {
  const rows = await store.all<{ source_id: number; compared: number; longer: number; longer_line: number | null; longer_example: string | null; far: number; far_line: number | null; far_hours: number | null }>(
    `WITH c AS (
       SELECT trace_id, start_ms, client_total_ms FROM client_requests
       WHERE trace_id IS NOT NULL AND client_total_ms > 0
       USING SAMPLE reservoir(${SAMPLE_REQUESTS} ROWS) REPEATABLE (7)),
     j AS (
       SELECT s.source_id, s.line, s.trace_id, s.name, s.duration_ms, s.start_ns, c.start_ms, c.client_total_ms
       FROM spans s JOIN c USING (trace_id))
     SELECT source_id, count(DISTINCT trace_id) AS compared,
            count(*) FILTER (WHERE duration_ms > 2 * client_total_ms AND duration_ms - client_total_ms > ${LONGER_BY_MS}) AS longer,
            min(line) FILTER (WHERE duration_ms > 2 * client_total_ms AND duration_ms - client_total_ms > ${LONGER_BY_MS}) AS longer_line,
            arg_max(format('trace {}, span {} of {} ms against the request''s {} ms', trace_id, to_json(left(name, 60)), round(duration_ms, 1), round(client_total_ms, 1)), duration_ms / client_total_ms)
              FILTER (WHERE duration_ms > 2 * client_total_ms AND duration_ms - client_total_ms > ${LONGER_BY_MS}) AS longer_example,
            count(DISTINCT trace_id) FILTER (WHERE abs(start_ns / 1e6 - start_ms) > ${FAR_MS}) AS far,
            min(line) FILTER (WHERE abs(start_ns / 1e6 - start_ms) > ${FAR_MS}) AS far_line,
            median(abs(start_ns / 1e6 - start_ms)) FILTER (WHERE abs(start_ns / 1e6 - start_ms) > ${FAR_MS}) / 3600000 AS far_hours
     FROM j GROUP BY source_id`,
  );
  for (const r of rows) {
    const sample = `of ${r.compared} request(s) compared (a sample of at most ${SAMPLE_REQUESTS.toLocaleString('en-US')})`;
    if (r.longer > 0) {
      await store.run(`INSERT INTO load_issues VALUES ($1, $2, 'warning', 'implausible-duration', $3)`, [
        r.source_id,
        r.longer_line,
        `${r.longer} span(s) last more than twice as long as the client request they belong to, ${sample} (e.g. ${r.longer_example ?? '?'}): a duration in the wrong unit (ns read as µs?) or a trace ID shared by two requests. Values loaded as found`,
      ]);
    }
    if (r.far > 0) {
      await store.run(`INSERT INTO load_issues VALUES ($1, $2, 'warning', 'distant-timestamps', $3)`, [
        r.source_id,
        r.far_line,
        `${r.far} trace(s) ${sample} start more than an hour away from their client request (median ${(r.far_hours ?? 0).toFixed(1)} h): a clock or unit mistake, or span and run files from different runs. Durations are unaffected (each is measured on one clock)`,
      ]);
    }
  }
}
