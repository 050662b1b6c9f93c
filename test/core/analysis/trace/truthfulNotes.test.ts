import * as assert from 'assert';
import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import { DEFAULT_ANALYSIS_OPTIONS } from '../../../../src/core/analysis/options';
import { reconcileTrace } from '../../../../src/core/analysis/trace/reconcile';
import { loadFiles } from '../../../../src/core/formats/loadFiles';
import { DuckStore } from '../../../../src/core/store/duckStore';
import { fixture } from '../../../helpers/paths';

const KAFKA = fixture('shared-samples', 'zipkin-json', 'zipkin_zipkin-lens_testdata_messaging-kafka.json');
const TRACE = '00000000000000000562809467078eab';

interface ZipkinSpan {
  id: string;
  parentId?: string;
  name: string;
  tags?: Record<string, string>;
}

/** Zipkin Lens's Kafka trace, changed by `edit`, loaded alone. */
async function withEdited(edit: (spans: ZipkinSpan[]) => ZipkinSpan[], body: (store: DuckStore) => Promise<void>): Promise<void> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'pw-notes-'));
  const file = path.join(dir, 'kafka.json');
  fs.writeFileSync(file, JSON.stringify(edit(JSON.parse(fs.readFileSync(KAFKA, 'utf8')) as ZipkinSpan[])));
  const store = new DuckStore();
  try {
    await loadFiles(store, [file]);
    await body(store);
  } finally {
    await store.close();
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

describe('notes that agree with each other and with the file', () => {
  it('several top spans and no SERVER span: one note naming what the candidates are', async () => {
    // Two on-message spans lose their parent: with the poll, three spans without a parent ID, none SERVER.
    const edit = (spans: ZipkinSpan[]): ZipkinSpan[] =>
      spans.map((s) => (s.id === '09fdf808ef0d60c0' || s.id === 'e73d7bc0194a76e0' ? { ...s, parentId: undefined } : s));
    await withEdited(edit, async (store) => {
      const rec = await reconcileTrace(store, TRACE, DEFAULT_ANALYSIS_OPTIONS);
      assert.ok(rec);
      const roots = rec.notes.filter((n) => /root/.test(n));
      assert.deepStrictEqual(roots, ['3 root candidates (spans without a parent ID; no SERVER span is a candidate): a collision, not matched']);
    });
  });

  it('the unchanged trace: its one top span is taken as the root, and said so', async () => {
    await withEdited((s) => s, async (store) => {
      const rec = await reconcileTrace(store, TRACE, DEFAULT_ANALYSIS_OPTIONS);
      assert.ok(rec);
      assert.deepStrictEqual(rec.notes.filter((n) => /root/.test(n)), ['no SERVER root candidate: the span without a parent was taken as the root']);
    });
  });

  it('a repeated row whose tags differ is not called the same span exported again', async () => {
    // Appended: an identical copy of the 6th span (element 29) and a copy of the 7th with one more tag (element 30).
    const edit = (spans: ZipkinSpan[]): ZipkinSpan[] => [...spans, { ...spans[5] }, { ...spans[6], tags: { ...spans[6].tags, 'kafka.partition': '3' } }];
    await withEdited(edit, async (store) => {
      const issues = await store.all<{ line: number; message: string }>("SELECT line, message FROM load_issues WHERE code = 'duplicate-span'");
      assert.deepStrictEqual(issues, [{
        line: 29,
        message:
          '2 duplicate span row(s) dropped (first at element 29): 1 the same span exported again (identical rows); ' +
          '1 with the same span ID, kind, service and times as an earlier row but different tags or attributes: only the first row\'s values are loaded',
      }]);
    });
  });
});
