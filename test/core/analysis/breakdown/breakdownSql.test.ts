import * as assert from 'assert';
import * as fs from 'fs';
import { ensureBreakdown } from '../../../../src/core/analysis/breakdown/pipeline';
import { DEFAULT_ANALYSIS_OPTIONS, type AnalysisOptions } from '../../../../src/core/analysis/options';
import { fixture } from '../../../helpers/paths';
import { RecordingRunner, type RecordedStatement } from '../../../fixtures/analysis/recording';
import { insertEvent, insertRequests, insertSpans, withStore, type SpanRow } from '../../../fixtures/analysis/tables';

/**
 * Golden files of the SQL the pipeline renders (test/fixtures/analysis/golden/*.sql): the index scan
 * with its phase mask, the phase selection and phase times, root_figures and request_figures, for
 * 3 phases, 0 phases, and a re-analysis whose selectors read the attribute cache. A change to a
 * builder shows up as a reviewable diff of these files; PHASEWISE_UPDATE_GOLDEN=1 rewrites them.
 * The stamps written to derived_meta are left out (hashes that change with the catalog).
 */
const T = 'e0000000000000000000000000000001';

function spans(): SpanRow[] {
  return [
    { trace: T, id: 'f000000000000001', parent: 'ffffffffffffffff', name: 'POST /v1/chat/completions', kind: 'SERVER', startMs: 0, endMs: 100 },
    { trace: T, id: 'f000000000000002', parent: 'f000000000000001', name: 'auth.check', startMs: 1, endMs: 3 },
    { trace: T, id: 'f000000000000003', parent: 'f000000000000001', name: 'inference.acquire_slot', startMs: 3, endMs: 20, attributes: { 'llm.phase': 'queue' } },
    { trace: T, id: 'f000000000000004', parent: 'f000000000000001', name: 'inference.generate', startMs: 20, endMs: 99, attributes: { 'llm.phase': 'generation' } },
  ];
}

const OTHER_PHASES: AnalysisOptions['phases'] = [
  { name: 'gateway', anyOf: [{ names: ['auth.check'] }] },
  { name: 'gpu_queue', anyOf: [{ attributes: { 'llm.phase': 'queue' } }] },
  { name: 'generation', anyOf: [{ attributes: { 'llm.phase': 'generation' } }, { attributePresent: ['gen_ai.operation.name'] }] },
];

/** Each statement with its common indentation removed; bound values beside it (not the stamps). */
function render(statements: readonly RecordedStatement[]): string {
  return statements
    .map((s, i) => {
      const lines = s.sql.trim().split('\n');
      const indent = Math.min(...lines.slice(1).filter((l) => l.trim() !== '').map((l) => l.length - l.trimStart().length));
      const body = lines.map((l, j) => (j === 0 || !Number.isFinite(indent) ? l : l.slice(indent))).join('\n');
      const stamps = /derived_meta/.test(s.sql) && /^\s*(INSERT|DELETE)/.test(s.sql);
      const params = s.params === undefined || stamps ? '' : `\n-- params: ${JSON.stringify(s.params)}`;
      return `-- ${i + 1}\n${body}${params}\n`;
    })
    .join('\n');
}

function checkGolden(name: string, text: string): void {
  const file = fixture('analysis', 'golden', `${name}.sql`);
  if (process.env.PHASEWISE_UPDATE_GOLDEN === '1') {
    fs.mkdirSync(fixture('analysis', 'golden'), { recursive: true });
    fs.writeFileSync(file, text);
  }
  assert.ok(fs.existsSync(file), `${file} is missing: run with PHASEWISE_UPDATE_GOLDEN=1 to write it`);
  assert.strictEqual(text, fs.readFileSync(file, 'utf8'), `${name}: the rendered SQL changed (PHASEWISE_UPDATE_GOLDEN=1 rewrites the golden file; review its diff)`);
}

async function recordFirstAnalysis(options: AnalysisOptions): Promise<string> {
  let text = '';
  await withStore(async (store) => {
    await insertSpans(store, spans());
    await insertEvent(store, T, 'f000000000000004', 'first_token', 30);
    await insertRequests(store, [{ trace: T, totalMs: 110, streaming: true, ttftMs: 35 }]);
    const recorder = new RecordingRunner(store);
    await ensureBreakdown(recorder, options);
    text = render(recorder.statements);
  });
  return text;
}

describe('rendered SQL of the breakdown (golden files)', () => {
  it('first analysis, 3 phases (the defaults)', async () => {
    checkGolden('first-analysis-3-phases', await recordFirstAnalysis(DEFAULT_ANALYSIS_OPTIONS));
  });

  it('first analysis, 0 phases', async () => {
    checkGolden('first-analysis-0-phases', await recordFirstAnalysis({ ...DEFAULT_ANALYSIS_OPTIONS, phases: [] }));
  });

  it('re-analysis with 3 other phases (selectors read the attribute cache)', () =>
    withStore(async (store) => {
      await insertSpans(store, spans());
      await insertRequests(store, [{ trace: T, totalMs: 110 }]);
      await ensureBreakdown(store, DEFAULT_ANALYSIS_OPTIONS);
      const recorder = new RecordingRunner(store);
      await ensureBreakdown(recorder, { ...DEFAULT_ANALYSIS_OPTIONS, phases: OTHER_PHASES });
      checkGolden('reanalysis-3-phases', render(recorder.statements));
    }));
});
