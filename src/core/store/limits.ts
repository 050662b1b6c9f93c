import type { QueryRunner } from './duckStore';
import { parseByteSize } from '../memorySettings';

/** The running store's limits, as DuckDB reports them (what the readers size their plans by). */
export interface StoreLimits {
  /** memory_limit in bytes; undefined when DuckDB reports no finite limit. */
  memoryBytes: number | undefined;
  threads: number;
  /** DuckDB's temp_directory (where it spills; the readers' temporary pieces go beside it). */
  tempDirectory: string;
}

export async function storeLimits(store: QueryRunner): Promise<StoreLimits> {
  const [row] = await store.all<{ m: string; t: number | string; d: string }>(
    `SELECT current_setting('memory_limit') AS m, current_setting('threads') AS t, current_setting('temp_directory') AS d`,
  );
  return { memoryBytes: parseByteSize(row.m), threads: Number(row.t), tempDirectory: row.d };
}
