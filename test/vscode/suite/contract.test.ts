// Load-contract editor features, exercised inside the extension host with the real `vscode` API: the
// diagnostics VS Code shows (codes and exact ranges, the same as test/core/contract asserts for the same
// mistakes), their refresh after an edit, hovers, completions, quick fixes, CodeLens and the two
// contract commands. Expected positions are found by plain string search in the fixture text and
// converted to line/character here, independently of both the core's line counter and positionAt.
import * as assert from 'assert';
import * as fs from 'fs';
import * as path from 'path';
import * as vscode from 'vscode';
import { FIXTURE } from '../harness/workspace';
import { codeOf, rangeOf, waitFor, waitForCodes, where } from './contractHelpers';
import { ensureActive, inWorkspace, metrics, phasewise, workspaceRoot } from './context';

function byCode(diags: vscode.Diagnostic[], code: string): vscode.Diagnostic {
  const found = diags.filter((d) => codeOf(d) === code);
  assert.strictEqual(found.length, 1, `expected one ${code}`);
  return found[0];
}

function hoverText(hovers: vscode.Hover[]): string {
  return hovers
    .flatMap((h) => h.contents)
    .map((c) => (typeof c === 'string' ? c : 'value' in c ? c.value : ''))
    .join('\n');
}

function label(item: vscode.CompletionItem): string {
  return typeof item.label === 'string' ? item.label : item.label.label;
}

/** The schema the extension ships (schemas/loadcontract.schema.json in the installed VSIX). */
interface SchemaNode {
  description?: string;
  enum?: unknown[];
  properties?: Record<string, SchemaNode>;
}
function shippedSchema(): SchemaNode {
  const file = path.join(phasewise().extensionPath, 'schemas', 'loadcontract.schema.json');
  return JSON.parse(fs.readFileSync(file, 'utf8')) as SchemaNode;
}

/** The four mistakes in contracts/mistakes.loadcontract.yaml and where test/core/contract puts them. */
const MISTAKES = [
  { code: 'plateau-too-short', severity: vscode.DiagnosticSeverity.Warning, anchor: 'plateau: 5m', snippet: '5m' },
  { code: 'duration-no-unit', severity: vscode.DiagnosticSeverity.Warning, anchor: 'drain: 30\n', snippet: '30' },
  { code: 'unknown-key', severity: vscode.DiagnosticSeverity.Error, anchor: 'warmup_exlude: 1m', snippet: 'warmup_exlude' },
  // 200 + 300 + 900 + 1000 = 2400 ms of budgets against a p95 SLO of 2000 ms: reported on `phases`.
  { code: 'budgets-exceed-slo', severity: vscode.DiagnosticSeverity.Error, anchor: '    phases:\n', snippet: 'phases' },
] as const;

suite('load contract editor features', () => {
  let mistakes: vscode.Uri;
  let original: string;

  suiteSetup(async () => {
    await ensureActive();
    mistakes = vscode.Uri.file(inWorkspace(FIXTURE.mistakesContract));
    original = fs.readFileSync(mistakes.fsPath, 'utf8');
  });

  test('diagnostics: the four known mistakes with their codes, severities and exact ranges', async () => {
    const t0 = Date.now();
    const doc = await vscode.workspace.openTextDocument(mistakes);
    await vscode.window.showTextDocument(doc);
    const diags = await waitForCodes(mistakes, MISTAKES.map((m) => m.code));
    metrics.contractDiagnosticsOnOpenMs = Date.now() - t0;
    assert.strictEqual(doc.getText(), original);
    for (const m of MISTAKES) {
      const d = byCode(diags, m.code);
      assert.deepStrictEqual(where(d.range), rangeOf(original, m.anchor, m.snippet), `range of ${m.code}`);
      assert.strictEqual(d.severity, m.severity, `severity of ${m.code}`);
    }
    // Figures from the fixture, so the wording is the one the user needs.
    assert.match(byCode(diags, 'unknown-key').message, /did you mean `warmup_exclude`/);
    assert.match(byCode(diags, 'budgets-exceed-slo').message, /2400 ms.*400 ms more than the total_ms\.p95 SLO of 2000 ms/);
    assert.match(byCode(diags, 'duration-no-unit').message, /read as 30 ms/);
  });

  test('hover on a key shows its description from the shipped schema', async () => {
    const schema = shippedSchema();
    const executor = schema.properties?.workload?.properties?.executor;
    assert.ok(executor?.description, 'schema has no description for workload.executor');
    const r = rangeOf(original, '  executor: constant', 'executor');
    const hovers = await vscode.commands.executeCommand<vscode.Hover[]>('vscode.executeHoverProvider', mistakes, new vscode.Position(r.line, r.character + 3));
    const text = hoverText(hovers);
    assert.ok(text.includes(executor.description), `hover text: ${text}`);
    assert.ok(text.includes('workload.executor'), `hover does not name the key: ${text}`);
    // A value of an enum key: the hover of `model: open` lists the allowed values.
    const m = rangeOf(original, '  model: open', 'open');
    const onValue = hoverText(await vscode.commands.executeCommand<vscode.Hover[]>('vscode.executeHoverProvider', mistakes, new vscode.Position(m.line, m.character + 1)));
    for (const v of schema.properties?.workload?.properties?.model?.enum ?? []) assert.ok(onValue.includes(`\`${String(v)}\``), `hover on model value: ${onValue}`);
  });

  test('completions: workload keys on an empty line, enum values after `model:`', async () => {
    const uri = vscode.Uri.file(inWorkspace(FIXTURE.completionContract));
    const doc = await vscode.workspace.openTextDocument(uri);
    const text = doc.getText();
    const schema = shippedSchema();
    const emptyLine = rangeOf(text, '  model: \n  \n', '  \n');
    const keys = await vscode.commands.executeCommand<vscode.CompletionList>('vscode.executeCompletionItemProvider', uri, new vscode.Position(emptyLine.line, 2));
    const keyLabels = keys.items.map(label);
    for (const k of ['executor', 'rate', 'time_unit']) assert.ok(keyLabels.includes(k), `no ${k} among ${keyLabels.join(', ')}`);
    // Keys already in the block are not offered again; keys of other sections are not offered here.
    for (const k of ['model', 'plateau', 'route', 'p95']) assert.ok(!keyLabels.includes(k), `${k} must not be offered inside workload`);
    const model = rangeOf(text, '  model: \n', 'model: ');
    const values = await vscode.commands.executeCommand<vscode.CompletionList>('vscode.executeCompletionItemProvider', uri, new vscode.Position(model.line, model.endCharacter));
    const valueLabels = values.items.filter((i) => i.kind === vscode.CompletionItemKind.EnumMember).map(label).sort();
    assert.deepStrictEqual(valueLabels, (schema.properties?.workload?.properties?.model?.enum ?? []).map(String).sort());
  });

  test('CodeLens: "Evaluate against a run…" and "Generate k6 script" on the contract', async () => {
    const lenses = await vscode.commands.executeCommand<vscode.CodeLens[]>('vscode.executeCodeLensProvider', mistakes, 10);
    const ourLenses = lenses.filter((l) => l.command?.command.startsWith('phasewise.'));
    assert.deepStrictEqual(
      ourLenses.map((l) => [l.command?.title, l.command?.command]),
      [
        ['Evaluate against a run…', 'phasewise.evaluateContract'],
        ['Generate k6 script', 'phasewise.generateK6Script'],
      ],
    );
    for (const l of ourLenses) assert.strictEqual((l.command?.arguments?.[0] as vscode.Uri).toString(), mistakes.toString());
  });

  test('quick fix on the misspelt key renames it, and its diagnostic disappears', async () => {
    const doc = await vscode.workspace.openTextDocument(mistakes);
    const r = rangeOf(original, 'warmup_exlude: 1m', 'warmup_exlude');
    const range = new vscode.Range(r.line, r.character, r.endLine, r.endCharacter);
    const actions = await vscode.commands.executeCommand<(vscode.CodeAction | vscode.Command)[]>('vscode.executeCodeActionProvider', mistakes, range);
    const fixes = actions.filter((a): a is vscode.CodeAction => 'edit' in a && a.edit !== undefined && /warmup_exclude/.test(a.title));
    assert.strictEqual(fixes.length, 1, `actions: ${actions.map((a) => a.title).join(' | ')}`);
    const fix = fixes[0];
    assert.strictEqual(fix.kind?.value, vscode.CodeActionKind.QuickFix.value);
    // vscode.executeCodeActionProvider hands back title, kind, edit, command and isPreferred only (not
    // the diagnostics an action resolves), so the link to `unknown-key` shows as the preferred fix.
    assert.strictEqual(fix.isPreferred, true);
    assert.ok(await vscode.workspace.applyEdit(fix.edit as vscode.WorkspaceEdit), 'applyEdit refused the fix');
    const expected = original.replace('  warmup_exlude: 1m\n', '  warmup_exclude: 1m\n');
    assert.notStrictEqual(expected, original);
    assert.strictEqual(doc.getText(), expected);
    const left = await waitForCodes(mistakes, ['plateau-too-short', 'duration-no-unit', 'budgets-exceed-slo']);
    // The other diagnostics keep their exact ranges (the rename did not move any text before them).
    assert.deepStrictEqual(where(byCode(left, 'budgets-exceed-slo').range), rangeOf(expected, '    phases:\n', 'phases'));
  });

  test('a WorkspaceEdit fixing the plateau removes plateau-too-short as you type (debounced)', async () => {
    const doc = await vscode.workspace.openTextDocument(mistakes);
    const before = doc.getText();
    const r = rangeOf(before, 'plateau: 5m', '5m');
    const edit = new vscode.WorkspaceEdit();
    edit.replace(mistakes, new vscode.Range(r.line, r.character, r.endLine, r.endCharacter), '10m');
    const t0 = Date.now();
    assert.ok(await vscode.workspace.applyEdit(edit));
    assert.ok(doc.getText().includes('  plateau: 10m\n'));
    await waitForCodes(mistakes, ['duration-no-unit', 'budgets-exceed-slo']);
    metrics.contractDiagnosticsAfterEditMs = Date.now() - t0;
    // And back: the mistake typed again comes back at the same place.
    const again = new vscode.WorkspaceEdit();
    const r2 = rangeOf(doc.getText(), 'plateau: 10m', '10m');
    again.replace(mistakes, new vscode.Range(r2.line, r2.character, r2.endLine, r2.endCharacter), '5m');
    assert.ok(await vscode.workspace.applyEdit(again));
    const back = await waitForCodes(mistakes, ['plateau-too-short', 'duration-no-unit', 'budgets-exceed-slo']);
    assert.deepStrictEqual(where(byCode(back, 'plateau-too-short').range), rangeOf(doc.getText(), 'plateau: 5m', '5m'));
  });

  test('Phasewise: New Load Contract writes a template that validates without any finding', async () => {
    const target = vscode.Uri.file(path.join(workspaceRoot(), FIXTURE.contractsDir, 'new.loadcontract.yaml'));
    assert.ok(!fs.existsSync(target.fsPath), 'new.loadcontract.yaml exists before the command ran');
    const returned = await vscode.commands.executeCommand<vscode.Uri | undefined>('phasewise.newLoadContract', target);
    assert.strictEqual(returned?.toString(), target.toString());
    const onDisk = fs.readFileSync(target.fsPath, 'utf8');
    assert.ok(onDisk.startsWith('# Phasewise load contract'), onDisk.slice(0, 200));
    const doc = await waitFor('the new contract in an editor', 10_000, () =>
      vscode.window.visibleTextEditors.find((e) => e.document.uri.toString() === target.toString())?.document,
    );
    assert.strictEqual(doc.getText(), onDisk);
    // Validation on open is synchronous; give the debounce time anyway, then expect nothing at all.
    await new Promise((r) => setTimeout(r, 500));
    assert.deepStrictEqual(vscode.languages.getDiagnostics(target).map((d) => `${codeOf(d)}: ${d.message}`), []);
    // Positive control: the same document is validated (a mistake typed into it is reported).
    const r = rangeOf(onDisk, 'plateau: 10m', '10m');
    const edit = new vscode.WorkspaceEdit();
    edit.replace(target, new vscode.Range(r.line, r.character, r.endLine, r.endCharacter), '5m');
    assert.ok(await vscode.workspace.applyEdit(edit));
    const d = await waitForCodes(target, ['plateau-too-short']);
    assert.deepStrictEqual(where(d[0].range), { line: r.line, character: r.character, endLine: r.line, endCharacter: r.character + 2 });
  });

  test('Generate k6 script on samples/steady.loadcontract.yaml opens the script with its executor, rate and dropped_iterations', async () => {
    const uri = vscode.Uri.file(inWorkspace(path.join(FIXTURE.samples, 'steady.loadcontract.yaml')));
    const script = await vscode.commands.executeCommand<string | undefined>('phasewise.generateK6Script', uri);
    assert.ok(typeof script === 'string' && script.length > 0, 'no script returned');
    // The contract's numbers (samples/steady.loadcontract.yaml): constant-arrival-rate, 10 per 1s, 80s plateau.
    assert.match(script, /"executor": "constant-arrival-rate"/);
    assert.match(script, /"rate": 10,/);
    assert.match(script, /"timeUnit": "1s"/);
    assert.match(script, /"duration": "80s"/);
    assert.match(script, /"dropped_iterations": \[/);
    assert.match(script, /traceparent/);
    const opened = await waitFor('the generated script document', 10_000, () =>
      vscode.workspace.textDocuments.find((d) => d.isUntitled && d.languageId === 'javascript' && d.getText() === script),
    );
    assert.ok(vscode.window.visibleTextEditors.some((e) => e.document === opened), 'the script is not shown in an editor');
  });
});
