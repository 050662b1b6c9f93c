import * as assert from 'assert';
import { spawnSync } from 'child_process';
import * as fs from 'fs';
import * as path from 'path';
import { crc32, deflateRawSync, gunzipSync } from 'zlib';
import { memberHeaderLength, newlinesInIntactMembers } from '../../../src/core/formats/input/gzipMembers';
import { makeTempDir } from './clientHelpers';

/**
 * The intact members of a damaged gzip file (gzipMembers.ts), against gzip itself: a member written
 * by GNU gzip with its file name (FNAME), one with every optional header field (RFC 1952 §2.3: FEXTRA,
 * FNAME, FCOMMENT, FHCRC), which Node's gunzip must read too, then what ends the file.
 */
describe('gzip members before damage (gzipMembers.ts)', () => {
  let dir: string;
  before(() => {
    dir = makeTempDir('gzip-members');
  });
  after(() => fs.rmSync(dir, { recursive: true, force: true }));

  /** A member with every optional field; the header CRC is the low 16 bits of its CRC-32 (RFC 1952). */
  function memberWithAllFields(text: string): Buffer {
    const data = Buffer.from(text, 'utf8');
    const extra = Buffer.from([0x41, 0x42, 0x02, 0x00, 0x01, 0x02]);
    const head = Buffer.concat([
      Buffer.from([0x1f, 0x8b, 8, 0x02 | 0x04 | 0x08 | 0x10, 0, 0, 0, 0, 0, 255]),
      Buffer.from([extra.length, 0]), extra,
      Buffer.from('name.ndjson\0', 'latin1'), Buffer.from('a comment\0', 'latin1'),
    ]);
    const hcrc = Buffer.alloc(2);
    hcrc.writeUInt16LE(crc32(head) & 0xffff);
    const trailer = Buffer.alloc(8);
    trailer.writeUInt32LE(crc32(data), 0);
    trailer.writeUInt32LE(data.length, 4);
    return Buffer.concat([head, hcrc, deflateRawSync(data), trailer]);
  }

  function gzipCli(text: string): Buffer {
    const plain = path.join(dir, 'named.ndjson');
    fs.writeFileSync(plain, text);
    const r = spawnSync('gzip', ['-c', '-N', plain]);
    assert.strictEqual(r.status, 0, 'gzip (GNU) must be installed for this test');
    return r.stdout;
  }

  it('reads the header lengths of GNU gzip and of a member with every optional field', () => {
    const named = gzipCli('a\nb\n');
    // GNU gzip -N writes FNAME: 10 bytes, the name and its zero.
    assert.strictEqual(named[3], 0x08);
    assert.strictEqual(memberHeaderLength(named), 10 + 'named.ndjson'.length + 1);
    assert.strictEqual(memberHeaderLength(memberWithAllFields('x\n')), 10 + 2 + 6 + 12 + 10 + 2);
    assert.strictEqual(memberHeaderLength(Buffer.from('garbage garbage')), undefined);
  });

  it('counts the lines of the members before garbage, zero padding or a damaged member', async () => {
    const members = Buffer.concat([gzipCli('a\nb\n'), memberWithAllFields('c\nd\ne\n')]);
    // Node's gunzip reads the same two members (the hand-made header is valid gzip).
    assert.strictEqual(gunzipSync(members).toString('utf8'), 'a\nb\nc\nd\ne\n');
    const write = (name: string, ...parts: Buffer[]): string => {
      const file = path.join(dir, name);
      fs.writeFileSync(file, Buffer.concat(parts));
      return file;
    };
    assert.strictEqual(await newlinesInIntactMembers(write('garbage.gz', members, Buffer.from('garbage'))), 5);
    assert.strictEqual(await newlinesInIntactMembers(write('padded.gz', members, Buffer.alloc(100))), 5);
    const damaged = Buffer.from(memberWithAllFields('f\n'.repeat(1000)));
    damaged[damaged.length - 20] ^= 0xff;
    assert.strictEqual(await newlinesInIntactMembers(write('damaged.gz', members, damaged)), 5);
    assert.strictEqual(await newlinesInIntactMembers(write('clean.gz', members)), 5);
  });
});
