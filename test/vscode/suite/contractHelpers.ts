// Helpers of the contract suites (contract.test.ts, contractForm.test.ts): expected ranges by string
// search, our diagnostics, and polling for what the extension does asynchronously.
import * as assert from 'assert';
import * as vscode from 'vscode';
import { waitFor } from './hooks';

export { waitFor };

export interface Where {
  line: number;
  character: number;
  endLine: number;
  endCharacter: number;
}

/** The zero-based range of `snippet` inside the unique `anchor` of `text`, by string search. */
export function rangeOf(text: string, anchor: string, snippet: string): Where {
  const a = text.indexOf(anchor);
  assert.ok(a >= 0 && text.indexOf(anchor, a + 1) === -1, `anchor must occur once: ${JSON.stringify(anchor)}`);
  assert.ok(anchor.includes(snippet), 'snippet must be inside the anchor');
  const start = a + anchor.indexOf(snippet);
  const at = (offset: number): { line: number; character: number } => {
    const before = text.slice(0, offset);
    return { line: before.split('\n').length - 1, character: offset - (before.lastIndexOf('\n') + 1) };
  };
  const s = at(start);
  const e = at(start + snippet.length);
  return { line: s.line, character: s.character, endLine: e.line, endCharacter: e.character };
}

export function where(r: vscode.Range): Where {
  return { line: r.start.line, character: r.start.character, endLine: r.end.line, endCharacter: r.end.character };
}

export function codeOf(d: vscode.Diagnostic): string {
  const c = d.code;
  return typeof c === 'object' && c !== null ? String(c.value) : String(c);
}

export function ours(uri: vscode.Uri): vscode.Diagnostic[] {
  return vscode.languages.getDiagnostics(uri).filter((d) => d.source === 'phasewise');
}

/** Waits until the set of our diagnostic codes on `uri` is exactly `codes` (order-insensitive). */
export async function waitForCodes(uri: vscode.Uri, codes: string[], timeoutMs = 10_000): Promise<vscode.Diagnostic[]> {
  const want = [...codes].sort().join(',');
  try {
    return await waitFor(`diagnostics [${want}]`, timeoutMs, () => {
      const d = ours(uri);
      return d.map(codeOf).sort().join(',') === want ? d : undefined;
    });
  } catch (err) {
    const got = ours(uri).map((d) => `${codeOf(d)}@${d.range.start.line}:${d.range.start.character}`);
    throw new Error(`${(err as Error).message}; got [${got.join(', ')}]`);
  }
}

/**
 * Leaves a fixture contract as it was on disk and in memory, and closes its editors (only these: other
 * suites' documents may be dirty, and closing those would ask whether to save them).
 */
export async function restoreAndClose(uri: vscode.Uri, doc: vscode.TextDocument | undefined, original: string): Promise<void> {
  if (doc && (doc.getText() !== original || doc.isDirty)) {
    const all = new vscode.WorkspaceEdit();
    all.replace(uri, new vscode.Range(doc.positionAt(0), doc.positionAt(doc.getText().length)), original);
    await vscode.workspace.applyEdit(all);
    await doc.save();
  }
  const tabs = vscode.window.tabGroups.all.flatMap((g) => g.tabs).filter((t) => (t.input instanceof vscode.TabInputCustom || t.input instanceof vscode.TabInputText) && t.input.uri.toString() === uri.toString());
  await vscode.window.tabGroups.close(tabs);
}
