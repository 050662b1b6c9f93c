// The run worker's messages (src/extension/runs/workerProtocol.ts, declared with src/protocol/schema.ts):
// answers and notifications are checked against their declarations, and every error kind crosses the
// thread as an answer the declaration accepts, revived with its class and fields.
import * as assert from 'assert';
import { CancelledError, ContractError, InputError } from '../../src/core/errors';
import { reviveError, serializeError } from '../../src/extension/runs/workerErrors';
import * as P from '../../src/extension/runs/workerProtocol';

const okProgress = { job: 3, message: 'loading k6.ndjson', fraction: null, file: '/r/k6.ndjson', bytes: 12, total_bytes: 40 };

describe('run worker protocol', () => {
  it('a progress notification with a field missing or of the wrong kind is refused, with its path', () => {
    assert.strictEqual(P.Progress.params.check(okProgress, 'p'), undefined);
    assert.match(P.Progress.params.check({ ...okProgress, bytes: '12' }, 'p') ?? '', /^p\.bytes: expected a finite number/);
    assert.match(P.Progress.params.check({ ...okProgress, job: undefined }, 'p') ?? '', /^p\.job: /);
    assert.match(P.Cancel.params.check({}, 'c') ?? '', /^c\.job: /);
  });

  it('every error kind crosses as an answer the declaration accepts, and revives its class and fields', () => {
    const errors = [new CancelledError(), new InputError('run.ndjson', 3, 'a JSON object', 'text'), new ContractError('c.yaml', ['c.yaml:1:1: error x y']), new Error('boom')];
    for (const err of errors) {
      const answer = { error: serializeError(err) };
      assert.strictEqual(P.OpenRun.result.check(answer, 'a'), undefined, JSON.stringify(answer));
      const revived = reviveError(structuredClone(answer.error));
      assert.strictEqual(revived.constructor, err.constructor);
      assert.strictEqual(revived.message, err.message);
    }
    const input = reviveError(serializeError(new InputError('/r/spans.json', 7, 'a span export', 'prose'))) as InputError;
    assert.deepStrictEqual([input.file, input.line, input.expected, input.found], ['/r/spans.json', 7, 'a span export', 'prose']);
  });

  it('an answer whose value lacks what the views need is refused', () => {
    const summary = { title: 't', analyzed_at: 1, phasewise_version: '0.1.0', contract: null, window_size_ms: 30000, phases: [], inputs: [], verdict: { status: 'pass', broken_phase: null, reasons: [] } };
    const bad = { value: { key: 'k', fingerprints: [], summary, reused: true, load_ms: 0, analyze_ms: 1 } };
    assert.match(P.OpenRun.result.check(bad, 'a') ?? '', /^a\.value\.summary\.join: expected an object/);
  });
});
