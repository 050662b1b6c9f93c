// The probe worker's messages (src/extension/probe/probeProtocol.ts, declared with src/protocol/schema.ts):
// a real probe job crosses to the worker thread and its real answer is checked on the host's side; a job
// the declaration refuses comes back as an error naming the field.
import * as assert from 'assert';
import { mkdtempSync, readFileSync, rmSync } from 'fs';
import * as os from 'os';
import * as path from 'path';
import { freeLoopbackPort } from '../helpers/ports';
import { runProbeJob } from '../../src/extension/probe/probeClient';
import { probeWorkerMessage, type ProbeJob } from '../../src/extension/probe/probeProtocol';

const noCancel = { onCancel: (): void => undefined };

describe('probe worker protocol', function () {
  this.timeout(60_000);
  let dir: string;
  before(() => (dir = mkdtempSync(path.join(os.tmpdir(), 'pw-probe-protocol-'))));
  after(() => rmSync(dir, { recursive: true, force: true }));

  it('a probe to a closed port: the worker answers a probe message the declaration accepts, and writes its record', async () => {
    const port = await freeLoopbackPort(); // nobody listens there: the probe's connection is refused
    const job: ProbeJob = {
      kind: 'probe',
      request: { baseUrl: `http://127.0.0.1:${port}`, model: 'm', stream: true, timeoutMs: 5000 },
      backend: { kind: 'none' },
      traceTimeoutMs: 1000,
      quietMs: 100,
      outDir: dir,
    };
    const stages: string[] = [];
    const answer = await runProbeJob(job, (t) => stages.push(t), noCancel);
    assert.strictEqual(answer.type, 'probe');
    if (answer.type !== 'probe') return;
    assert.strictEqual(answer.result.outcome, 'transport_failed');
    assert.strictEqual(answer.result.trace, null);
    assert.strictEqual(probeWorkerMessage.check(answer, 'm'), undefined);
    // The record the worker wrote is the probe's: same trace ID as the answer.
    const record = JSON.parse(readFileSync(answer.files?.records ?? '', 'utf8').trim()) as Record<string, unknown>;
    assert.strictEqual(Object.values(record).includes(answer.result.trace_id), true, JSON.stringify(record));
  });

  it('a job without a base URL is refused by the worker with the field named', async () => {
    const bad = { kind: 'probe', request: { model: 'm', stream: false, timeoutMs: 5000 }, backend: { kind: 'none' }, traceTimeoutMs: 1000, quietMs: 100 } as unknown as ProbeJob;
    await assert.rejects(runProbeJob(bad, () => undefined, noCancel), /probe job\.request\.baseUrl: expected a string/);
  });

  it('a worker answer with an outcome outside the ledger or a propagation without its problems is refused with its path', () => {
    const result = { trace_id: 'a'.repeat(32), traceparent: 'x', url: 'u', outcome: 'succeeded', started_epoch_ms: 1, reconcile: [], notes: [], propagation: null, trace: null };
    const ok = { type: 'probe', result, text: '', files: null };
    assert.strictEqual(probeWorkerMessage.check(ok, 'm'), undefined);
    assert.match(probeWorkerMessage.check({ ...ok, result: { ...result, outcome: 'fine' } }, 'm') ?? '', /^m\.result\.outcome: expected one of/);
    assert.match(probeWorkerMessage.check({ ...ok, result: { ...result, propagation: { ok: false, phases_present: [], phases_missing: [] } } }, 'm') ?? '', /^m\.result\.propagation\.problems: /);
    assert.match(probeWorkerMessage.check({ type: 'done' }, 'm') ?? '', /^m\.type: expected one of/);
  });
});
