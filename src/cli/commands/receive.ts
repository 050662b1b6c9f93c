/**
 * `phasewise receive`: the embedded OTLP/HTTP receiver in the foreground. A developer points the
 * gateway's exporter at it (OTEL_EXPORTER_OTLP_ENDPOINT=http://127.0.0.1:4318) and needs nothing else.
 * Spans go to a JSONL file (the Collector file exporter's layout) and/or a DuckDB run; SIGINT or
 * SIGTERM stops it: it flushes, prints what it received and refused, and exits 0, or 4 when an
 * export could not be stored (each was answered 503: the summary names the file and why).
 */
import { existsSync, statSync } from 'fs';
import * as path from 'path';
import { InputError } from '../../core/errors';
import { DuckSink } from '../../core/probe/receiver/duckSink';
import { isLoopbackHost, parseListenAddress, type ReceiverSummary } from '../../core/probe/receiver/events';
import { DEFAULT_MAX_BODY_BYTES, OtlpReceiver } from '../../core/probe/receiver/receiver';
import { JsonlFileSink, type SpanSink } from '../../core/probe/receiver/sinks';
import { DuckStore } from '../../core/store/duckStore';
import { flagBoolean, flagString, parseArgs, UsageError, type FlagSpec } from '../args';
import { EXIT_BAD_INPUT, EXIT_PASS } from '../exitCodes';
import { note, stderrIsTerminal, writeStdout } from '../output';
import { sameFile } from '../outputFile';

const RECEIVE_FLAGS: Readonly<Record<string, FlagSpec>> = {
  listen: { kind: 'string', alias: 'l' },
  out: { kind: 'string', alias: 'o' },
  db: { kind: 'string' },
  append: { kind: 'boolean' },
  'max-body': { kind: 'string' },
  format: { kind: 'string', alias: 'f' },
  progress: { kind: 'boolean' },
  quiet: { kind: 'boolean', alias: 'q' },
};

/** `20MiB`, `512KiB`, `1000000` → bytes. */
export function parseBytes(text: string, what: string): number {
  const m = /^(\d+(?:\.\d+)?)\s*(b|kb|kib|mb|mib|gb|gib)?$/i.exec(text.trim());
  if (!m) throw new UsageError(`${what} expects a size such as 20MiB or 512KiB, got '${text}'`);
  const unit = (m[2] ?? 'b').toLowerCase();
  const scale: Record<string, number> = { b: 1, kb: 1e3, kib: 1024, mb: 1e6, mib: 1024 ** 2, gb: 1e9, gib: 1024 ** 3 };
  const bytes = Math.floor(Number(m[1]) * scale[unit]);
  if (bytes < 1024) throw new UsageError(`${what} must be at least 1 KiB, got '${text}'`);
  return bytes;
}

export function listenFlag(text: string | undefined, flag: string): { host: string; port: number } {
  const listen = parseListenAddress(text ?? '127.0.0.1:4318');
  if (!listen) throw new UsageError(`${flag} expects HOST:PORT such as 127.0.0.1:4318, got '${text}'`);
  if (!isLoopbackHost(listen.host)) {
    note(`phasewise: warning: listening on ${listen.host}: reachable from other machines, and the receiver accepts spans without authentication`);
  }
  return listen;
}

export async function runReceive(argv: readonly string[]): Promise<number> {
  const args = parseArgs(argv, RECEIVE_FLAGS);
  if (args.positional.length > 0) throw new UsageError(`unexpected argument '${args.positional[0]}'`);
  const format = flagString(args, 'format') ?? 'text';
  if (format !== 'text' && format !== 'json') throw new UsageError(`--format expects text or json, got '${format}'`);
  const listen = listenFlag(flagString(args, 'listen'), '--listen');
  const maxBody = flagString(args, 'max-body');
  const db = flagString(args, 'db');
  // Nothing received is ever only counted: without --out or --db the spans go to a file named here.
  const out = flagString(args, 'out') ?? (db === undefined ? `spans-${stamp()}.otlp.jsonl` : undefined);
  const quiet = flagBoolean(args, 'quiet');
  const live = !quiet && (flagBoolean(args, 'progress') || stderrIsTerminal());

  if (out !== undefined && db !== undefined && (await sameFile(out, db))) {
    throw new InputError(out, undefined, 'a file path for --out other than the --db database', `${path.resolve(db)} itself; nothing was written`);
  }
  const sinks: SpanSink[] = [];
  let store: DuckStore | undefined;
  if (out !== undefined) {
    if (existsSync(out) && statSync(out).isFile() && !flagBoolean(args, 'append')) note(`phasewise: ${out} exists: replacing it (--append keeps its lines)`);
    sinks.push(new JsonlFileSink(out, flagBoolean(args, 'append')));
  }
  if (db !== undefined) {
    store = new DuckStore({ database: path.resolve(db) });
    try {
      await store.all('SELECT 1 AS ok');
    } catch (err) {
      await store.close().catch(() => undefined);
      // Our own refusals say what the file is; anything else is DuckDB's text, never shown (docs/metrics.md §7).
      if (err instanceof InputError) throw err;
      throw new InputError(db, undefined, 'a DuckDB database file written by phasewise (or a new path)', 'a file DuckDB cannot open for writing');
    }
    const sourcePath = out !== undefined ? path.resolve(out) : `otlp-receiver://${listen.host}:${listen.port}`;
    sinks.push(new DuckSink(store, { sourcePath }, `database ${db}`));
  }

  const receiver = new OtlpReceiver({ ...listen, sinks, maxBodyBytes: maxBody ? parseBytes(maxBody, '--max-body') : DEFAULT_MAX_BODY_BYTES });
  let lastLine = 0;
  receiver.on('event', (e) => {
    if (e.type === 'refused' && !quiet) note(`phasewise: refused an export: HTTP ${e.status}: ${e.reason}`);
    else if (e.type === 'error') note(`phasewise: error: ${e.message}`);
    else if (e.type === 'export' && live && Date.now() - lastLine > 1000) {
      lastLine = Date.now();
      const s = receiver.snapshot();
      note(`phasewise: ${s.accepted_spans} spans in ${s.exports_accepted} exports (${s.rejected_spans} refused spans)`);
    }
  });
  try {
    await receiver.listen();
  } catch (err) {
    await store?.close().catch(() => undefined);
    const code = typeof err === 'object' && err !== null && 'code' in err ? String((err as { code: unknown }).code) : '';
    if (code === 'EADDRINUSE') throw new UsageError(`--listen ${listen.host}:${listen.port}: the port is in use (another receiver or Collector?)`);
    if (code === 'EADDRNOTAVAIL' || code === 'ENOTFOUND') throw new UsageError(`--listen ${listen.host}: not an address of this machine`);
    throw err;
  }
  if (!quiet) {
    note(`phasewise: receiving OTLP/HTTP traces on http://${receiver.address}/v1/traces (protobuf or JSON, gzip); storing to ${sinks.map((s) => s.label).join(' and ')}`);
    note(`phasewise: point the exporter here: OTEL_EXPORTER_OTLP_TRACES_ENDPOINT=http://${receiver.address}/v1/traces; Ctrl-C stops`);
  }

  await new Promise<void>((resolve) => {
    const stop = (): void => {
      process.off('SIGINT', stop);
      process.off('SIGTERM', stop);
      resolve();
    };
    process.on('SIGINT', stop);
    process.on('SIGTERM', stop);
  });
  if (!quiet) note('phasewise: stopping: flushing what was received');
  const summary = await receiver.stop();
  await store?.close();
  if (format === 'json') await writeStdout(JSON.stringify(summary, null, 2) + '\n');
  else if (!quiet) await writeStdout(summaryText(summary).join('\n') + '\n');
  const failed = Object.keys(summary.not_stored);
  if (failed.length > 0) {
    note(`phasewise: not everything sent was stored to ${failed.join(' and ')} (those exports were answered HTTP 503, so the exporter may have sent them again)`);
    return EXIT_BAD_INPUT;
  }
  return EXIT_PASS;
}

export function summaryText(s: ReceiverSummary): string[] {
  const refused = Object.entries(s.refused).map(([status, n]) => `${n} × HTTP ${status}`);
  return [
    `received ${s.accepted_spans} span(s) in ${s.exports_accepted} export(s) on ${s.address} over ${s.duration_s.toFixed(1)} s (${(s.bytes_received / 1_048_576).toFixed(2)} MiB)`,
    `refused: ${s.rejected_spans} span(s) inside accepted exports; ${refused.length > 0 ? refused.join(', ') : 'no request'}`,
    ...(s.incomplete_requests > 0 ? [`cut off: ${s.incomplete_requests} request(s) whose client closed the connection or stalled before the body was complete (not answered)`] : []),
    ...(s.redactions > 0 ? [`redacted ${s.redactions} occurrence(s) of the API token before storing`] : []),
    `stored to: ${s.stored.join(', ') || 'nothing'}`,
    ...Object.entries(s.not_stored).map(([label, f]) => `not stored: ${f.exports} export(s) (${f.spans} span(s)) to ${label}: ${f.reason}; each was answered HTTP 503`),
  ];
}

function stamp(): string {
  return new Date().toISOString().replace(/[-:]/g, '').replace('T', '-').replace(/\..*$/, '');
}
