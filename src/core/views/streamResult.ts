/**
 * A user's SELECT written as CSV or JSON while it runs, chunk by chunk (DuckStore.streamTable): the
 * output is the same text render.ts makes from a whole result, but memory stays bounded by a chunk.
 * `phasewise sql --format csv|json` and the editor's query export use it; `sql --format csv` over 20M
 * rows held every row and the whole text and ran V8 out of heap (exit 134 at 6.7 GB).
 */
import { StoreError } from '../errors';
import type { DuckStore } from '../store/duckStore';
import { checkSelect, QueryRefused, refusalText } from './query';
import { csvHeader, csvRow, jsonKeys, jsonRow } from './render';

/** Where the text goes, piece by piece; awaited, so a slow writer holds the query back. */
export type TextSink = (text: string) => Promise<void>;

export type StreamFormat = 'csv' | 'json';

/** What was written: the rows, and whether more existed past `limit`. */
export interface StreamedResult {
  rows: number;
  truncated: boolean;
}

/** JSON.stringify(value, null, 2) placed `depth` levels deep in an indented document. */
function nested(value: unknown, depth: number): string {
  return JSON.stringify(value, null, 2).replace(/\n/g, `\n${'  '.repeat(depth)}`);
}

/**
 * Runs one checked SELECT (query.ts) and writes its result to `write` in `format`, byte for byte what
 * renderResult writes for the whole result. With `limit`, at most that many rows, and `truncated`
 * says whether there were more. A failure of the query itself is a QueryRefused, as runSelect's.
 */
export async function writeSelect(store: DuckStore, sql: string, format: StreamFormat, write: TextSink, limit?: number): Promise<StreamedResult> {
  await checkSelect(store, sql);
  const max = limit === undefined ? undefined : Math.max(0, Math.floor(limit));
  let written = 0;
  let truncated = false;
  let keys: string[] = [];
  const sink = {
    head: async (columns: string[], types: string[]): Promise<void> => {
      keys = jsonKeys(columns);
      if (format === 'csv') await write(`${csvHeader(columns)}\n`);
      else await write(`{\n  "columns": ${nested(keys.map((name, i) => ({ name, type: types[i] })), 1)},\n  "rows": [`);
    },
    rows: async (rows: unknown[][]): Promise<void> => {
      const room = max === undefined ? rows.length : Math.max(0, max - written);
      if (rows.length > room) truncated = true;
      const kept = rows.length > room ? rows.slice(0, room) : rows;
      if (kept.length === 0) return;
      const text = format === 'csv'
        ? `${kept.map(csvRow).join('\n')}\n`
        : kept.map((r, i) => `${written + i === 0 ? '\n' : ',\n'}    ${nested(jsonRow(keys, r), 2)}`).join('');
      written += kept.length;
      await write(text);
    },
  };
  try {
    // One row past the limit says whether there are more.
    await store.streamTable(sql, sink, max === undefined ? undefined : max + 1);
  } catch (err) {
    if (err instanceof StoreError) throw new QueryRefused(refusalText(err));
    throw err;
  }
  if (format === 'json') await write(`${written > 0 ? '\n  ]' : ']'},\n  "truncated": ${truncated}\n}\n`);
  return { rows: written, truncated };
}
