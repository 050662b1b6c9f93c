// The contract form as a custom editor inside the extension host, on contracts/form.loadcontract.yaml
// (samples/steady under a comment): Open as Form / Open as Text both ways, a budget changed from the
// form (through the same code its webview's edit request runs) as an exact text edit, the document's
// dirty state on the tab and on disk (the test profile has auto-save off), undo and redo byte for
// byte, save, revert, the diagnostics collection, text edits flowing back to the form, quick fixes.
import * as assert from 'assert';
import * as fs from 'fs';
import * as vscode from 'vscode';
import type { PhasewiseApi } from '../../../src/extension/extension';
import { FIXTURE } from '../harness/workspace';
import { codeOf, ours, rangeOf, restoreAndClose, waitFor, waitForCodes, where } from './contractHelpers';
import { ensureActive, inWorkspace, metrics, phasewise } from './context';

const VIEW_TYPE = 'phasewise.contractForm';

function api(): PhasewiseApi {
  const exports = phasewise().exports as PhasewiseApi | undefined;
  assert.ok(exports?.contractForms, 'the extension exports no contractForms');
  return exports;
}

function activeTab(): vscode.Tab | undefined {
  return vscode.window.tabGroups.activeTabGroup.activeTab;
}

function isFormTab(tab: vscode.Tab | undefined, uri: vscode.Uri): boolean {
  return tab?.input instanceof vscode.TabInputCustom && tab.input.viewType === VIEW_TYPE && tab.input.uri.toString() === uri.toString();
}

function formTab(uri: vscode.Uri): vscode.Tab | undefined {
  return vscode.window.tabGroups.all.flatMap((g) => g.tabs).find((t) => isFormTab(t, uri));
}

/** The form's last update once it shows the document's current version. */
async function formShowsCurrent(doc: vscode.TextDocument): Promise<NonNullable<ReturnType<PhasewiseApi['contractForms']['lastUpdate']>>> {
  return waitFor(`the form to show version ${doc.version}`, 10_000, () => {
    const u = api().contractForms.lastUpdate(doc.uri.toString());
    return u && u.version === doc.version && u.dirty === doc.isDirty ? u : undefined;
  });
}

async function focusForm(uri: vscode.Uri): Promise<void> {
  await vscode.commands.executeCommand('vscode.openWith', uri, VIEW_TYPE);
  await waitFor('the form to be the active tab', 10_000, () => (isFormTab(activeTab(), uri) ? true : undefined));
}

suite('load contract form (custom editor)', () => {
  let uri: vscode.Uri;
  let original: string;
  let doc: vscode.TextDocument;
  /** What the unedited fixture has: plateau-too-short (80 s) and the hint for the scheduler-lag gate. */
  const BASELINE = ['plateau-too-short', 'gate-missing'];

  suiteSetup(async () => {
    await ensureActive();
    uri = vscode.Uri.file(inWorkspace(FIXTURE.formContract));
    original = fs.readFileSync(uri.fsPath, 'utf8');
  });

  suiteTeardown(() => restoreAndClose(uri, doc, original));

  test('Open as Form opens the custom editor on the same document, and Open as Text the text editor, both ways', async () => {
    const t0 = Date.now();
    assert.strictEqual(await vscode.commands.executeCommand('phasewise.openContractForm', uri), true);
    await waitFor('the form tab', 10_000, () => (isFormTab(activeTab(), uri) ? true : undefined));
    doc = await waitFor('the document', 10_000, () => vscode.workspace.textDocuments.find((d) => d.uri.toString() === uri.toString()));
    const first = await formShowsCurrent(doc);
    metrics.contractFormFirstUpdateMs = Date.now() - t0;
    assert.strictEqual(doc.getText(), original);
    assert.strictEqual(doc.isDirty, false);
    // samples/steady: 150 + 350 + 1500 + 9500 + 500 = 12000 ms, exactly its 12 s total p95.
    assert.deepStrictEqual([first.model.budgets[0].sumMs, first.model.budgets[0].slackMs, first.model.budgets[0].status], [12_000, 0, 'exact']);
    assert.strictEqual(await vscode.commands.executeCommand('phasewise.openContractText', uri), true);
    await waitFor('the text editor tab', 10_000, () => {
      const t = activeTab();
      return t?.input instanceof vscode.TabInputText && t.input.uri.toString() === uri.toString() ? true : undefined;
    });
    assert.strictEqual(vscode.window.activeTextEditor?.document, doc, 'the text editor shows the same document');
    // And back, from the text editor's own command (no argument: the active editor's file).
    assert.strictEqual(await vscode.commands.executeCommand('phasewise.openContractForm'), true);
    await waitFor('the form tab again', 10_000, () => (isFormTab(activeTab(), uri) ? true : undefined));
  });

  test('a budget changed in the form is exactly that text edit; the tab is dirty, the disk untouched; undo restores the text byte for byte, redo repeats it', async () => {
    await focusForm(uri);
    const r = await api().contractForms.edit(uri.toString(), { op: 'set', pointer: '/budgets/0/phases/gateway', input: '900ms' });
    assert.deepStrictEqual(r, { applied: true, reason: null });
    const edited = original.replace('      gateway: 350ms\n', '      gateway: 900ms\n');
    assert.notStrictEqual(edited, original);
    assert.strictEqual(doc.getText(), edited);
    assert.strictEqual(doc.isDirty, true);
    assert.strictEqual(formTab(uri)?.isDirty, true, 'the form tab shows as modified');
    assert.strictEqual(fs.readFileSync(uri.fsPath, 'utf8'), original, 'nothing reached the disk without a save');
    // The diagnostics collection: 150 + 900 + 1500 + 9500 + 500 = 12550 ms, 550 ms over the 12 s SLO.
    const exceeded = (await waitForCodes(uri, [...BASELINE, 'budgets-exceed-slo'])).filter((d) => codeOf(d) === 'budgets-exceed-slo');
    assert.strictEqual(exceeded.length, 1);
    const diags = exceeded;
    assert.match(diags[0].message, /add up to 12550 ms .* 550 ms more than the total_ms\.p95 SLO of 12000 ms/);
    assert.deepStrictEqual(where(diags[0].range), rangeOf(edited, '    phases:\n      network_envelope: 150ms\n      gateway: 900ms', 'phases'));
    const shown = await formShowsCurrent(doc);
    assert.deepStrictEqual([shown.model.budgets[0].sumMs, shown.model.budgets[0].slackMs, shown.model.budgets[0].status, shown.dirty], [12_550, -550, 'overrun', true]);
    assert.strictEqual(shown.model.diagnostics.find((d) => d.code === 'budgets-exceed-slo')?.message, diags[0].message, 'the form shows the text editor\'s message');

    await vscode.commands.executeCommand('undo');
    await waitFor('undo', 10_000, () => (doc.getText() === original ? true : undefined));
    assert.strictEqual(doc.getText(), original, 'byte for byte');
    assert.strictEqual(doc.isDirty, false, 'back at the saved text');
    await waitForCodes(uri, BASELINE);
    assert.strictEqual((await formShowsCurrent(doc)).model.budgets[0].status, 'exact');

    await vscode.commands.executeCommand('redo');
    await waitFor('redo', 10_000, () => (doc.getText() === edited ? true : undefined));
    assert.strictEqual(doc.isDirty, true);
    await vscode.commands.executeCommand('undo');
    await waitFor('undo again', 10_000, () => (doc.getText() === original ? true : undefined));
  });

  test('save writes the form\'s edit and clears the dirty state; revert throws an unsaved edit away', async () => {
    await focusForm(uri);
    assert.ok((await api().contractForms.edit(uri.toString(), { op: 'set', pointer: '/workload/calls_per_session', input: '6' })).applied);
    const six = original.replace('  calls_per_session: 4\n', '  calls_per_session: 6\n');
    assert.strictEqual(doc.getText(), six);
    assert.ok(await doc.save());
    assert.strictEqual(doc.isDirty, false);
    assert.strictEqual(fs.readFileSync(uri.fsPath, 'utf8'), six);
    const saved = await formShowsCurrent(doc);
    assert.strictEqual(saved.dirty, false);
    // 1 − 0.95^6 = 0.264908109375: the session tail at 6 calls.
    assert.ok(Math.abs((saved.model.sessionTail.rows[0]?.probability ?? 0) - 0.264908109375) < 1e-12);

    assert.ok((await api().contractForms.edit(uri.toString(), { op: 'remove', pointer: '/workload/calls_per_session' })).applied);
    assert.strictEqual(doc.getText(), six.replace('  calls_per_session: 6\n', ''));
    assert.strictEqual(doc.isDirty, true);
    await vscode.commands.executeCommand('workbench.action.files.revert');
    await waitFor('revert', 10_000, () => (doc.getText() === six && !doc.isDirty ? true : undefined));
    assert.strictEqual((await formShowsCurrent(doc)).model.fields['/workload/calls_per_session'].display, '6');

    // Back to the fixture as it was, saved.
    assert.ok((await api().contractForms.edit(uri.toString(), { op: 'set', pointer: '/workload/calls_per_session', input: '4' })).applied);
    assert.ok(await doc.save());
    assert.strictEqual(fs.readFileSync(uri.fsPath, 'utf8'), original);
  });

  test('with the text editor open beside: typing in the text reaches the form, the form\'s edits reach the text editor, undo in either undoes both', async () => {
    await focusForm(uri);
    const editor = await vscode.window.showTextDocument(doc, { viewColumn: vscode.ViewColumn.Beside, preserveFocus: false });
    assert.ok(formTab(uri), 'the form stays open beside');
    const r = rangeOf(original, '  plateau: 80s', '80s');
    const t0 = Date.now();
    assert.ok(await editor.edit((b) => b.replace(new vscode.Range(r.line, r.character, r.endLine, r.endCharacter), '90s')));
    const update = await formShowsCurrent(doc);
    metrics.contractTextToFormUpdateMs = Date.now() - t0;
    assert.strictEqual(update.model.fields['/workload/plateau'].display, '90s');
    assert.deepStrictEqual(update.model.timeline.segments.find((s) => s.kind === 'plateau'), { kind: 'plateau', pointer: '/workload/plateau', startMs: 10_000, endMs: 100_000, fromRate: 10, toRate: 10 });

    assert.ok((await api().contractForms.edit(uri.toString(), { op: 'set', pointer: '/gates/error_rate', input: '0.02' })).applied);
    const both = original.replace('  plateau: 80s\n', '  plateau: 90s\n').replace('  error_rate: 0.05\n', '  error_rate: 0.02\n');
    assert.strictEqual(editor.document.getText(), both, 'the text editor shows the form\'s edit');
    await vscode.window.showTextDocument(doc, { viewColumn: editor.viewColumn, preserveFocus: false });
    await vscode.commands.executeCommand('undo');
    await waitFor('undo of the form edit in the text editor', 10_000, () => (doc.getText() === original.replace('  plateau: 80s\n', '  plateau: 90s\n') ? true : undefined));
    await vscode.commands.executeCommand('undo');
    await waitFor('undo of the typing', 10_000, () => (doc.getText() === original ? true : undefined));
    assert.strictEqual(doc.isDirty, false);
    assert.strictEqual((await formShowsCurrent(doc)).model.fields['/workload/plateau'].display, '80s');
  });

  test('a quick fix from the form is the text editor\'s own fix for that version; for an older version it is refused', async () => {
    await focusForm(uri);
    await waitForCodes(uri, BASELINE);
    const u = await formShowsCurrent(doc);
    const index = u.model.diagnostics.findIndex((d) => d.code === 'plateau-too-short');
    assert.strictEqual(u.model.diagnostics[index].fix, 'Set plateau to `10m`');
    assert.deepStrictEqual(await api().contractForms.applyFix(uri.toString(), u.version - 1, index), { applied: false, reason: 'the text changed since this finding; the form shows the current ones' });
    assert.deepStrictEqual(await api().contractForms.applyFix(uri.toString(), u.version, index), { applied: true, reason: null });
    assert.strictEqual(doc.getText(), original.replace('  plateau: 80s\n', '  plateau: 10m\n'));
    await waitForCodes(uri, ['gate-missing']);
    assert.deepStrictEqual(ours(uri).map(codeOf), ['gate-missing']);
    await vscode.commands.executeCommand('undo');
    await waitFor('undo of the fix', 10_000, () => (doc.getText() === original ? true : undefined));
    assert.strictEqual(doc.isDirty, false);
  });
});
