// The contract form with the Runs view inside a real extension host: joined-otel-js (a real OpenTelemetry
// JS run) opened as a run, contracts/joined.loadcontract.yaml opened as a form. The phase preview's
// counts against the span file read here with JSON.parse and the fixture's selectors applied by hand;
// Evaluate's gates against the CLI's `analyze --contract --format json` on the same files; Evaluate
// refused for a contract with errors; a cancelled Evaluate; the selected run removed.
import * as assert from 'assert';
import * as fs from 'fs';
import * as path from 'path';
import * as vscode from 'vscode';
import type { Report } from '../../../src/core/report/model';
import type { ContractFormsApi } from '../../../src/extension/contract/form/provider';
import { FIXTURE } from '../harness/workspace';
import { runCli } from './cli';
import { inWorkspace } from './context';
import { restoreAndClose } from './contractHelpers';
import { api, hooks, waitFor, type Hooks } from './hooks';

const VIEW_TYPE = 'phasewise.contractForm';

interface HandSpan {
  traceId: string;
  name: string;
  attributes: Map<string, string>;
}

/** Every span of the OTLP JSON lines file, its attributes' values as text (stringValue, intValue, boolValue). */
function readSpans(file: string): HandSpan[] {
  const out: HandSpan[] = [];
  for (const line of fs.readFileSync(file, 'utf8').split('\n')) {
    if (line.trim() === '') continue;
    const doc = JSON.parse(line) as { resourceSpans: { scopeSpans: { spans: { traceId: string; name: string; attributes?: { key: string; value: Record<string, unknown> }[] }[] }[] }[] };
    for (const rs of doc.resourceSpans)
      for (const ss of rs.scopeSpans)
        for (const s of ss.spans) {
          const attrs = new Map<string, string>();
          for (const a of s.attributes ?? []) attrs.set(a.key, String(Object.values(a.value)[0]));
          out.push({ traceId: s.traceId, name: s.name, attributes: attrs });
        }
  }
  return out;
}

/** The fixture's trace.phases, applied by hand (a span is picked when any of its phase's selectors holds). */
const BY_HAND: Record<string, (s: HandSpan) => boolean> = {
  gateway: (s) => ['auth.check', 'request.prepare', 'route.select', 'response.write'].includes(s.name),
  gpu_queue: (s) => s.attributes.get('llm.phase') === 'queue',
  generation: (s) => s.name === 'inference.generate' || s.attributes.has('gen_ai.operation.name'),
};

function handPick(spans: HandSpan[], pick: (s: HandSpan) => boolean): { spans: number; traces: number; names: { name: string; count: number }[] } {
  const picked = spans.filter(pick);
  const counts = new Map<string, number>();
  for (const s of picked) counts.set(s.name, (counts.get(s.name) ?? 0) + 1);
  const names = [...counts].map(([name, count]) => ({ name, count })).sort((a, b) => b.count - a.count || (a.name < b.name ? -1 : 1)).slice(0, 5);
  return { spans: picked.length, traces: new Set(picked.map((s) => s.traceId)).size, names };
}

type RunsShown = NonNullable<ReturnType<ContractFormsApi['lastRuns']>>;

suite('contract form: phase preview and Evaluate against a run open in the Runs view', () => {
  let forms: ContractFormsApi;
  let h: Hooks;
  let uri: vscode.Uri;
  let doc: vscode.TextDocument;
  let original: string;
  let runId: string;
  const joined = (f: string): string => inWorkspace(path.join(FIXTURE.joinedDir, f));

  const shown = (what: string, ok: (r: RunsShown) => boolean, timeoutMs = 60_000): Promise<RunsShown> =>
    waitFor(what, timeoutMs, () => {
      const r = forms.lastRuns(uri.toString());
      return r !== null && ok(r) ? r : undefined;
    });

  suiteSetup(async function () {
    this.timeout(180_000);
    forms = (await api()).contractForms;
    h = await hooks();
    const opened = await vscode.commands.executeCommand<{ runId: string } | undefined>('phasewise.openRun', { run: [joined('k6.ndjson')], spans: [joined('spans.otlp.jsonl')], contract: null, showReport: false });
    assert.ok(opened !== undefined, 'Open Run returned nothing');
    runId = opened.runId;
    uri = vscode.Uri.file(inWorkspace(FIXTURE.joinedContract));
    original = fs.readFileSync(uri.fsPath, 'utf8');
    await vscode.commands.executeCommand('vscode.openWith', uri, VIEW_TYPE);
    doc = await waitFor('the document', 10_000, () => vscode.workspace.textDocuments.find((d) => d.uri.toString() === uri.toString()));
  });

  suiteTeardown(() => restoreAndClose(uri, doc, original));

  test('the preview counts, per declared phase, the spans, traces and names that the selectors pick by hand in the span file', async function () {
    this.timeout(90_000);
    const spans = readSpans(joined('spans.otlp.jsonl'));
    const r = await shown('the preview of the joined run', (x) => x.runs.selected === runId && x.runs.preview?.kind === 'ready');
    assert.ok(r.runs.runs.some((x) => x.id === runId && x.label.startsWith('k6.ndjson + spans.otlp.jsonl')), JSON.stringify(r.runs.runs));
    const picks = r.runs.preview?.kind === 'ready' ? r.runs.preview.picks : {};
    assert.deepStrictEqual(Object.keys(picks).sort(), Object.keys(BY_HAND).sort());
    for (const [phase, pick] of Object.entries(BY_HAND)) assert.deepStrictEqual(picks[phase], handPick(spans, pick), phase);
    assert.ok(picks.gpu_queue.spans > 0 && picks.gateway.spans > 0);

    // A selector changed in the text: the preview follows it (inference.acquire_slot by name).
    const edited = original.replace('      - attributes: { llm.phase: queue }\n', '      - names: [inference.acquire_slot, no.such.span]\n');
    assert.notStrictEqual(edited, original);
    const we = new vscode.WorkspaceEdit();
    we.replace(uri, new vscode.Range(doc.positionAt(0), doc.positionAt(doc.getText().length)), edited);
    assert.ok(await vscode.workspace.applyEdit(we));
    const after = await shown('the preview of the edited phases', (x) => x.runs.preview?.kind === 'ready' && x.runs.preview.picks.gpu_queue?.names[0]?.name === 'inference.acquire_slot');
    const queue = after.runs.preview?.kind === 'ready' ? after.runs.preview.picks.gpu_queue : undefined;
    assert.deepStrictEqual(queue, handPick(spans, (s) => s.name === 'inference.acquire_slot'));
    await vscode.commands.executeCommand('workbench.action.files.revert');
    await waitFor('revert', 10_000, () => (doc.getText() === original && !doc.isDirty ? true : undefined));
  });

  test('Evaluate re-analyses the open run with the contract: every gate and the verdict equal the CLI\'s on the same files', async function () {
    this.timeout(120_000);
    const cli = JSON.parse(runCli(['analyze', '--run', joined('k6.ndjson'), '--spans', joined('spans.otlp.jsonl'), '--contract', uri.fsPath, '--format', 'json']).stdout) as Report;
    await shown('the form to know the run', (x) => x.runs.selected === runId);
    assert.deepStrictEqual(await forms.evaluate(uri.toString()), { started: true, reason: null });
    const r = await shown('the evaluation', (x) => x.evaluation !== null && x.evaluation.kind !== 'running', 90_000);
    assert.ok(r.evaluation?.kind === 'done', JSON.stringify(r.evaluation));
    assert.strictEqual(r.evaluation.version, doc.version);
    assert.deepStrictEqual(r.evaluation.verdict, cli.verdict);
    const row = (g: { id: string; status: string; op: string; limit: number; n: number | null }): unknown[] => [g.id, g.status, g.op, g.limit, g.n];
    assert.deepStrictEqual(r.evaluation.gates.map(row), cli.gates.map(row));
    r.evaluation.gates.forEach((g, i) => {
      const want = cli.gates[i].observed;
      assert.ok(g.observed === want || (g.observed !== null && want !== null && Math.abs(g.observed - want) <= 1e-9 * Math.max(1, Math.abs(want))), `${g.id}: ${g.observed} vs ${want}`);
    });
    assert.ok(cli.gates.some((g) => g.status === 'pass') && cli.gates.some((g) => g.status === 'fail'), 'the fixture has gates of both kinds');
    // The run in the Runs view was re-analysed with this contract.
    assert.strictEqual(h.runs().find((x) => x.id === runId)?.inputs.contract, uri.fsPath);
    assert.strictEqual(h.runs().find((x) => x.id === runId)?.summary?.verdict.status, cli.verdict.status);
  });

  test('Evaluate says it needs a valid contract while the text has errors, and does not save it', async function () {
    this.timeout(60_000);
    const bad = original.replace('  rate: 12\n', '  rate: twelve\n');
    const we = new vscode.WorkspaceEdit();
    we.replace(uri, new vscode.Range(doc.positionAt(0), doc.positionAt(doc.getText().length)), bad);
    assert.ok(await vscode.workspace.applyEdit(we));
    await waitFor('the form to show the error', 10_000, () => {
      const u = forms.lastUpdate(uri.toString());
      return u?.version === doc.version && u.model.diagnostics.some((d) => d.severity === 'error') ? true : undefined;
    });
    const refused = await forms.evaluate(uri.toString());
    assert.strictEqual(refused.started, false);
    const line = original.split('\n').indexOf('  rate: 12') + 1;
    assert.strictEqual(refused.reason, `Evaluate needs a valid contract: 1 error (line ${line}: \`workload.rate\` must be number).`);
    assert.strictEqual(doc.isDirty, true, 'not saved');
    assert.strictEqual(fs.readFileSync(uri.fsPath, 'utf8'), original);
    await vscode.commands.executeCommand('workbench.action.files.revert');
    await waitFor('revert', 10_000, () => (doc.getText() === original && !doc.isDirty ? true : undefined));
  });

  test('a cancelled Evaluate leaves the run with its previous analysis', async function () {
    this.timeout(90_000);
    // Back to no contract, so that a re-analysis that went through would show.
    assert.ok((await vscode.commands.executeCommand('phasewise.reanalyzeWithContract', runId, null)) !== undefined);
    const before = h.runs().find((x) => x.id === runId)?.summary?.analyzed_at;
    await shown('the form to show the run analysed without contract', (x) => x.runs.selected === runId && x.evaluation?.kind !== 'running');
    assert.deepStrictEqual(await forms.evaluate(uri.toString()), { started: true, reason: null });
    forms.cancelEvaluate(uri.toString());
    const r = await shown('the cancelled evaluation', (x) => x.evaluation !== null && x.evaluation.kind !== 'running', 60_000);
    assert.strictEqual(r.evaluation?.kind, 'cancelled', JSON.stringify(r.evaluation));
    const run = h.runs().find((x) => x.id === runId);
    assert.strictEqual(run?.inputs.contract, null);
    assert.strictEqual(run?.summary?.analyzed_at, before);
  });

  test('the selected run removed from the Runs view: the form lists it no more and previews no longer in it', async function () {
    this.timeout(60_000);
    assert.strictEqual(await vscode.commands.executeCommand('phasewise.removeRun', runId), true);
    const r = await shown('the form without the run', (x) => !x.runs.runs.some((y) => y.id === runId));
    assert.notStrictEqual(r.runs.selected, runId);
    if (r.runs.selected === null) {
      assert.strictEqual(r.runs.preview, null);
      assert.match(r.runs.reason ?? '', /No run is open in the Runs view/);
      assert.strictEqual((await forms.evaluate(uri.toString())).started, false);
    }
  });
});
