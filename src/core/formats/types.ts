import type { QueryRunner } from '../store/duckStore';
import type { SniffResult } from './sniff';

/** Progress callback: a short message and, when known, the fraction done (0..1). */
export type ProgressSink = (message: string, fraction?: number) => void;

export interface ReaderContext {
  store: QueryRunner;
  sourceId: number;
  /** Absolute path of the file. */
  path: string;
  sniff: SniffResult;
  /** k6 tag that carries the trace ID when `data.metadata.trace_id` is absent. */
  traceIdTag: string;
  progress?: ProgressSink;
  /** Size of the file on disk (compressed size for gzip), when the caller knows it. */
  bytes?: number;
}

/** What a reader appended: rows in its table(s), and lines/elements it skipped (each in load_issues). */
export interface ReaderResult {
  records: number;
  skipped: number;
}

/** A reader loads one file into the Phasewise tables with DuckDB (read_json/read_csv + SQL). */
export type Reader = (ctx: ReaderContext) => Promise<ReaderResult>;
