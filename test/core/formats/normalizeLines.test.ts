import { strict as assert } from 'assert';
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'fs';
import * as os from 'os';
import * as path from 'path';
import { gzipSync } from 'zlib';
import { InputError } from '../../../src/core/errors';
import { BLANK_ALLOWANCE, BLANK_LINE, normalizeLines } from '../../../src/core/formats/input/normalizeLines';
import { processTempDirectory } from '../../../src/core/tempDirectory';

/** What the copy must hold, line by line, written out plainly: CRLF endings lose the CR, blank lines stay (or become BLANK_LINE). */
function expectedCopy(text: string, markBlank: boolean): string {
  const lines = text.split('\n');
  if (lines[lines.length - 1] === '') lines.pop();
  return lines.map((l) => l.replace(/\r$/, '')).map((l) => (markBlank && /^[ \t]*$/.test(l) ? BLANK_LINE : l)).join('\n') + '\n';
}

describe('normalizeLines: blank lines', function () {
  this.timeout(60_000);
  let dir: string;
  beforeEach(() => (dir = mkdtempSync(path.join(os.tmpdir(), 'phasewise-normalize-'))));
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  for (const markBlank of [false, true]) {
    it(`runs of empty lines across read chunks, CRLF and space-only blank lines: the same copy and line count${markBlank ? ' (markBlank)' : ''}`, async () => {
      // ≈ 1.3 MiB of data with runs of 1–40,000 empty lines: lines and runs cross the reader's 1 MiB chunks.
      const parts: string[] = [];
      for (let i = 0; i < 30; i++) parts.push(`{"n":${i},"pad":"${'x'.repeat(i * 2999)}"}\n`, '\n'.repeat((i * 7919) % 40_000 + 1), i % 5 === 0 ? ' \t\r\n\r\n' : '');
      const text = parts.join('');
      const file = path.join(dir, 'f.ndjson');
      writeFileSync(file, text);
      const norm = await normalizeLines(file, false, 1 << 20, { markBlank });
      try {
        assert.equal(norm.lines, text.split('\n').length - 1);
        assert.equal(readFileSync(norm.file, 'utf8'), expectedCopy(text, markBlank));
      } finally {
        await norm.remove();
      }
    });
  }

  it('refuses a file with more than BLANK_ALLOWANCE blank lines beyond its data, at the exact line, and leaves no copy', async () => {
    const file = path.join(dir, 'bomb.ndjson.gz');
    const data = '{"a":1}\n{"a":2}\n{"a":3}\n';
    writeFileSync(file, gzipSync(data + '\n'.repeat(BLANK_ALLOWANCE + 10) + '{"a":4}\n'));
    await assert.rejects(normalizeLines(file, true, 1 << 20), (err: unknown) => {
      assert.ok(err instanceof InputError);
      // 3 data lines: the blank line that makes the excess 1,000,001 is blank number 1,000,004, line 1,000,007.
      assert.equal(err.line, 3 + BLANK_ALLOWANCE + 4);
      assert.match(err.message, /expected at most 1,000,000 more blank lines than lines of data, found more by line 1000007 \(1000004 blank lines, decompressed from gzip/);
      return true;
    });
    assert.deepEqual(readdirSync(processTempDirectory()).filter((n) => n.startsWith('lines-')), []);
    // A double-spaced file (as many blank lines as data) is not refused.
    const spaced = path.join(dir, 'spaced.ndjson');
    writeFileSync(spaced, '{"a":1}\n\n'.repeat(BLANK_ALLOWANCE + 5));
    const norm = await normalizeLines(spaced, false, 1 << 20);
    assert.equal(norm.lines, 2 * (BLANK_ALLOWANCE + 5));
    await norm.remove();
  });
});
