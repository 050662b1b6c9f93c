import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import { DuckStore } from '../../../src/core/store/duckStore';
import { loadFiles, type LoadedFile } from '../../../src/core/formats/loadFiles';
import { sniffFile } from '../../../src/core/formats/sniff';
import type { ReaderContext } from '../../../src/core/formats/types';

/** A fresh temp directory per test file (removed by the caller's after hook). */
export function makeTempDir(prefix: string): string {
  return fs.mkdtempSync(path.join(os.tmpdir(), `phasewise-${prefix}-`));
}

/** A describe block's temp directory and the stores its tests load (see readerSession). */
export interface ReaderSession {
  /** The temp directory, made by the block's before hook. */
  readonly dir: string;
  /** loadInto, the store closed by the block's after hook. */
  loadInto(files: string[], traceIdTag?: string): Promise<{ store: DuckStore; loaded: LoadedFile[] }>;
  /** The same, the store alone. */
  load(files: string[], traceIdTag?: string): Promise<DuckStore>;
}

/**
 * Call inside a describe block: its hooks make a temp directory before the tests and, after them,
 * close every store loaded through the session and remove the directory.
 */
export function readerSession(prefix: string): ReaderSession {
  let dir: string | undefined;
  const stores: DuckStore[] = [];
  before(() => {
    dir = makeTempDir(prefix);
  });
  after(async () => {
    for (const s of stores.splice(0)) await s.close();
    if (dir !== undefined) fs.rmSync(dir, { recursive: true, force: true });
  });
  const tracked = async (files: string[], traceIdTag?: string): Promise<{ store: DuckStore; loaded: LoadedFile[] }> => {
    const r = await loadInto(files, traceIdTag);
    stores.push(r.store);
    return r;
  };
  return {
    get dir(): string {
      if (dir === undefined) throw new Error('readerSession: the directory is made by the before hook; read it inside a test');
      return dir;
    },
    loadInto: tracked,
    load: async (files, traceIdTag) => (await tracked(files, traceIdTag)).store,
  };
}

/** Loads files into a fresh in-memory store through the real sniff + loadFiles path. */
export async function loadInto(files: string[], traceIdTag?: string): Promise<{ store: DuckStore; loaded: LoadedFile[] }> {
  const store = new DuckStore({ threads: 2 });
  const loaded = await loadFiles(store, files, { traceIdTag });
  return { store, loaded };
}

/** A ReaderContext for calling one reader or helper directly (source registered in `sources`). */
export async function contextFor(store: DuckStore, file: string, sourceId = 1, traceIdTag = 'trace_id'): Promise<ReaderContext> {
  const sniff = await sniffFile(file);
  await store.run('INSERT INTO sources VALUES ($1, $2, $3, $4, 0, 0, 0, $5)', [sourceId, file, sniff.format, sniff.side, sniff.lineDelimited ? 'line' : 'element']);
  return { store, sourceId, path: file, sniff, traceIdTag };
}

export interface IssueRow {
  line: number;
  severity: string;
  code: string;
  message: string;
}

export async function issuesOf(store: DuckStore, sourceId = 1): Promise<IssueRow[]> {
  return store.all<IssueRow & Record<string, unknown>>(
    'SELECT line, severity, code, message FROM load_issues WHERE source_id = $1 ORDER BY line, code',
    [sourceId],
  );
}
