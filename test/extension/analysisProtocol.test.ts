import * as assert from 'assert';
import { isHostMessage, isWorkerMessage, reviveError, serializeError, type WorkerMessage } from '../../src/extension/analysisProtocol';
import { CancelledError, ContractError, InputError } from '../../src/core/errors';

/** One valid message of each worker message type (the declaration's tags: a new type needs one here). */
const VALID: Record<WorkerMessage['type'], Record<string, unknown>> = {
  progress: { type: 'progress', message: 'loading k6.ndjson', fraction: null },
  file: { type: 'file', file: '/tmp/k6.ndjson', bytes: 12, side: 'client', totalBytes: 40 },
  notes: { type: 'notes', notes: ['a.loadcontract.yaml:1:1: warning x y'] },
  result: {
    type: 'result',
    report: { phasewise_version: '0.1.0', verdict: { status: 'pass', broken_phase: null, reasons: [] }, join: { client_requests: 2, matched: 2 } },
    markdown: '# PASS\n',
  },
  error: { type: 'error', error: { kind: 'cancelled' } },
};

describe('analysis worker protocol (messages declared once with src/protocol/schema.ts)', () => {
  it('accepts one message of every declared type, and only those types', () => {
    for (const message of Object.values(VALID)) assert.ok(isWorkerMessage(message), JSON.stringify(message));
    assert.ok(!isWorkerMessage({ type: 'cancel' }));
    assert.ok(!isWorkerMessage({ type: 'toString' }), 'a prototype member is not a message type');
    assert.ok(!isWorkerMessage(null) && !isWorkerMessage('progress') && !isWorkerMessage({}));
    assert.ok(isHostMessage({ type: 'cancel' }));
    assert.ok(!isHostMessage(VALID.progress));
  });

  it('rejects a declared type with a field missing or of the wrong kind', () => {
    const broken: Array<Record<string, unknown>> = [
      { type: 'progress', message: 'x' },
      { type: 'progress', message: 1, fraction: 0.5 },
      { type: 'file', file: '/f', bytes: '12', side: 'client', totalBytes: 12 },
      { type: 'file', file: '/f', bytes: 12, side: 'summary', totalBytes: 12 },
      { type: 'file', file: '/f', bytes: 12, side: 'client' },
      { type: 'notes', notes: ['ok', 3] },
      { type: 'result', report: null, markdown: '' },
      { type: 'result', report: { phasewise_version: '0.1.0', join: { client_requests: 2, matched: 2 } }, markdown: '' },
      { type: 'error', error: 'boom' },
      { type: 'error', error: { kind: 'input', file: 'f' } },
    ];
    for (const message of broken) assert.ok(!isWorkerMessage(message), JSON.stringify(message));
  });

  it('carries every error kind across as one the declaration accepts, and revives its class', () => {
    const errors = [new CancelledError(), new InputError('run.ndjson', 3, 'a JSON object', 'text'), new ContractError('c.yaml', ['c.yaml:1:1: error x y']), new Error('boom')];
    for (const err of errors) {
      const serialized = serializeError(err);
      assert.ok(isWorkerMessage({ type: 'error', error: serialized }), JSON.stringify(serialized));
      const revived = reviveError(serialized);
      assert.strictEqual(revived.constructor, err.constructor);
      assert.strictEqual(revived.message, err.message);
    }
  });
});
