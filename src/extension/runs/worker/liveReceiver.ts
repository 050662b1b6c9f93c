/**
 * The embedded OTLP/HTTP trace receiver, on the worker's thread: decoding a protobuf or gzip body of
 * up to 20 MiB is tens of milliseconds of JavaScript that would otherwise hold the extension host's
 * event loop. What it accepts goes to a JSONL file (the Collector file exporter's layout; probes read
 * their traces from it) and into the live run's database (DuckSink, under the run's lock), so the
 * run grows in the Runs view as spans arrive.
 */
import type { ReceiverEvent, ReceiverSummary } from '../../../core/probe/receiver/events';
import { isLoopbackHost, parseListenAddress } from '../../../core/probe/receiver/events';
import { DuckSink } from '../../../core/probe/receiver/duckSink';
import { OtlpReceiver } from '../../../core/probe/receiver/receiver';
import { JsonlFileSink } from '../../../core/probe/receiver/sinks';
import type { DuckStore, Params, QueryRunner, Row } from '../../../core/store/duckStore';

export interface LiveReceiverOptions {
  listen: string;
  jsonl: string;
  redact: readonly string[];
  /** Runs `fn` on the live run's open store under its lock. */
  withStore: (fn: (store: DuckStore) => Promise<void>) => Promise<void>;
  /** A line for the log (a non-loopback address is reachable from other machines). */
  warn: (message: string) => void;
  onEvent: (e: { kind: 'export' | 'refused' | 'error' | 'stored'; message: string; accepted_spans: number; stored_spans: number }) => void;
}

/**
 * The DuckSink needs a store for its lifetime, but the live run's store may be closed and reopened
 * (settings changed, a cancel): its statements go to the store open for the load that issues them.
 */
function currentStore(): { set(store: DuckStore | undefined): void; runner: QueryRunner } {
  let current: DuckStore | undefined;
  const need = (): DuckStore => {
    if (current === undefined) throw new Error('the live run is not open');
    return current;
  };
  return {
    set: (store) => (current = store),
    runner: {
      run: (sql, params) => need().run(sql, params),
      all: <T extends Row = Row>(sql: string, params?: Params) => need().all<T>(sql, params),
    },
  };
}

export class LiveReceiver {
  private constructor(
    private readonly receiver: OtlpReceiver,
    readonly address: string,
  ) {}

  static async start(o: LiveReceiverOptions): Promise<LiveReceiver> {
    const listen = parseListenAddress(o.listen);
    if (listen === undefined) throw new Error(`phasewise.receiver.listen: expected HOST:PORT such as 127.0.0.1:4318, got '${o.listen}'`);
    if (!isLoopbackHost(listen.host)) o.warn(`receiver: ${listen.host} is reachable from other machines; spans are accepted without authentication`);
    const holder = currentStore();
    let accepted = 0;
    let stored = 0;
    const db = new DuckSink(holder.runner, {
      sourcePath: o.jsonl,
      // Each load runs with the live run's store open and locked (nothing else on it in between).
      exclusive: (load) =>
        o.withStore(async (store) => {
          holder.set(store);
          try {
            await load();
          } finally {
            holder.set(undefined);
          }
        }),
      onStored: (n) => {
        stored = n;
        o.onEvent({ kind: 'stored', message: `${n} spans stored`, accepted_spans: accepted, stored_spans: stored });
      },
    });
    const receiver = new OtlpReceiver({ ...listen, sinks: [new JsonlFileSink(o.jsonl), db], redact: o.redact });
    receiver.on('event', (e: ReceiverEvent) => {
      if (e.type === 'export') {
        accepted += e.accepted;
        o.onEvent({ kind: 'export', message: `${e.accepted} spans (${e.encoding}, ${e.bytes} bytes)${e.rejected > 0 ? `, ${e.rejected} refused` : ''}`, accepted_spans: accepted, stored_spans: stored });
      } else if (e.type === 'refused') {
        o.onEvent({ kind: 'refused', message: `refused an export: HTTP ${e.status}: ${e.reason}`, accepted_spans: accepted, stored_spans: stored });
      } else if (e.type === 'error') {
        o.onEvent({ kind: 'error', message: e.message, accepted_spans: accepted, stored_spans: stored });
      }
    });
    const address = await receiver.listen();
    return new LiveReceiver(receiver, address);
  }

  /** Flushes both sinks and closes the port. */
  stop(): Promise<ReceiverSummary> {
    return this.receiver.stop();
  }
}
