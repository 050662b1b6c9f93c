/**
 * How many lines a damaged gzip file holds in its intact members, counted exactly, for the line a
 * corrupt file is cited at (normalizeLines.ts). Node's gunzip stream, meeting bytes that are not a
 * member after a complete one, fails in the call that finished the member and drops that call's
 * output (up to 16 KiB): garbage after a member holding lines 1–800 was cited at line 786. Here each
 * member's deflate data is inflated raw, which stops at the end of the data and says how many bytes
 * it took, so the end of the last intact member is known. Runs only after a gzip error.
 */
import { createReadStream } from 'fs';
import { open } from 'fs/promises';
import { createInflateRaw } from 'zlib';

const FHCRC = 0x02;
const FEXTRA = 0x04;
const FNAME = 0x08;
const FCOMMENT = 0x10;
/** A member header longer than this (a huge file name or extra field) counts as damage. */
const MAX_HEADER_BYTES = 64 << 10;

/** Length of the gzip member header in `buf` (the bytes at a member's start), or undefined when it is not one. */
export function memberHeaderLength(buf: Buffer): number | undefined {
  if (buf.length < 10 || buf[0] !== 0x1f || buf[1] !== 0x8b || buf[2] !== 8) return undefined;
  const flags = buf[3];
  let at = 10;
  if (flags & FEXTRA) {
    if (at + 2 > buf.length) return undefined;
    at += 2 + buf.readUInt16LE(at);
  }
  for (const flag of [FNAME, FCOMMENT]) {
    if (!(flags & flag)) continue;
    const zero = buf.indexOf(0, at);
    if (zero < 0) return undefined;
    at = zero + 1;
  }
  if (flags & FHCRC) at += 2;
  return at <= buf.length ? at : undefined;
}

/** Inflates the raw deflate data from `start`: the newlines it holds and the bytes it took (undefined when it fails first). */
function inflateMember(file: string, start: number): Promise<{ newlines: number; bytes: number | undefined }> {
  return new Promise((resolve) => {
    const input = createReadStream(file, { start, highWaterMark: 1 << 20 });
    const inflate = createInflateRaw();
    let newlines = 0;
    const done = (bytes: number | undefined): void => {
      input.destroy();
      inflate.destroy();
      resolve({ newlines, bytes });
    };
    inflate.on('data', (chunk: Buffer) => {
      for (let nl = chunk.indexOf(0x0a); nl !== -1; nl = chunk.indexOf(0x0a, nl + 1)) newlines++;
    });
    inflate.on('end', () => done(inflate.bytesWritten));
    inflate.on('error', () => done(undefined));
    input.on('error', () => done(undefined));
    input.pipe(inflate);
  });
}

/**
 * The newlines in the members of `file` that inflate completely, in order, up to the first byte that
 * does not continue the file (damage inside a member, or bytes after one that are neither another
 * member nor zero padding, which gunzip also accepts).
 */
export async function newlinesInIntactMembers(file: string): Promise<number> {
  const handle = await open(file, 'r');
  try {
    const size = (await handle.stat()).size;
    let offset = 0;
    let newlines = 0;
    while (offset < size) {
      const head = Buffer.alloc(Math.min(MAX_HEADER_BYTES, size - offset));
      await handle.read(head, 0, head.length, offset);
      // Not a member (zero padding, which gunzip accepts, ends the file there too).
      const headerLength = memberHeaderLength(head);
      if (headerLength === undefined) break;
      const member = await inflateMember(file, offset + headerLength);
      if (member.bytes === undefined) break;
      newlines += member.newlines;
      // The deflate data, then the CRC-32 and size of the trailer.
      offset += headerLength + member.bytes + 8;
    }
    return newlines;
  } finally {
    await handle.close();
  }
}
