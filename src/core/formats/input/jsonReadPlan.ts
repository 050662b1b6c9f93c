/**
 * How an NDJSON file reaches DuckDB's JSON reader within the store's memory_limit (issue 12).
 *
 * What cannot spill: read_ndjson_objects + json_transform hold their read buffers and each chunk's
 * parsed documents outside the buffer pool's evictable pages, and size the buffers from the file
 * (≥ 16 MiB each for a large file; maximum_object_size below 16 MiB is ignored). Measured on the
 * replicated joined-otel-js run (100k requests, 460 MB of 46–132 KB request bodies, the OTLP fast
 * statement, peak of duckdb_memory()'s ALLOCATOR tag): the whole file 304 MiB on one thread, 372 on
 * two; pieces of 1/2/4/8 MiB ≈ 55/75/92/122 MiB per thread. Everything else the load and the
 * analysis hold (tables, hash tables, sorts) spills to temp_directory.
 *
 * So the plan: the file itself when its parse fits PARSE_SHARE of memory_limit (the default 1200MB
 * on two threads does, so nothing is copied), else pieces cut at line ends (splitLines.ts) in a
 * temporary directory beside DuckDB's spill files, as large as fit, on as many threads as fit.
 * Pieces cost a copy of the file (temporary disk = its decompressed size, removed afterwards) and
 * keep the reader's file order, so numbered reads still number lines of the whole file.
 */
import { mkdir, mkdtemp, rm } from 'fs/promises';
import * as path from 'path';
import { listParam, type QueryRunner } from '../../store/duckStore';
import { storeLimits } from '../../store/limits';
import type { DuckDBValue } from '@duckdb/node-api';
import { splitLines } from './splitLines';
import type { ReaderContext } from '../types';

const MIB = 2 ** 20;

/** The JSON parse's working set (MiB) reading a large file whole, on `threads` threads (measured, see the header). */
export function wholeFileParseMiB(threads: number): number {
  return 250 + 70 * threads;
}

/** The same for pieces of `pieceMiB` (or a longer line), per the measurements in the header. */
export function pieceParseMiB(threads: number, pieceMiB: number): number {
  return threads * (55 + 9 * pieceMiB);
}

/** Share of memory_limit the JSON parse may hold: the rest is for what spills and the pages it pins. */
export const PARSE_SHARE = 0.5;

/** Piece sizes tried, largest first (larger pieces mean fewer files and no measurable loss of speed). */
const PIECE_MIB = [8, 4, 2, 1];

export interface JsonReadPlan {
  /** What read_ndjson_objects reads: the file, or its pieces in order. */
  files: DuckDBValue;
  /** DuckDB `compression` for `files` (pieces are written decompressed). */
  compression: string;
  /** Threads for the statement when fewer than the store's (restored afterwards). */
  threads?: number;
  /** Number of pieces (0 = the file itself), for progress and tests. */
  pieces: number;
  /** The piece size chosen (MiB), or null when the whole file's parse fits: what a staged re-read may hand the parser at once. */
  pieceMiB: number | null;
}

export interface PlanChoice {
  pieceMiB: number | null;
  threads: number;
}

/**
 * The largest parse that fits `budgetMiB`: the whole file on every thread, else the largest piece on
 * the most threads (never below one thread of the smallest piece: past that, DuckDB's own
 * out-of-memory error is reported with what to change, see errors.ts OutOfMemoryError).
 */
export function choosePlan(budgetMiB: number | undefined, threads: number, longestLineMiB = 0): PlanChoice {
  if (budgetMiB === undefined || wholeFileParseMiB(threads) <= budgetMiB) return { pieceMiB: null, threads };
  for (let t = threads; t >= 1; t--) {
    for (const p of PIECE_MIB) if (pieceParseMiB(t, Math.max(p, longestLineMiB)) <= budgetMiB) return { pieceMiB: p, threads: t };
  }
  return { pieceMiB: PIECE_MIB[PIECE_MIB.length - 1], threads: 1 };
}

/**
 * Runs `read` with the plan for ctx.path (see the file header), then removes the pieces and restores
 * the store's threads. `read` binds plan.files / plan.compression where it would bind the path.
 */
export async function withJsonReadPlan<T>(ctx: ReaderContext, read: (plan: JsonReadPlan) => Promise<T>): Promise<T> {
  const limits = await storeLimits(ctx.store);
  const budget = limits.memoryBytes === undefined ? undefined : (limits.memoryBytes * PARSE_SHARE) / MIB;
  const choice = choosePlan(budget, limits.threads);
  if (choice.pieceMiB === null) return read({ files: ctx.path, compression: ctx.sniff.gzip ? 'gzip' : 'uncompressed', pieces: 0, pieceMiB: null });

  await mkdir(limits.tempDirectory, { recursive: true });
  const dir = await mkdtemp(path.join(limits.tempDirectory, 'phasewise-pieces-'));
  try {
    const bytes = ctx.bytes;
    ctx.progress?.(`cutting ${path.basename(ctx.path)} into ${choice.pieceMiB} MiB pieces (memory limit: see --memory-limit)`);
    const split = await splitLines(ctx.path, ctx.sniff.gzip, dir, choice.pieceMiB * MIB, (read) =>
      bytes !== undefined && bytes > 0 ? ctx.progress?.(`cutting ${path.basename(ctx.path)} into pieces`, Math.min(1, read / bytes)) : undefined,
    );
    if (split.files.length === 0) return await read({ files: ctx.path, compression: ctx.sniff.gzip ? 'gzip' : 'uncompressed', pieces: 0, pieceMiB: choice.pieceMiB });
    // A line longer than the piece size makes its piece (and that thread's buffers) larger: re-plan the threads.
    const threads = choosePlan(budget, limits.threads, split.longestLine / MIB).threads;
    const plan: JsonReadPlan = {
      files: await listParam(split.files),
      compression: 'uncompressed',
      pieces: split.files.length,
      pieceMiB: choice.pieceMiB,
      ...(threads < limits.threads ? { threads } : {}),
    };
    return await withThreads(ctx.store, plan.threads, limits.threads, () => read(plan));
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

async function withThreads<T>(store: QueryRunner, threads: number | undefined, restore: number, body: () => Promise<T>): Promise<T> {
  if (threads === undefined) return body();
  if (!Number.isInteger(threads) || !Number.isInteger(restore)) throw new Error(`invalid thread count ${threads}/${restore}`);
  await store.run(`SET threads = ${threads}`);
  try {
    return await body();
  } finally {
    await store.run(`SET threads = ${restore}`);
  }
}
