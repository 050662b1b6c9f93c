/**
 * The send times of a client file's requests, checked once for every reader after it has loaded
 * (loadFiles.ts): a request that starts before 2000 or after 2100 is not part of a run anyone can
 * analyse today. Such times come from a sign or unit mistake (AIPerf's request_start_ns of -1 is
 * 1969; 1e30 ns is 3e13 years away) and, kept, they spread the run's windows over decades (an
 * AIPerf start of 1e30 overflowed the window index). The request is skipped and cited by its line,
 * as the readers skip any other value that is not a measurement (docs/metrics.md §7).
 */
import type { QueryRunner } from '../store/duckStore';
import { recordSkips } from './skips';
import type { FormatId } from './sniff';

/** 2000-01-01T00:00:00Z and 2100-01-01T00:00:00Z in epoch ms. */
export const EARLIEST_START_MS = 946_684_800_000;
export const LATEST_START_MS = 4_102_444_800_000;

/** Where each client format's start time comes from, as its messages name it. */
const START_FIELDS: Partial<Readonly<Record<FormatId, string>>> = {
  'k6-json': "the request's send time (data.time − http_req_duration)",
  'k6-csv': "the request's send time (timestamp − http_req_duration)",
  'records-ndjson': "the record's start time (start_ms, send_epoch_ms, start_time, send_time or timestamp)",
  'records-csv': "the record's start time (start_ms, send_epoch_ms, start_time, send_time or timestamp)",
  'aiperf-jsonl': 'metadata.request_start_ns',
  'guidellm-json': 'request_start_time (or start_time)',
};

/** SQL: an epoch-ms expression as a UTC time to the µs, or its number of ms when no timestamp holds it. */
function startText(ms: string): string {
  return `CASE WHEN abs(${ms}) < 9e15 THEN strftime(make_timestamp(floor(${ms} * 1000)::BIGINT), '%Y-%m-%d %H:%M:%S.%f')
               ELSE format('{} ms after 1970-01-01', ${ms}) END`;
}

/**
 * Cites, counts (invalid-value) and removes the requests of source `sourceId` whose start_ms lies
 * outside [EARLIEST_START_MS, LATEST_START_MS); returns how many were removed.
 */
export async function skipImplausibleStarts(store: QueryRunner, sourceId: number, format: FormatId): Promise<number> {
  const outside = `source_id = $1 AND start_ms IS NOT NULL AND NOT coalesce(start_ms >= ${EARLIEST_START_MS} AND start_ms < ${LATEST_START_MS}, false)`;
  const [{ n }] = await store.all<{ n: number }>(`SELECT count(*) AS n FROM client_requests WHERE ${outside}`, [sourceId]);
  if (n === 0) return 0;
  const field = START_FIELDS[format] ?? "the request's start time";
  await store.run(
    `INSERT INTO load_issues
     SELECT source_id, line, 'warning', 'invalid-value',
            'expected ' || $2 || ' between 2000-01-01 and 2100-01-01 (the epoch time of a run), found ' || ${startText('start_ms')} || '; request skipped'
     FROM client_requests WHERE ${outside} ORDER BY line`,
    [sourceId, field],
  );
  await recordSkips(store, sourceId, 'invalid-value', n);
  await store.run(`DELETE FROM client_requests WHERE ${outside}`, [sourceId]);
  return n;
}
