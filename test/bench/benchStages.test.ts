/**
 * The bench's "where the time goes": the readers and the analysis name their stages on the store
 * (src/core/store/stage.ts), the stage clock charges wall and CPU time to them, and bench/RESULTS.md
 * keeps one current section per machine that a later run merges into (bench/run/results.ts).
 */
import * as assert from 'assert';
import * as path from 'path';
import { analyzeRun } from '../../src/core/analysis/analyze';
import { DEFAULT_ANALYSIS_OPTIONS } from '../../src/core/analysis/options';
import { loadFiles } from '../../src/core/formats/loadFiles';
import { DuckStore, type Params, type QueryRunner, type Row } from '../../src/core/store/duckStore';
import { StageClock } from '../../bench/run/stageClock';
import { machineSection, mergeResults, readSections, type MachineResults, type Measurement, type SizeSummary } from '../../bench/run/results';

const SAMPLES = path.resolve(__dirname, '..', '..', '..', 'samples');

/** Records the stage marks in order, statements counted per stage. */
class StageRecorder implements QueryRunner {
  readonly marks: string[] = [];
  readonly statements = new Map<string, number>();
  constructor(private readonly inner: QueryRunner) {}
  stage(name: string): void {
    this.marks.push(name);
  }
  private count(): void {
    const at = this.marks[this.marks.length - 1] ?? '(none)';
    this.statements.set(at, (this.statements.get(at) ?? 0) + 1);
  }
  run(sql: string, params?: Params): Promise<void> {
    this.count();
    return this.inner.run(sql, params);
  }
  all<T extends Row = Row>(sql: string, params?: Params): Promise<T[]> {
    this.count();
    return this.inner.all<T>(sql, params);
  }
}

function summary(size: string, input: string, wall: number): SizeSummary {
  const m: Measurement = {
    size, input, inputBytes: 1e6, loadAvg: '1.0 1.0 1.0',
    result: { method: 'load', wallSeconds: wall, maxRssMB: 100, cpuSeconds: wall, steps: [], stages: [{ stage: 'read spans', wallSeconds: wall / 2, cpuSeconds: wall / 2 }] },
  };
  return { size, input, inputBytes: 1e6, rows: [m], envelope: { ok: true, note: 'n/a' } };
}

function results(key: string, summaries: SizeSummary[], editor: string[] = []): MachineResults {
  return { key, machine: [`- CPU: ${key}`], commands: ['npm run bench'], summaries, editor };
}

describe('bench stages', function () {
  this.timeout(120_000);

  it('a first load and analysis name every stage, in the order they run, and every statement falls in one', async () => {
    const store = new DuckStore();
    const rec = new StageRecorder(store);
    try {
      await loadFiles(rec, [path.join(SAMPLES, 'k6.ndjson')], { expectSide: 'client' });
      await loadFiles(rec, [path.join(SAMPLES, 'spans.otlp.jsonl')], { expectSide: 'server' });
      await analyzeRun(rec, { ...DEFAULT_ANALYSIS_OPTIONS }, []);
    } finally {
      await store.close();
    }
    const firstSeen = rec.marks.filter((m, i) => rec.marks.indexOf(m) === i);
    assert.deepStrictEqual(firstSeen, [
      'read client', 'read spans', 'catalog', 'index', 'phases', 'roots', 'per-request table',
      'join and warnings', 'slow traces', 'metric tables', 'ledger', 'windows', 'tail', 'gates and verdict',
      'inputs and load issues', 'group dimensions', 'groups', 'window series', 'join bias and provenance', 'user observed', 'stages', 'figure cache',
    ]);
    assert.strictEqual(rec.statements.get('(none)'), undefined, 'a statement ran before the first stage mark');
    for (const stage of ['read client', 'read spans', 'index', 'per-request table', 'metric tables']) assert.ok((rec.statements.get(stage) ?? 0) > 0, stage);
  });

  it('the stage clock charges wall and CPU time to the running stage, adding up repeated names', async () => {
    const clock = new StageClock();
    clock.enter('busy');
    // Busy for 50 ms of this process's CPU time (not of wall time: on a loaded machine 60 ms of wall
    // time gave 25 ms of CPU).
    const cpu0 = process.cpuUsage();
    for (;;) {
      const used = process.cpuUsage(cpu0);
      if (used.user + used.system >= 50_000) break;
      Math.sqrt(Math.random());
    }
    clock.enter('idle');
    await new Promise((r) => setTimeout(r, 60));
    clock.enter('busy');
    const stages = clock.finish();
    assert.deepStrictEqual(stages.map((s) => s.stage), ['busy', 'idle']);
    const [busy, idle] = stages;
    assert.ok(busy.cpuSeconds >= 0.049, `busy CPU ${busy.cpuSeconds}`);
    assert.ok(idle.wallSeconds >= 0.05 && idle.cpuSeconds < idle.wallSeconds, `idle ${JSON.stringify(idle)}`);
  });

  it('a run merges into its machine\'s section: measured rows replace, the others and other machines stay', () => {
    const first = mergeResults(undefined, results('CPU A × 2', [summary('10k', 'sdk', 1), summary('100k', 'sdk', 10)], ['- editor A']));
    const withB = mergeResults(first, results('CPU B × 4', [summary('10k', 'sdk', 0.5)]));
    const again = mergeResults(withB, results('CPU A × 2', [summary('100k', 'sdk', 8), summary('100k', 'real', 9)]));
    const sections = readSections(again);
    assert.deepStrictEqual(sections.map((s) => s.key), ['CPU A × 2', 'CPU B × 4']);
    const a = sections[0];
    assert.deepStrictEqual(a.summaries.map((s) => `${s.size} ${s.input} ${s.rows[0].result.wallSeconds}`), ['10k sdk 1', '100k sdk 8', '100k real 9']);
    assert.deepStrictEqual(a.editor, ['- editor A'], 'editor figures not measured now are kept');
    assert.strictEqual(again.split('\n').filter((l) => l.startsWith('## ')).length, 2, 'one section per machine');
    assert.ok(machineSection(a).includes('| read spans | 0.50 | 0.50 | 4.00 | 4.00 | 4.50 | 4.50 |'), machineSection(a));
  });
});
