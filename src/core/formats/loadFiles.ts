import { stat } from 'fs/promises';
import * as path from 'path';
import { InputError, OutOfMemoryError } from '../errors';
import type { QueryRunner } from '../store/duckStore';
import { enterStage } from '../store/stage';
import { readJaeger } from './spans/jaeger';
import { readK6Csv } from './client/k6Csv';
import { readK6Json } from './client/k6Json';
import { readK6Summary } from './client/k6Summary';
import { readOtlp } from './spans/otlp';
import { recordProvenance, startFileHash } from './provenance';
import { skipImplausibleStarts } from './requestTimes';
import { readRecords } from './client/records';
import { skippedTotal } from './skips';
import { sniffFile, type FormatId, type SniffResult } from './sniff';
import type { ProgressSink, Reader } from './types';
import { readZipkin } from './spans/zipkin';
import { readAiperf } from './tools/aiperf';
import { readGuidellm } from './tools/guidellm';
import { readVllmBench } from './tools/vllmBench';

const READERS: Record<FormatId, Reader> = {
  'k6-json': readK6Json,
  'k6-csv': readK6Csv,
  'k6-summary': readK6Summary,
  'records-ndjson': readRecords,
  'records-csv': readRecords,
  'otlp-json': readOtlp,
  'jaeger-json': readJaeger,
  'zipkin-json': readZipkin,
  'aiperf-jsonl': readAiperf,
  'vllm-bench-json': readVllmBench,
  'guidellm-json': readGuidellm,
};

export interface LoadedFile {
  sourceId: number;
  path: string;
  sniff: SniffResult;
  bytes: number;
  records: number;
  skipped: number;
}

export interface LoadOptions {
  traceIdTag?: string;
  progress?: ProgressSink;
  /** Expected side per file (`--run` files are client or summary, `--spans` files server): a mismatch is an InputError. */
  expectSide?: 'client' | 'server';
}

/** Sniffs each file by content and loads it with its reader; records the file in `sources`. */
export async function loadFiles(store: QueryRunner, files: readonly string[], options: LoadOptions = {}): Promise<LoadedFile[]> {
  const loaded: LoadedFile[] = [];
  for (const file of files) {
    const abs = path.resolve(file);
    const sniff = await sniffFile(abs);
    enterStage(store, sniff.side === 'server' ? 'read spans' : 'read client');
    if (options.expectSide === 'server' && sniff.side !== 'server') {
      throw new InputError(abs, undefined, 'a span export (OTLP JSON, Jaeger JSON or Zipkin v2 JSON) for --spans', `${sniff.format}`);
    }
    if (options.expectSide === 'client' && sniff.side === 'server') {
      throw new InputError(abs, undefined, 'a run artifact (k6 JSON/CSV/summary or per-request records) for --run', `${sniff.format}`);
    }
    const bytes = (await stat(abs)).size;
    const [{ next }] = await store.all<{ next: number }>('SELECT coalesce(max(source_id), 0) + 1 AS next FROM sources');
    await store.run('INSERT INTO sources VALUES ($1, $2, $3, $4, $5, 0, 0, $6)', [next, abs, sniff.format, sniff.side, bytes, sniff.lineDelimited ? 'line' : 'element']);
    options.progress?.(`loading ${path.basename(abs)} (${sniff.format}${sniff.gzip ? ', gzip' : ''})`);
    // Hashed while the reader runs (the stream overlaps DuckDB's parse); recorded for the report's provenance.
    const hash = startFileHash(abs);
    const result = await READERS[sniff.format]({
      store,
      sourceId: next,
      path: abs,
      sniff,
      traceIdTag: options.traceIdTag ?? 'trace_id',
      progress: options.progress,
      bytes,
    }).catch((err: unknown) => {
      // Out of memory names the file it happened in (the CLI and the editor show the same message).
      throw err instanceof OutOfMemoryError && err.file === undefined ? err.withFile(abs) : err;
    });
    const records = result.records - (sniff.side === 'client' ? await skipImplausibleStarts(store, next, sniff.format) : 0);
    // The skips are counted once, by kind, in load_skips (skips.ts): the file's total comes from there.
    const skipped = await skippedTotal(store, next);
    await store.run('UPDATE sources SET records = $1, skipped = $2 WHERE source_id = $3', [records, skipped, next]);
    await recordProvenance(store, next, abs, sniff, await hash);
    loaded.push({ sourceId: next, path: abs, sniff, bytes, records, skipped });
  }
  return loaded;
}
