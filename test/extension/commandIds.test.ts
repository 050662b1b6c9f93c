import * as assert from 'assert';
import * as fs from 'fs';
import * as path from 'path';
import { COMMAND_NAMES, commandId } from '../../src/extension/commandIds';
import { repoRoot } from '../helpers/paths';
import { tsFiles } from '../helpers/sourceFiles';

describe('command ids', () => {
  it('are the ones package.json contributes, in its order', () => {
    const manifest = JSON.parse(fs.readFileSync(path.join(repoRoot, 'package.json'), 'utf8')) as { contributes: { commands: Array<{ command: string }> } };
    assert.deepStrictEqual(manifest.contributes.commands.map((c) => c.command), COMMAND_NAMES.map(commandId));
  });

  it('are spelled out nowhere in the extension but in commandIds.ts (registrations, lenses and calls derive them)', () => {
    const literal = new RegExp(`['"]phasewise\\.(${COMMAND_NAMES.join('|')})['"]`);
    const offenders = tsFiles(path.join(repoRoot, 'src')).filter((f) => !f.endsWith(path.join('extension', 'commandIds.ts')) && literal.test(fs.readFileSync(f, 'utf8')));
    assert.deepStrictEqual(offenders, []);
  });
});
