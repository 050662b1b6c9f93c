/**
 * `Phasewise: Set API Token` (VS Code SecretStorage: never in settings, logs or files) and
 * `Phasewise: Validate traceparent` (a pasted header checked as a server would, with the reason).
 */
import * as vscode from 'vscode';
import { checkTraceparent, type TraceparentCheck } from '../../core/probe/send/traceparent';

export const API_TOKEN_SECRET = 'phasewise.apiToken';

/**
 * Network features (the probe, the receiver) refuse to run in an untrusted workspace. Their commands'
 * `enablement` hides them from the palette and menus; this also stops a programmatic call (another
 * extension, a task), which `enablement` does not. Analysis of local files is never gated.
 */
export function refuseUntrusted(what: string): boolean {
  if (vscode.workspace.isTrusted) return false;
  void vscode.window.showErrorMessage(`Phasewise: ${what} sends or accepts network requests, which this untrusted workspace does not allow (Workspaces: Manage Workspace Trust).`);
  return true;
}

/** Stores the token (an empty answer deletes it). Returns whether a token is now stored; never the token. */
export function setApiTokenCommand(secrets: vscode.SecretStorage, log: vscode.LogOutputChannel): (token?: string) => Promise<boolean> {
  return async (token) => {
    const value =
      token ??
      (await vscode.window.showInputBox({
        title: 'Phasewise: API token for probe requests',
        prompt: 'Sent as Authorization: Bearer … to the probed endpoint; kept in VS Code SecretStorage. Leave empty to remove it.',
        password: true,
        ignoreFocusOut: true,
      }));
    if (value === undefined) return (await secrets.get(API_TOKEN_SECRET)) !== undefined;
    if (value.trim() === '') {
      await secrets.delete(API_TOKEN_SECRET);
      log.info('probe: API token removed');
      return false;
    }
    await secrets.store(API_TOKEN_SECRET, value.trim());
    log.info('probe: API token stored in SecretStorage');
    return true;
  };
}

export function validateTraceparentCommand(): (header?: string) => Promise<TraceparentCheck | undefined> {
  return async (header) => {
    const value =
      header ??
      (await vscode.window.showInputBox({
        title: 'Phasewise: validate a traceparent header',
        placeHolder: '00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01',
        validateInput: (text) => (text.trim() === '' ? undefined : checkTraceparent(text).ok ? undefined : (checkTraceparent(text) as { reason: string }).reason),
      }));
    if (value === undefined) return undefined;
    const check = checkTraceparent(value);
    if (header === undefined) {
      if (check.ok) {
        const v = check.value;
        const notes = check.notes.length > 0 ? ` (${check.notes.join('; ')})` : '';
        void vscode.window.showInformationMessage(`Valid traceparent: trace-id ${v.traceId}, parent-id ${v.parentId}, ${v.sampled ? 'sampled' : 'not sampled'}${notes}`);
      } else {
        void vscode.window.showErrorMessage(`Invalid traceparent: ${check.reason}`);
      }
    }
    return check;
  };
}
