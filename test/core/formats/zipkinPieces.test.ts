import * as assert from 'assert';
import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import { loadFiles } from '../../../src/core/formats/loadFiles';
import { DuckStore } from '../../../src/core/store/duckStore';
import { fixture } from '../../helpers/paths';

interface ZipkinSpan {
  id: string;
  kind?: string;
  name?: string;
  timestamp?: number;
  duration?: number;
  localEndpoint?: { serviceName?: string };
}

/**
 * Pieces counted independently of the reader: a row without a timestamp whose span ID has a timed row
 * of the same service and of its kind (or it has none); Zipkin's UI merges these (span-cleaner mergeV2ById).
 */
function pieces(spans: readonly ZipkinSpan[]): ZipkinSpan[] {
  const service = (s: ZipkinSpan): string | undefined => s.localEndpoint?.serviceName;
  return spans.filter((s) => s.timestamp === undefined && spans.some((t) => t.id === s.id && t.timestamp !== undefined && service(t) === service(s) && (s.kind === undefined || s.kind === t.kind)));
}

describe('Zipkin spans reported in pieces (zipkinMerge.ts), on the Zipkin Lens test data', () => {
  let store: DuckStore;
  beforeEach(() => {
    store = new DuckStore();
  });
  afterEach(async () => store.close());

  for (const [name, expectedPieces] of [
    ['zipkin_zipkin-lens_testdata_smartthings-mobile-web-install.json', 84],
    ['zipkin_zipkin-lens_testdata_yelp.json', 0],
    ['zipkin_zipkin-lens_testdata_messaging-kafka.json', 0],
  ] as const) {
    it(`${name}: ${expectedPieces} untimed pieces merged, none drawn at 0 ms`, async () => {
      const file = fixture('shared-samples', 'zipkin-json', name);
      const spans = JSON.parse(fs.readFileSync(file, 'utf8')) as ZipkinSpan[];
      const found = pieces(spans);
      assert.strictEqual(found.length, expectedPieces);
      const [loaded] = await loadFiles(store, [file]);
      assert.strictEqual(loaded.records, spans.length - found.length);
      const [row] = await store.all<{ untimed: number; rows: number }>(
        'SELECT count(*) FILTER (WHERE start_ns IS NULL) AS untimed, count(*) AS rows FROM spans WHERE source_id = $1',
        [loaded.sourceId],
      );
      assert.deepStrictEqual(row, { untimed: spans.filter((s) => s.timestamp === undefined).length - found.length, rows: spans.length - found.length });
      const skips = await store.all<{ code: string; count: number }>("SELECT code, count FROM load_skips WHERE source_id = $1 AND code = 'merged-span-piece'", [loaded.sourceId]);
      assert.deepStrictEqual(skips, expectedPieces > 0 ? [{ code: 'merged-span-piece', count: expectedPieces }] : []);
      // Each piece's ID keeps one timed row per service it was seen on: the timed copies are unchanged in number.
      const [ids] = await store.all<{ n: number }>('SELECT count(*) AS n FROM spans WHERE source_id = $1 AND start_ns IS NOT NULL', [loaded.sourceId]);
      assert.strictEqual(ids.n, spans.filter((s) => s.timestamp !== undefined).length);
    });
  }

  it('a piece adds its tags and annotations to the timed row, and its name when the row has none', async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'pw-piece-'));
    const file = path.join(dir, 'pieces.json');
    const base = JSON.parse(fs.readFileSync(fixture('shared-samples', 'zipkin-json', 'zipkin_zipkin-lens_testdata_yelp.json'), 'utf8')) as (ZipkinSpan & { traceId: string; tags?: Record<string, string> })[];
    const t = base[0];
    const piece = { traceId: t.traceId, id: t.id, localEndpoint: t.localEndpoint, tags: { late: 'yes', error: 'boom' }, annotations: [{ timestamp: (t.timestamp as number) + 5, value: 'late.note' }] };
    fs.writeFileSync(file, JSON.stringify([...base, piece]));
    try {
      const [loaded] = await loadFiles(store, [file]);
      assert.strictEqual(loaded.records, base.length);
      const [row] = await store.all<{ late: string; status: string; events: string }>(
        `SELECT attributes['late'] AS late, status, list_transform(events, lambda e: e.name)::VARCHAR AS events FROM spans WHERE source_id = $1 AND line = 1`,
        [loaded.sourceId],
      );
      assert.deepStrictEqual({ late: row.late, status: row.status }, { late: 'yes', status: 'ERROR' });
      assert.match(row.events, /late\.note/);
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });
});
