import { strict as assert } from 'assert';
import * as net from 'net';
import { OtlpReceiver } from '../../../src/core/probe/receiver/receiver';
import { TraceIndex } from '../../../src/core/probe/receiver/traceIndex';

/**
 * A client that stalls mid-body (issue 31, item 22): past the request timeout the receiver answers 408
 * and counts the request as cut off, never as a refusal or a 500 (it was counted as HTTP 500). The
 * timeout is shortened to 500 ms here; the receiver's default is 30 s.
 */
describe('OTLP/HTTP receiver: a client that stalls mid-body', function () {
  this.timeout(20_000);

  it('is answered 408 and counted as cut off, not as a server error', async () => {
    const receiver = new OtlpReceiver({ host: '127.0.0.1', port: 0, sinks: [new TraceIndex()], requestTimeoutMs: 500 });
    await receiver.listen();
    try {
      const port = Number(receiver.address.split(':')[1]);
      const started = Date.now();
      const answer = await new Promise<string>((resolve, reject) => {
        const socket = net.connect(port, '127.0.0.1', () => {
          socket.write(`POST /v1/traces HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nContent-Length: 1000\r\n\r\n{"resourceSpans":[`);
        });
        let text = '';
        socket.on('data', (d: Buffer) => (text += d.toString('latin1')));
        socket.on('error', reject);
        socket.on('close', () => resolve(text));
        setTimeout(() => reject(new Error('the receiver held the stalled request for 10 s')), 10_000).unref();
      });
      assert.match(answer, /^HTTP\/1\.1 408 /);
      // Node looks for expired requests every connectionsCheckingInterval (the timeout here): within two.
      assert.ok(Date.now() - started < 2_500, `cut off after ${Date.now() - started} ms`);
      // The request's own 'aborted' event, counted after the socket closed: wait for it (at most 2 s).
      for (let i = 0; i < 40 && receiver.snapshot().incomplete_requests === 0; i++) await new Promise((r) => setTimeout(r, 50));
      const s = receiver.snapshot();
      assert.deepEqual(s.refused, {});
      assert.equal(s.incomplete_requests, 1);
    } finally {
      await receiver.stop();
    }
  });
});
