/**
 * What a reader skips, by kind: the ledger that makes "the requests and spans reported plus those
 * skipped equal what the file holds" checkable (docs/metrics.md §7). Every skip also has a load_issues row
 * with its line (or its first line and count); here each kind is counted in its own unit, once per
 * source, in the `load_skips` table (schema.ts), and the report lists them per input file.
 */
import type { QueryRunner } from '../store/duckStore';

export type SkipUnit = 'line' | 'element' | 'document' | 'span' | 'request';

/** Every kind of skip, the unit it counts and how the report names it. */
export const SKIP_KINDS = {
  'malformed-json': { unit: 'line', what: 'not a JSON object' },
  'truncated-line': { unit: 'line', what: 'an incomplete last line' },
  'line-too-long': { unit: 'line', what: 'longer than 64 MiB' },
  'invalid-utf8': { unit: 'line', what: 'not UTF-8 text' },
  'malformed-csv': { unit: 'line', what: 'not a CSV row matching the header' },
  'foreign-line': { unit: 'line', what: 'JSON of another format' },
  'invalid-time': { unit: 'line', what: 'a k6 Point whose time is not a timestamp' },
  'invalid-value': { unit: 'line', what: 'a k6 Point or request whose value is not a plausible number' },
  'incomplete-record': { unit: 'line', what: 'a request record without the fields its format requires' },
  'malformed-element': { unit: 'element', what: 'null, or not an object with its list, where a span, scope, resource or trace was expected' },
  'malformed-document': { unit: 'document', what: 'a JSON document without resourceSpans' },
  'span-without-id': { unit: 'span', what: 'a span without a trace ID or span ID' },
  'duplicate-span': { unit: 'span', what: 'a later row of a span ID already loaded (the first row kept)' },
  'incomplete-request': { unit: 'request', what: 'HTTP Points without http_req_duration' },
  'merged-span-piece': { unit: 'span', what: 'a piece of a span sent without a timestamp, merged into the timed row of its span ID' },
  'merged-requests': { unit: 'request', what: 'requests indistinguishable from another (same time, tags and metadata)' },
} as const satisfies Record<string, { unit: SkipUnit; what: string }>;

export type SkipCode = keyof typeof SKIP_KINDS;

/** Adds `count` skipped units of `code` to the source's ledger (nothing when count is 0). */
export async function recordSkips(store: QueryRunner, sourceId: number, code: SkipCode, count: number): Promise<void> {
  if (!(count > 0)) return;
  await store.run('INSERT INTO load_skips VALUES ($1, $2, $3, $4)', [sourceId, code, SKIP_KINDS[code].unit, count]);
}

/** The units of one source's skips, summed by kind (for the reader's result and the sources row). */
export async function skippedTotal(store: QueryRunner, sourceId: number): Promise<number> {
  const [row] = await store.all<{ n: number | null }>('SELECT sum(count)::BIGINT AS n FROM load_skips WHERE source_id = $1', [sourceId]);
  return row?.n ?? 0;
}
