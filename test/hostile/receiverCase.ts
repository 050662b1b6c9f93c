/**
 * The receiver cases of the hostile corpus (a HostileCase with `receive`): `phasewise receive` in a
 * child process on 127.0.0.1 (a free port), each body POSTed over a real socket in turn, then SIGTERM;
 * the run is the receiver's exit, stdout (its summary) and stderr, checked like any other case. Bounded:
 * a few requests, each with a 10 s timeout, and 20 s for the receiver to stop.
 */
import * as fs from 'fs';
import * as http from 'http';
import * as net from 'net';
import { spawn } from 'child_process';
import { gzipSync } from 'zlib';
import { cliPath, type CliResult } from '../cli/runCli';

export interface ReceivePost {
  /** The case file (its `files`) sent as the body. */
  file: string;
  /** Content-Type (default application/json). */
  contentType?: string;
  /** Sent gzipped with Content-Encoding: gzip. */
  gzip?: boolean;
  /** Send this many bytes of the body (Content-Length says all of it), then close the connection. */
  abortAfter?: number;
  /** The HTTP status expected; -1 for none (the request was cut off). */
  status: number;
  /** A regular expression the answer's body must match. */
  answer?: string;
}

export interface ReceiveSpec {
  posts: ReceivePost[];
}

const STEP_MS = 10_000;

function withTimeout<T>(what: string, ms: number, p: Promise<T>): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  return Promise.race([p, new Promise<T>((_r, reject) => (timer = setTimeout(() => reject(new Error(`${what}: no answer in ${ms} ms`)), ms)))]).finally(() => clearTimeout(timer));
}

function post(port: number, body: Buffer, p: ReceivePost): Promise<{ status: number; answer: string }> {
  const headers: Record<string, string> = { 'content-type': p.contentType ?? 'application/json', 'content-length': String(body.length) };
  if (p.gzip) headers['content-encoding'] = 'gzip';
  if (p.abortAfter !== undefined) {
    // Headers and part of the body over a raw socket, then the connection closed mid-body.
    return new Promise((resolve, reject) => {
      const socket = net.connect(port, '127.0.0.1', () => {
        const head = `POST /v1/traces HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\n${Object.entries(headers).map(([k, v]) => `${k}: ${v}\r\n`).join('')}\r\n`;
        socket.write(head);
        socket.write(body.subarray(0, p.abortAfter), () => setTimeout(() => socket.destroy(), 200));
      });
      socket.on('error', reject);
      socket.on('close', () => resolve({ status: -1, answer: '' }));
    });
  }
  return new Promise((resolve, reject) => {
    const req = http.request({ host: '127.0.0.1', port, path: '/v1/traces', method: 'POST', headers }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (d: Buffer) => chunks.push(d));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, answer: Buffer.concat(chunks).toString('utf8') }));
    });
    req.on('error', reject);
    req.end(body);
  });
}

/** Runs `receive` (of the CLI at `cli`) with `args` (a free port added), POSTs the bodies, stops it; returns the run and what the posts got wrong. */
export async function runReceiverCase(args: string[], spec: ReceiveSpec, cwd: string, paths: Record<string, string>, cli = cliPath): Promise<{ result: CliResult; failures: string[] }> {
  const env = { ...process.env };
  delete env.PHASEWISE_DEBUG;
  const child = spawn(process.execPath, [cli, 'receive', '--listen', '127.0.0.1:0', ...args], { cwd, env });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (d: Buffer) => (stdout += d.toString('utf8')));
  const closed = new Promise<number | null>((resolve) => child.on('close', (status) => resolve(status)));
  const failures: string[] = [];
  try {
    const port = await withTimeout('receive to listen', STEP_MS, new Promise<number>((resolve, reject) => {
      child.stderr.on('data', (d: Buffer) => {
        stderr += d.toString('utf8');
        const m = /on http:\/\/127\.0\.0\.1:(\d+)\/v1\/traces/.exec(stderr);
        if (m) resolve(Number(m[1]));
      });
      child.on('close', () => reject(new Error(`receive exited before listening: ${stderr}`)));
    }));
    for (const [i, p] of spec.posts.entries()) {
      const raw = fs.readFileSync(paths[p.file]);
      const got = await withTimeout(`post ${i + 1}`, STEP_MS, post(port, p.gzip ? gzipSync(raw) : raw, p));
      if (got.status !== p.status) failures.push(`post ${i + 1} (${p.file}): HTTP ${got.status}, expected ${p.status} (${got.answer.slice(0, 200)})`);
      if (p.answer !== undefined && !new RegExp(p.answer).test(got.answer)) failures.push(`post ${i + 1} (${p.file}): the answer ${JSON.stringify(got.answer.slice(0, 200))} does not match /${p.answer}/`);
    }
  } finally {
    child.kill('SIGTERM');
  }
  const status = await withTimeout('receive to stop', 2 * STEP_MS, closed).catch((err: Error) => {
    child.kill('SIGKILL');
    failures.push(err.message);
    return null;
  });
  return { result: { status, stdout, stderr }, failures };
}
