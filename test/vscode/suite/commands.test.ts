import * as assert from 'assert';
import * as vscode from 'vscode';
import { ensureActive, metrics, phasewise } from './context';

interface CommandContribution {
  command: string;
}

suite('commands', () => {
  suiteSetup(ensureActive);

  test('every command in the manifest is registered after activation', async () => {
    const contributed = (
      ((phasewise().packageJSON as { contributes?: { commands?: CommandContribution[] } }).contributes?.commands ?? [])
    ).map((c) => c.command);
    assert.ok(contributed.includes('phasewise.analyzeRun'), 'the manifest lost phasewise.analyzeRun');
    const registered = new Set(await vscode.commands.getCommands(true));
    const missing = contributed.filter((c) => !registered.has(c));
    metrics.commandsContributed = contributed;
    assert.deepStrictEqual(missing, [], 'contributed commands without a registration');
  });
});
