import * as assert from 'assert';
import * as fs from 'fs';
import * as path from 'path';
import { describeError } from '../../src/cli/errorContract';
import { EXIT_CODE_TABLE, exitCodeMarkdown, exitCodeUsage } from '../../src/cli/exitCodes';
import { USAGE } from '../../src/cli/usage';
import { CancelledError, InputError, StoreError } from '../../src/core/errors';
import { repoRoot } from '../helpers/paths';
import { runCli } from './runCli';

describe('the error contract: one table of exit codes', () => {
  it('the README holds exactly the table exitCodes.ts writes', () => {
    const readme = fs.readFileSync(path.join(repoRoot, 'README.md'), 'utf8');
    const m = /<!-- exit-codes -->\n([\s\S]*?)<!-- \/exit-codes -->/.exec(readme);
    assert.ok(m, 'README has an <!-- exit-codes --> block');
    assert.strictEqual(m[1], exitCodeMarkdown());
  });

  it('the usage text ends with the same codes, and --help prints it', async () => {
    assert.ok(USAGE.endsWith(exitCodeUsage()));
    for (const e of EXIT_CODE_TABLE) assert.ok(exitCodeUsage().includes(`${e.code} ${e.label}`), e.label);
    const r = await runCli(['--help']);
    assert.strictEqual(r.status, 0);
    assert.strictEqual(r.stdout, USAGE);
  });

  it('the codes are the ones docs/metrics.md §7 fixes', () => {
    assert.deepStrictEqual(EXIT_CODE_TABLE.map((e) => e.code), [0, 1, 2, 3, 4, 5, 130]);
  });

  it('maps errors to codes without passing DuckDB text, SQL or stacks on', () => {
    const duck = new StoreError('Binder Error: Referenced column "x" not found\nLINE 1: SELECT x FROM spans', 'SELECT x FROM spans');
    const outcome = describeError(duck.withContext('while loading /tmp/a.jsonl'), false);
    assert.strictEqual(outcome.code, 5);
    assert.strictEqual(outcome.lines.length, 1);
    assert.match(outcome.lines[0], /internal error: a DuckDB statement failed while loading \/tmp\/a\.jsonl/);
    assert.doesNotMatch(outcome.lines.join('\n'), /Binder|SELECT|LINE 1/);
    assert.ok(outcome.debug.some((d) => d.includes('Binder Error')), 'kept for PHASEWISE_DEBUG');

    assert.strictEqual(describeError(new InputError('a.csv', 3, 'a CSV row', 'two fields'), false).code, 4);
    assert.strictEqual(describeError(new CancelledError(), false).code, 130);
    assert.strictEqual(describeError(new Error('Conversion Error: Could not convert'), true).code, 130, 'after Ctrl-C');
    const wrapped = describeError(new Error('Conversion Error: Could not convert string to INT64'), false);
    assert.strictEqual(wrapped.code, 5);
    assert.doesNotMatch(wrapped.lines.join('\n'), /Conversion Error|INT64/);

    const enospc = Object.assign(new Error("ENOSPC: no space left on device, write '/x'"), { code: 'ENOSPC', syscall: 'write', path: '/x' });
    assert.deepStrictEqual(describeError(enospc, false).lines, ['phasewise: /x: cannot write it: no space left on the device']);
    assert.strictEqual(describeError(enospc, false).code, 4);
  });
});
