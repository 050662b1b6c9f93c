// Shared state of one integration run inside the extension host: where the fixture workspace is, the
// Phasewise extension under test, and the figures (activation time, DuckDB observations) that the
// results JSON carries back to the driver.
import * as assert from 'assert';
import * as fs from 'fs';
import * as path from 'path';
import * as vscode from 'vscode';

export const EXTENSION_ID = 'phasewise.phasewise';

/** Figures recorded by the tests and written into the results JSON. */
export const metrics: Record<string, number | string | boolean | null | string[]> = {};

/** Things only the workbench UI can confirm (checked by the driver through Playwright). */
export const uiExpectations: { notifications: { contains: string[]; reason: string }[] } = { notifications: [] };

export function phasewise(): vscode.Extension<unknown> {
  const ext = vscode.extensions.getExtension(EXTENSION_ID);
  assert.ok(ext, `extension ${EXTENSION_ID} is not installed in this VS Code`);
  return ext;
}

export function workspaceRoot(): string {
  const folder = vscode.workspace.workspaceFolders?.[0];
  assert.ok(folder, 'the integration suite needs the fixture workspace opened as a folder');
  return folder.uri.fsPath;
}

export function inWorkspace(relative: string): string {
  const p = path.join(workspaceRoot(), relative);
  assert.ok(fs.existsSync(p), `fixture file missing: ${p}`);
  return p;
}

export interface DuckdbTrace {
  /** Modules under an @duckdb package in this process's CommonJS cache. */
  modules: string[];
  /** Shared objects mapped into this process whose path mentions duckdb (Linux: /proc/self/maps). */
  nativeLibs: string[];
}

/**
 * Observes whether DuckDB is loaded in the extension host. The suite runs in the same process as every
 * extension, so the CommonJS cache is shared; the memory map catches the native binding even if it were
 * loaded by some other path (a worker thread shares the address space).
 */
export function duckdbInProcess(): DuckdbTrace {
  const modules = Object.keys(require.cache).filter((k) => /[\\/]@duckdb[\\/]/.test(k));
  let nativeLibs: string[] = [];
  if (process.platform === 'linux') {
    const maps = fs.readFileSync('/proc/self/maps', 'utf8').split('\n');
    nativeLibs = [...new Set(maps.filter((l) => /duckdb/i.test(l)).map((l) => l.slice(l.indexOf('/'))))];
  }
  return { modules, nativeLibs };
}

export async function ensureActive(): Promise<void> {
  const ext = phasewise();
  if (!ext.isActive) await ext.activate();
}
