/**
 * How the hostile corpus's input files are made (manifest.json `files`): inline text, a real sample
 * put through transforms (CRLF, gzip damage, encodings, line edits), a generated large file, or a
 * DuckDB database. Everything is written into the case's temporary directory; nothing under
 * test/fixtures is modified.
 */
import { spawnSync } from 'child_process';
import * as fs from 'fs';
import * as path from 'path';
import { once } from 'events';
import { pipeline } from 'stream/promises';
import { createGzip, gzipSync } from 'zlib';
import { DuckDBInstance } from '@duckdb/node-api';
import { fixturesDir } from '../helpers/paths';
import { otlpTypes } from '../../src/core/probe/receiver/otlpProto';

/** One transform: a name and its arguments (manifest.json: `["crlf"]`, `["insertLine", 51, "…"]`). */
export type Transform = [string, ...Array<string | number>];

export interface FileSpec {
  /** Inline content (UTF-8). */
  text?: string;
  /** A file under test/fixtures (e.g. shared-samples/…), put through `transforms`. */
  from?: string;
  transforms?: Transform[];
  /** A generated file (GENERATORS). */
  generate?: string;
  args?: Array<string | number>;
  /** A DuckDB database made by these statements. */
  duckdb?: string[];
  /** A directory instead of a file. */
  directory?: boolean;
  /** A symbolic link to this target (relative targets are relative to the link's directory). */
  symlink?: string;
  /** A hard link to this case file (created earlier in `files`). */
  hardlink?: string;
  /** A named pipe (FIFO) that nothing writes to. */
  fifo?: boolean;
  /** chmod after writing (octal as a string, e.g. "000"). */
  mode?: string;
}

function lines(buf: Buffer): string[] {
  const text = buf.toString('utf8');
  const out = text.split('\n');
  if (out[out.length - 1] === '') out.pop();
  return out;
}

const join = (ls: string[]): Buffer => Buffer.from(ls.join('\n') + '\n', 'utf8');

/** Transforms over a file's bytes. Line numbers are 1-based, as the CLI cites them. */
const TRANSFORMS: Readonly<Record<string, (buf: Buffer, ...args: Array<string | number>) => Buffer>> = {
  crlf: (buf) => Buffer.from(buf.toString('utf8').replace(/\r?\n/g, '\r\n'), 'utf8'),
  head: (buf, n) => join(lines(buf).slice(0, Number(n))),
  tail: (buf, n) => join(lines(buf).slice(-Number(n))),
  /** Inserts `text` so that it becomes line `n`. */
  insertLine: (buf, n, text) => {
    const ls = lines(buf);
    ls.splice(Number(n) - 1, 0, String(text));
    return join(ls);
  },
  replaceLine: (buf, n, text) => {
    const ls = lines(buf);
    ls[Number(n) - 1] = String(text);
    return join(ls);
  },
  append: (buf, text) => Buffer.concat([buf, Buffer.from(String(text), 'utf8')]),
  prepend: (buf, text) => Buffer.concat([Buffer.from(String(text), 'utf8'), buf]),
  /** A regular-expression replacement over the whole text (flags "gm": `^` is a line start). */
  replace: (buf, pattern, replacement) => Buffer.from(buf.toString('utf8').replace(new RegExp(String(pattern), 'gm'), String(replacement)), 'utf8'),
  /** Multiplies every `"key": <integer>` value (Jaeger/Zipkin durations written in ns instead of µs). */
  scaleField: (buf, key, factor) =>
    Buffer.from(buf.toString('utf8').replace(new RegExp(`("${String(key)}"\\s*:\\s*)(\\d+)`, 'g'), (_m, k: string, v: string) => `${k}${BigInt(v) * BigInt(factor)}`), 'utf8'),
  /** Shifts every OTLP start/end time by `ns` nanoseconds. */
  shiftOtlpTimes: (buf, ns) =>
    Buffer.from(buf.toString('utf8').replace(/("(?:start|end)TimeUnixNano"\s*:\s*")(\d+)"/g, (_m, k: string, v: string) => `${k}${BigInt(v) + BigInt(ns)}"`), 'utf8'),
  /** Makes every OTLP span last `factor` times longer (end = start + factor × duration). */
  stretchOtlpSpans: (buf, factor) =>
    Buffer.from(
      buf.toString('utf8').replace(/"startTimeUnixNano":"(\d+)","endTimeUnixNano":"(\d+)"/g, (_m, s: string, e: string) => {
        const start = BigInt(s);
        return `"startTimeUnixNano":"${s}","endTimeUnixNano":"${start + (BigInt(e) - start) * BigInt(factor)}"`;
      }),
      'utf8',
    ),
  utf16le: (buf) => Buffer.concat([Buffer.from([0xff, 0xfe]), Buffer.from(buf.toString('utf8'), 'utf16le')]),
  utf8bom: (buf) => Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), buf]),
  /** Re-encodes line `n` as Latin-1 after putting `text` in it (bytes that are not UTF-8). */
  latin1Line: (buf, n, text) => {
    const ls = lines(buf).map((l) => Buffer.from(`${l}\n`, 'utf8'));
    ls[Number(n) - 1] = Buffer.from(`${String(text)}\n`, 'latin1');
    return Buffer.concat(ls);
  },
  gzip: (buf) => gzipSync(buf),
  /** Flips the bytes of the gzip trailer's CRC (the data is intact). */
  gzipBadCrc: (buf) => {
    const out = Buffer.from(buf);
    out[out.length - 8] ^= 0xff;
    return out;
  },
  /** Flips one byte in the middle of the compressed data. */
  gzipFlipBody: (buf) => {
    const out = Buffer.from(buf);
    out[Math.floor(out.length / 2)] ^= 0x55;
    return out;
  },
  truncateBytes: (buf, fraction) => buf.subarray(0, Math.floor(buf.length * Number(fraction))),
  /**
   * Gzips the first lines as members of `sizes` lines each ("800,10": lines 1–800, then 801–810) and
   * appends `text` as raw bytes after them (not another member).
   */
  gzipMembersThenGarbage: (buf, sizes, text) => {
    const ls = lines(buf);
    let from = 0;
    const members = String(sizes).split(',').map((n) => gzipSync(join(ls.slice(from, (from += Number(n))))));
    return Buffer.concat([...members, Buffer.from(String(text), 'utf8')]);
  },
};

/** Large or repetitive files, written in streamed chunks (a generator may be asynchronous). */
const GENERATORS: Readonly<Record<string, (file: string, ...args: Array<string | number>) => void | Promise<void>>> = {
  /**
   * A gzip bomb of blank lines: the first `keep` lines of a sample, then `text` as one line (e.g. a
   * malformed one, so the reader has a line to cite), then `mib` MiB of line feeds, compressed at
   * level 9 in one stream (3 GiB makes ≈ 3 MB in ≈ 9 s).
   */
  blankLineBomb: async (file, sample, keep, text, mib) => {
    const gzip = createGzip({ level: 9 });
    const done = pipeline(gzip, fs.createWriteStream(file));
    const ls = lines(fs.readFileSync(path.join(fixturesDir, String(sample)))).slice(0, Number(keep));
    gzip.write([...ls, String(text)].join('\n') + '\n');
    const block = Buffer.alloc(1 << 20, 0x0a);
    for (let i = 0; i < Number(mib); i++) if (!gzip.write(block)) await once(gzip, 'drain');
    gzip.end();
    await done;
  },
  /** `count` copies of one k6 http_req_duration Point (the same time, tags and metadata). */
  identicalPoints: (file, count) => {
    const line = '{"metric":"http_req_duration","type":"Point","data":{"time":"2026-11-29T15:10:42.535290712Z","value":143.5,"tags":{"status":"200","method":"POST"},"metadata":{"trace_id":"0b71e6178914501b1e906d2ed642d4a0"}}}\n';
    const fd = fs.openSync(file, 'w');
    const chunk = line.repeat(10_000);
    for (let n = Number(count); n > 0; n -= 10_000) fs.writeSync(fd, n >= 10_000 ? chunk : line.repeat(n));
    fs.closeSync(fd);
  },
  /**
   * The first `keep` lines of a sample, then one line of `mib` MiB (a k6 Point whose tag value is
   * that long), then a malformed line, then the rest of the sample.
   */
  hugeLineThenBadLine: (file, sample, keep, mib) => {
    const ls = lines(fs.readFileSync(path.join(fixturesDir, String(sample))));
    const fd = fs.openSync(file, 'w');
    fs.writeSync(fd, ls.slice(0, Number(keep)).join('\n') + '\n');
    fs.writeSync(fd, '{"metric":"http_req_duration","type":"Point","data":{"time":"2026-11-29T15:10:42Z","value":1,"tags":{"x":"');
    const block = 'x'.repeat(1 << 20);
    for (let i = 0; i < Number(mib); i++) fs.writeSync(fd, block);
    fs.writeSync(fd, '"}}}\n{"metric": "http_req_duration", broken\n');
    fs.writeSync(fd, ls.slice(Number(keep)).join('\n') + '\n');
    fs.closeSync(fd);
  },
  /** An OTLP JSON export of one span whose attribute `deep` holds kvlist values nested `depth` times. */
  nestedOtlpAttribute: (file, depth) => {
    let value = '{"stringValue":"bottom"}';
    for (let i = 0; i < Number(depth); i++) value = `{"kvlistValue":{"values":[{"key":"k","value":${value}}]}}`;
    fs.writeFileSync(file, `{"resourceSpans":[{"resource":{"attributes":[{"key":"service.name","value":{"stringValue":"gw"}}]},"scopeSpans":[{"spans":[{"traceId":"0b71e6178914501b1e906d2ed642d4a0","spanId":"1111111111111111","name":"deep","kind":2,"startTimeUnixNano":"1764429042535290251","endTimeUnixNano":"1764429042635290251","attributes":[{"key":"deep","value":${value}}]}]}]}]}`);
  },
  /** The same export as nestedOtlpAttribute, as protobuf (opentelemetry-proto's types, as the receiver decodes them). */
  nestedOtlpProtobuf: (file, depth) => {
    GENERATORS.nestedOtlpAttribute(file, depth);
    const doc = JSON.parse(fs.readFileSync(file, 'utf8')) as { resourceSpans: Array<{ scopeSpans: Array<{ spans: Array<Record<string, unknown>> }> }> };
    const span = doc.resourceSpans[0].scopeSpans[0].spans[0];
    // protobufjs's fromObject takes IDs as base64 bytes.
    for (const id of ['traceId', 'spanId']) span[id] = Buffer.from(String(span[id]), 'hex').toString('base64');
    const { ExportTraceServiceRequest } = otlpTypes();
    fs.writeFileSync(file, ExportTraceServiceRequest.encode(ExportTraceServiceRequest.fromObject(doc)).finish());
  },
  /** `text`, then comment lines (`# …`) up to `mib` MiB in all (a YAML file too large to be a contract). */
  paddedText: (file, text, mib) => {
    const fd = fs.openSync(file, 'w');
    fs.writeSync(fd, String(text));
    const block = `# ${'x'.repeat(1021)}\n`.repeat(1024);
    for (let i = 0; i < Number(mib); i++) fs.writeSync(fd, block);
    fs.closeSync(fd);
  },
  /** The first `keep` lines of a sample, then one line of `mib` MiB of spaces, then the rest of the sample. */
  hugeLineOfSpaces: (file, sample, keep, mib) => {
    const ls = lines(fs.readFileSync(path.join(fixturesDir, String(sample))));
    const fd = fs.openSync(file, 'w');
    fs.writeSync(fd, ls.slice(0, Number(keep)).join('\n') + '\n');
    const block = ' '.repeat(1 << 20);
    for (let i = 0; i < Number(mib); i++) fs.writeSync(fd, block);
    fs.writeSync(fd, '\n' + ls.slice(Number(keep)).join('\n') + '\n');
    fs.closeSync(fd);
  },
};

/** Writes the file `name` of a case into `dir`. */
export async function makeFile(dir: string, name: string, spec: FileSpec): Promise<string> {
  const file = path.join(dir, name);
  if (spec.directory) fs.mkdirSync(file, { recursive: true });
  else if (spec.symlink !== undefined) fs.symlinkSync(spec.symlink, file);
  else if (spec.hardlink !== undefined) fs.linkSync(path.join(dir, spec.hardlink), file);
  else if (spec.fifo) {
    const made = spawnSync('mkfifo', [file]);
    if (made.status !== 0) throw new Error(`mkfifo ${file} failed: ${made.stderr.toString()}`);
  } else if (spec.duckdb) {
    const instance = await DuckDBInstance.create(file);
    const conn = await instance.connect();
    for (const sql of spec.duckdb) await conn.run(sql);
    conn.closeSync();
    instance.closeSync();
  } else if (spec.generate) {
    const generator = GENERATORS[spec.generate];
    if (!generator) throw new Error(`no generator '${spec.generate}'`);
    await generator(file, ...(spec.args ?? []));
  } else {
    let buf: Buffer = spec.text !== undefined ? Buffer.from(spec.text, 'utf8') : fs.readFileSync(path.join(fixturesDir, spec.from ?? ''));
    for (const [name, ...args] of spec.transforms ?? []) {
      const transform = TRANSFORMS[name];
      if (!transform) throw new Error(`no transform '${name}'`);
      buf = transform(buf, ...args);
    }
    fs.writeFileSync(file, buf);
  }
  if (spec.mode) fs.chmodSync(file, parseInt(spec.mode, 8));
  return file;
}
