/**
 * `phasewise receive` as a user runs it, for the hostile receiver cases: the built CLI in a child
 * process on a free 127.0.0.1 port, real HTTP requests, a signal to stop it, and what it printed.
 * Every wait is bounded (the test's own timeout is only the last resort).
 */
import { spawn, type ChildProcess } from 'child_process';
import * as http from 'http';
import { DuckDBInstance } from '@duckdb/node-api';
import { freeLoopbackPort } from '../helpers/ports';
import { cliPath } from '../cli/runCli';
import { otlpTypes } from '../../src/core/probe/receiver/otlpProto';

export interface RunningReceiver {
  child: ChildProcess;
  address: string;
  stdout(): string;
  stderr(): string;
  /** Sends `signal` and resolves with the exit status (null when killed by a signal), at most `ms`. */
  stop(signal?: NodeJS.Signals, ms?: number): Promise<number | null>;
}

/** Starts `phasewise receive ARGS --listen 127.0.0.1:PORT` in `cwd` and waits (≤ 20 s) until it listens. */
export async function startReceive(args: string[], cwd: string, env: NodeJS.ProcessEnv = {}): Promise<RunningReceiver> {
  const port = await freeLoopbackPort();
  const child = spawn(process.execPath, [cliPath, 'receive', ...args, '--listen', `127.0.0.1:${port}`], { cwd, env: { ...process.env, ...env } });
  let stdout = '';
  let stderr = '';
  child.stdout?.on('data', (d: Buffer) => (stdout += d.toString('utf8')));
  child.stderr?.on('data', (d: Buffer) => (stderr += d.toString('utf8')));
  const closed = new Promise<number | null>((resolve) => child.on('close', (status) => resolve(status)));
  await new Promise<void>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`receive did not start in 20 s: ${stderr}`)), 20_000);
    const check = (): void => {
      if (stderr.includes('receiving OTLP/HTTP')) {
        clearTimeout(timer);
        resolve();
      }
    };
    child.stderr?.on('data', check);
    void closed.then((status) => {
      clearTimeout(timer);
      reject(new Error(`receive exited ${status} before listening: ${stderr}`));
    });
  });
  return {
    child,
    address: `127.0.0.1:${port}`,
    stdout: () => stdout,
    stderr: () => stderr,
    stop: async (signal = 'SIGTERM', ms = 120_000) => {
      child.kill(signal);
      const timer = setTimeout(() => child.kill('SIGKILL'), ms);
      try {
        return await closed;
      } finally {
        clearTimeout(timer);
      }
    },
  };
}

export interface Answer {
  status: number;
  body: Buffer;
  headers: http.IncomingHttpHeaders;
}

/** POSTs `body` to /v1/traces; status -1 when the connection failed. Times out after `ms`. */
export function postExport(address: string, body: Buffer, type: 'application/json' | 'application/x-protobuf', ms = 120_000): Promise<Answer> {
  const [host, port] = address.split(':');
  return new Promise((resolve, reject) => {
    const req = http.request({ host, port, path: '/v1/traces', method: 'POST', headers: { 'content-type': type, 'content-length': String(body.length) } }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (d: Buffer) => chunks.push(d));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body: Buffer.concat(chunks), headers: res.headers }));
    });
    req.setTimeout(ms, () => req.destroy(new Error(`no answer in ${ms} ms`)));
    req.on('error', (err: NodeJS.ErrnoException) => (err.code === 'ECONNRESET' || err.code === 'EPIPE' ? resolve({ status: -1, body: Buffer.alloc(0), headers: {} }) : reject(err)));
    req.end(body);
  });
}

/**
 * A protobuf ExportTraceServiceRequest of `spans` root spans, each with `attributes` boolean
 * attributes keyed `0`, `1`, … (5,000 × 420 is ≈ 21.8 MB: an attribute-heavy export, as an
 * instrumented gateway that records every header and option can send). Trace IDs start at `first`.
 */
export function wideExport(spans: number, attributes: number, first = 1): Buffer {
  const { ExportTraceServiceRequest } = otlpTypes();
  const hex = (digits: number, n: number): Buffer => Buffer.from(n.toString(16).padStart(digits, '0'), 'hex');
  const attrs = Array.from({ length: attributes }, (_v, a) => ({ key: String(a), value: { boolValue: true } }));
  const t0 = 1_764_428_000_000_000_000n;
  const list = Array.from({ length: spans }, (_v, i) => ({
    traceId: hex(32, first + i),
    spanId: hex(16, first + i),
    name: 'POST /v1/chat/completions',
    kind: 2,
    startTimeUnixNano: String(t0 + BigInt(i) * 1_000_000n),
    endTimeUnixNano: String(t0 + BigInt(i) * 1_000_000n + 5_000_000n),
    attributes: attrs,
  }));
  const message = ExportTraceServiceRequest.fromObject({
    resourceSpans: [{ resource: { attributes: [{ key: 'service.name', value: { stringValue: 'gateway' } }] }, scopeSpans: [{ scope: { name: 'hostile' }, spans: list }] }],
  });
  return Buffer.from(ExportTraceServiceRequest.encode(message).finish());
}

/** One small OTLP JSON export: `spans` root spans (trace IDs from `first`), one line. */
export function smallJsonExport(spans: number, first = 1): Buffer {
  const t0 = 1_764_428_000_000_000_000n;
  const list = Array.from({ length: spans }, (_v, i) => ({
    traceId: (first + i).toString(16).padStart(32, '0'),
    spanId: (first + i).toString(16).padStart(16, '0'),
    name: 'POST /v1/chat/completions',
    kind: 2,
    startTimeUnixNano: String(t0 + BigInt(i) * 1_000_000n),
    endTimeUnixNano: String(t0 + BigInt(i) * 1_000_000n + 5_000_000n),
  }));
  return Buffer.from(JSON.stringify({ resourceSpans: [{ resource: { attributes: [{ key: 'service.name', value: { stringValue: 'gateway' } }] }, scopeSpans: [{ spans: list }] }] }));
}

/** Spans (and distinct trace IDs) in a Phasewise database, opened read-only. */
export async function spansInDatabase(file: string): Promise<{ spans: number; traces: number; loadState: string }> {
  const instance = await DuckDBInstance.create(':memory:');
  const conn = await instance.connect();
  try {
    await conn.run(`ATTACH '${file.replace(/'/g, "''")}' AS r (READ_ONLY)`);
    const [row] = (await conn.runAndReadAll('SELECT count(*)::INTEGER AS spans, count(DISTINCT trace_id)::INTEGER AS traces, (SELECT load_state FROM r.phasewise_store) AS state FROM r.spans')).getRowObjectsJS();
    return { spans: Number(row.spans), traces: Number(row.traces), loadState: String(row.state) };
  } finally {
    conn.closeSync();
    instance.closeSync();
  }
}
