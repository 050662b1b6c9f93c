import * as assert from 'assert';
import { HostChannel } from '../../src/protocol/channel';
import { Copy, PROTOCOL_REVISION, Ready, ThemeChanged } from '../../src/protocol/common';
import { Endpoint, type WireMessage } from '../../src/protocol/ipc';
import * as R from '../../src/protocol/report';
import * as W from '../../src/protocol/waterfall';
import { decodeJson, encodeJson } from '../../src/protocol/schema';

/** A host channel and a webview endpoint wired back to back, with every wire message recorded. */
function pair(): { host: HostChannel; view: Endpoint; toView: WireMessage[]; toHost: WireMessage[]; problems: string[] } {
  const toView: WireMessage[] = [];
  const toHost: WireMessage[] = [];
  const problems: string[] = [];
  let view: Endpoint | undefined;
  const host = new HostChannel({
    post: (m) => {
      toView.push(m);
      queueMicrotask(() => view?.receive(m));
    },
    onProblem: (p) => problems.push(`host ${p.method}: ${p.message}`),
  });
  view = new Endpoint({
    side: 'webview',
    post: (m) => {
      toHost.push(m);
      queueMicrotask(() => host.receive(m));
    },
    onProblem: (p) => problems.push(`view ${p.method}: ${p.message}`),
  });
  return { host, view, toView, toHost, problems };
}

const tick = (): Promise<void> => new Promise((r) => setTimeout(r, 5));

describe('protocol: declarations, guards, ready queue and request ids', () => {
  it('holds host messages until webview/ready, then delivers them in order', async () => {
    const { host, view, toView } = pair();
    const got: string[] = [];
    view.onNotification(ThemeChanged, (p) => got.push(p.kind));
    host.notify(ThemeChanged, { kind: 'light' });
    host.notify(ThemeChanged, { kind: 'high-contrast' });
    await tick();
    assert.deepStrictEqual(toView, [], 'nothing is posted before ready');
    assert.strictEqual(host.ready, false);
    view.notify(Ready, { view: 'waterfall', revision: PROTOCOL_REVISION });
    await tick();
    assert.strictEqual(host.ready, true);
    assert.deepStrictEqual(got, ['light', 'high-contrast']);
    host.webviewReloaded();
    host.notify(ThemeChanged, { kind: 'dark' });
    await tick();
    assert.deepStrictEqual(got, ['light', 'high-contrast'], 'a reloaded webview gets nothing until it is ready again');
    view.notify(Ready, { view: 'waterfall', revision: PROTOCOL_REVISION });
    await tick();
    assert.deepStrictEqual(got, ['light', 'high-contrast', 'dark']);
  });

  it('refuses a ready message of another protocol revision', async () => {
    const { host, view, problems } = pair();
    view.notify(Ready, { view: 'report', revision: PROTOCOL_REVISION + 1 });
    await tick();
    assert.strictEqual(host.ready, false);
    assert.match(problems.join('\n'), /revision/);
  });

  it('matches replies to requests by id, whatever order the replies come in', async () => {
    const { host, view } = pair();
    view.notify(Ready, { view: 'report', revision: PROTOCOL_REVISION });
    await tick();
    const delays: Record<number, number> = { 0: 30, 1: 1, 2: 15 };
    host.onRequest(R.ListTraces, async (p) => {
      const index = p.selection.kind === 'window' ? p.selection.index : -1;
      await new Promise((r) => setTimeout(r, delays[index]));
      return { traces: [], total: index * 100 };
    });
    const replies = await Promise.all([0, 1, 2].map((index) => view.request(R.ListTraces, { selection: { kind: 'window', index }, limit: 5 })));
    assert.deepStrictEqual(replies.map((r) => r.total), [0, 100, 200]);
  });

  it('checks params against the declaration on both sides', async () => {
    const { host, view, problems, toHost } = pair();
    // The sender refuses what does not match…
    assert.throws(() => view.notify(R.OpenTrace, { trace_id: 42 } as unknown as { trace_id: string }), /report\/openTrace params\.trace_id: expected a string/);
    // …and a receiver refuses a forged message with the path of the mismatch.
    const opened: string[] = [];
    host.onNotification(R.OpenTrace, (p) => opened.push(p.trace_id));
    host.receive({ phasewise: 1, kind: 'notification', method: 'report/openTrace', params: { trace: 'x' } });
    assert.deepStrictEqual(opened, []);
    assert.match(problems.join('\n'), /report\/openTrace params\.trace_id: expected a string, got undefined/);
    // A tagged union names the allowed tags.
    const err = R.traceSelection.check({ kind: 'bucket', index: 1 }, 'selection');
    assert.match(err ?? '', /selection\.kind: expected one of "window", "envelope"/);
    assert.strictEqual(R.traceSelection.check({ kind: 'envelope', from_ms: -5, to_ms: 0 }, 's'), undefined);
    // Non-finite numbers are serialisation bugs.
    assert.match(W.waterfallViewState.check({ run: null, trace_id: 'a', scroll_top: Number.NaN }, 'state') ?? '', /finite number/);
    void toHost;
  });

  it('refuses to send a message of the other direction', () => {
    const { host, view } = pair();
    assert.throws(() => host.notify(Copy, { text: 'x', what: 'y' }), /sent by the webview/);
    assert.throws(() => view.notify(R.DidLoad, { run: null, model: {} as never }), /sent by the host/);
    assert.throws(() => view.onRequest(R.ListTraces, () => ({ traces: [], total: 0 })), /cannot be handled here/);
  });

  it('rejects a request whose handler throws, and pending requests when the channel closes', async () => {
    const { host, view } = pair();
    view.notify(Ready, { view: 'waterfall', revision: PROTOCOL_REVISION });
    await tick();
    host.onRequest(W.Compare, () => {
      throw new Error('the run is no longer in the cache');
    });
    await assert.rejects(view.request(W.Compare, { trace_id: 'a' }), /waterfall\/compare: the run is no longer in the cache/);
    const lonely = new Endpoint({ side: 'webview', post: () => undefined, requestTimeoutMs: 0 });
    const pending = lonely.request(W.Compare, { trace_id: 'a' });
    lonely.dispose();
    await assert.rejects(pending, /closed before the reply/);
  });

  it('times out a request nobody answers', async () => {
    const lonely = new Endpoint({ side: 'webview', post: () => undefined, requestTimeoutMs: 20 });
    await assert.rejects(lonely.request(W.Compare, { trace_id: 'a' }), /no reply after 20 ms/);
  });

  it('carries large models as JSON text, checked against their declaration when decoded', () => {
    const good = { trace_id: 'a', phases: [], matched: true, notes: [], reconciliation: [], root_span_id: null, spans: [], limits: [] };
    assert.deepStrictEqual(decodeJson(encodeJson(good as never), W.traceModelJson, 'trace'), good);
    const bad = { ...good, spans: [{ span_id: 's', parent_span_id: null, name: 'x', kind: 'SERVER', start_ms: 0, duration_ms: 'slow' }] };
    assert.throws(() => decodeJson(encodeJson(bad as never), W.traceModelJson, 'trace'), /^TypeError: trace\.spans\[0\]\.duration_ms: expected a finite number, got string "slow"$/);
    assert.throws(() => decodeJson('{not json' as never, W.traceModelJson, 'trace'), /trace: not JSON/);
    assert.match(W.DidLoad.params.check({ run: null, trace: good }, 'p') ?? '', /p\.trace: expected JSON text, got an object/);
  });

  it('ignores messages that are not Phasewise messages', () => {
    const { host } = pair();
    assert.strictEqual(host.receive({ type: 'vscode-internal' }), false);
    assert.strictEqual(host.receive('text'), false);
    assert.strictEqual(host.receive(null), false);
  });
});
