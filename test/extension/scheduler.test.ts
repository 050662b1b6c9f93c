// The validation scheduler shared by the text editor and the form: one validation per pause in typing,
// at most one in flight per document, and the text as it is when a validation starts.
import * as assert from 'assert';
import { ValidationScheduler } from '../../src/extension/contract/scheduler';

const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

/** A validation that records which text it saw and finishes when the test says so. */
function controlled(): { text: string; seen: string[]; release: () => void; validate: (key: string) => Promise<string> } {
  const waiting: (() => void)[] = [];
  const state = {
    text: 'a',
    seen: [] as string[],
    release: (): void => waiting.shift()?.(),
    validate: (): Promise<string> => {
      const t = state.text;
      state.seen.push(t);
      return new Promise<string>((resolve) => waiting.push(() => resolve(`checked ${t}`)));
    },
  };
  return state;
}

describe('contract validation scheduler', () => {
  it('validates once after a burst of changes, on the text after the last one', async () => {
    const seen: string[] = [];
    let text = '';
    const s = new ValidationScheduler(async () => {
      seen.push(text);
      return text;
    }, 20);
    for (const t of ['v1', 'v12', 'v123']) {
      text = t;
      s.schedule('doc');
      await sleep(5);
    }
    assert.deepStrictEqual(seen, []);
    await sleep(60);
    assert.deepStrictEqual(seen, ['v123']);
    s.dispose();
  });

  it('keeps one validation in flight; callers during it get one more run on the newest text', async () => {
    const c = controlled();
    const s = new ValidationScheduler(c.validate, 10);
    const first = s.now('doc');
    c.text = 'b';
    const second = s.now('doc');
    c.text = 'c';
    const third = s.now('doc');
    assert.deepStrictEqual(c.seen, ['a'], 'nothing else starts while one runs');
    assert.strictEqual(s.busy('doc'), true);
    c.release();
    assert.strictEqual(await first, 'checked a');
    await sleep(0);
    assert.deepStrictEqual(c.seen, ['a', 'c'], 'the follow-up reads the text as it is when it starts');
    c.release();
    assert.strictEqual(await second, 'checked c');
    assert.strictEqual(await third, 'checked c');
    assert.strictEqual(s.busy('doc'), false);
    s.dispose();
  });

  it('a change scheduled while a validation runs starts after it, not beside it', async () => {
    const c = controlled();
    const s = new ValidationScheduler(c.validate, 5);
    void s.now('doc');
    c.text = 'b';
    s.schedule('doc');
    await sleep(30);
    assert.deepStrictEqual(c.seen, ['a']);
    c.release();
    await sleep(10);
    assert.deepStrictEqual(c.seen, ['a', 'b']);
    c.release();
    s.dispose();
  });

  it('documents are independent, and a forgotten one never validates again', async () => {
    const seen: string[] = [];
    const s = new ValidationScheduler(async (key) => {
      seen.push(key);
      return key;
    }, 10);
    s.schedule('x');
    s.schedule('y');
    s.forget('y');
    await sleep(40);
    assert.deepStrictEqual(seen, ['x']);
    s.dispose();
    s.schedule('x');
    assert.strictEqual(await s.now('x'), undefined);
    await sleep(30);
    assert.deepStrictEqual(seen, ['x']);
  });
});
