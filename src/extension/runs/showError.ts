/**
 * How a failed run operation reaches the user: one notification whose text names the file and line
 * (the core's InputError reads `file:line: expected …, found …`), with a button that opens the file
 * there; the log gets the same line. Running out of memory names the settings to change, with a button
 * that opens them. A cancel is not an error.
 */
import * as fs from 'fs';
import * as vscode from 'vscode';
import { CancelledError, ContractError, InputError, OutOfMemoryError, outOfMemoryMessage } from '../../core/errors';

/** Opens `file` with the cursor on `line` (1-based). */
export async function openAt(file: string, line: number | null | undefined): Promise<void> {
  const doc = await vscode.workspace.openTextDocument(vscode.Uri.file(file));
  const at = line !== null && line !== undefined && line > 0 ? new vscode.Position(Math.min(line - 1, Math.max(0, doc.lineCount - 1)), 0) : new vscode.Position(0, 0);
  await vscode.window.showTextDocument(doc, { selection: new vscode.Range(at, at), preview: false });
}

/** The ContractError's first diagnostic as file and line (`file:line:col: …`). */
function contractPlace(err: ContractError): { file: string; line: number | null } {
  const m = /^(.*?):(\d+):\d+: /.exec(err.lines[0] ?? '');
  return m !== null ? { file: m[1], line: Number(m[2]) } : { file: err.file, line: null };
}

/** Shows the error without waiting for the user (the caller goes on); returns the text shown, or undefined for a cancel. */
export function showRunError(err: unknown, what: string, log: vscode.LogOutputChannel): string | undefined {
  if (err instanceof CancelledError) {
    log.info(`${what}: cancelled`);
    return undefined;
  }
  if (err instanceof OutOfMemoryError) {
    const text = outOfMemoryMessage(err, 'editor');
    log.error(`${what}: ${text}`);
    void vscode.window.showErrorMessage(`Phasewise: ${text}`, 'Open Settings').then((pick) => {
      if (pick === 'Open Settings') void vscode.commands.executeCommand('workbench.action.openSettings', 'phasewise.duckdb');
    });
    return text;
  }
  let text: string;
  let place: { file: string; line: number | null } | undefined;
  if (err instanceof InputError) {
    text = err.message;
    place = { file: err.file, line: err.line ?? null };
  } else if (err instanceof ContractError) {
    for (const l of err.lines) log.error(l);
    text = err.lines[0] ?? err.message;
    place = contractPlace(err);
  } else {
    text = `${what} failed: ${err instanceof Error ? err.message : String(err)}`;
  }
  log.error(`${what}: ${text}`);
  const canOpen = place !== undefined && fs.existsSync(place.file) && fs.statSync(place.file).isFile();
  void vscode.window.showErrorMessage(`Phasewise: ${text}`, ...(canOpen ? ['Open File'] : [])).then((pick) => {
    if (pick === 'Open File' && place !== undefined) void openAt(place.file, place.line);
  });
  return text;
}
