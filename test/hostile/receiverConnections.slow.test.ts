/**
 * Connections that hold the receiver without exporting (issue 31, item 19): 300 sockets on
 * 127.0.0.1 that send nothing, stop mid-headers, or trickle headers, against its 256-connection limit.
 * The receiver closes them and exports get in again within seconds. Bounded: 300 sockets per case,
 * every wait capped.
 */
import { strict as assert } from 'assert';
import * as http from 'http';
import * as net from 'net';
import { OtlpReceiver } from '../../src/core/probe/receiver/receiver';
import { TraceIndex } from '../../src/core/probe/receiver/traceIndex';
import { smallJsonExport } from './receiverCli';

const HOLDERS = 300;

/** One export; status -1 when the connection was refused or reset. */
function exportOnce(port: number, first: number): Promise<number> {
  const body = smallJsonExport(1, first);
  return new Promise((resolve) => {
    const req = http.request({ host: '127.0.0.1', port, path: '/v1/traces', method: 'POST', agent: false, headers: { 'content-type': 'application/json', 'content-length': String(body.length) } }, (res) => {
      res.resume();
      res.on('end', () => resolve(res.statusCode ?? 0));
    });
    req.setTimeout(3000, () => req.destroy());
    req.on('error', () => resolve(-1));
    req.end(body);
  });
}

/** Opens HOLDERS sockets doing `behave` once connected; resolves with them and a promise of all closed. */
async function holders(port: number, behave: (s: net.Socket) => void): Promise<{ sockets: net.Socket[]; closedAt: Promise<number[]> }> {
  const started = Date.now();
  const sockets: net.Socket[] = [];
  const closed: Array<Promise<number>> = [];
  for (let i = 0; i < HOLDERS; i++) {
    const s = net.connect(port, '127.0.0.1');
    s.on('error', () => undefined);
    closed.push(new Promise((resolve) => s.on('close', () => resolve(Date.now() - started))));
    await new Promise<void>((resolve) => {
      s.once('connect', () => resolve());
      s.once('close', () => resolve());
    });
    behave(s);
    sockets.push(s);
  }
  return { sockets, closedAt: Promise.all(closed) };
}

describe('hostile receiver connections: idle and slow sockets do not lock exports out (issue 31 item 19)', function () {
  this.timeout(120_000);
  let receiver: OtlpReceiver;
  let port: number;
  let next = 1;
  beforeEach(async () => {
    receiver = new OtlpReceiver({ host: '127.0.0.1', port: 0, sinks: [new TraceIndex()] });
    port = Number((await receiver.listen()).split(':')[1]);
  });
  afterEach(async () => {
    await receiver.stop();
  });

  const cases: Array<[string, (s: net.Socket) => void]> = [
    ['silent sockets (connected, nothing sent)', () => undefined],
    ['sockets stopped mid-headers', (s) => s.write('POST /v1/traces HTTP/1.1\r\nHost: x\r\n')],
    [
      'sockets trickling a header line every second',
      (s) => {
        s.write('POST /v1/traces HTTP/1.1\r\nHost: x\r\n');
        const timer = setInterval(() => (s.writable ? s.write(`X-Slow-${Date.now()}: 1\r\n`) : clearInterval(timer)), 1000);
        s.on('close', () => clearInterval(timer));
      },
    ],
  ];

  for (const [what, behave] of cases) {
    it(`${HOLDERS} ${what}: closed within 15 s, and an export is answered 200 within 15 s`, async () => {
      const held = await holders(port, behave);
      try {
        const deadline = Date.now() + 15_000;
        let status = -1;
        while (status !== 200 && Date.now() < deadline) {
          status = await exportOnce(port, next++);
          if (status !== 200) await new Promise((r) => setTimeout(r, 250));
        }
        assert.equal(status, 200, 'no export got in within 15 s');
        const closedAt = await Promise.race([held.closedAt, new Promise<undefined>((r) => setTimeout(() => r(undefined), 15_000))]);
        assert.ok(closedAt !== undefined, `${held.sockets.filter((s) => !s.destroyed).length} holding sockets still open after 15 s`);
      } finally {
        for (const s of held.sockets) s.destroy();
      }
    });
  }

  it('an export whose storage takes longer than the idle timeout is still answered (the socket is busy, not idle)', async () => {
    await receiver.stop();
    const slow = new TraceIndex();
    const write = slow.write.bind(slow);
    slow.write = async (batch) => {
      await new Promise((r) => setTimeout(r, 8000));
      return write(batch);
    };
    receiver = new OtlpReceiver({ host: '127.0.0.1', port: 0, sinks: [slow] });
    port = Number((await receiver.listen()).split(':')[1]);
    const body = smallJsonExport(1, next++);
    const status = await new Promise<number>((resolve) => {
      const req = http.request({ host: '127.0.0.1', port, path: '/v1/traces', method: 'POST', headers: { 'content-type': 'application/json', 'content-length': String(body.length) } }, (res) => {
        res.resume();
        res.on('end', () => resolve(res.statusCode ?? 0));
      });
      req.on('error', () => resolve(-1));
      req.end(body);
    });
    assert.equal(status, 200);
  });
});
