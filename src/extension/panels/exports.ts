/**
 * Export Report… (Markdown, the JSON model, one self-contained HTML file) and a waterfall's export:
 * the user picks where, the worker writes the file (an HTML report embeds every slow trace's waterfall,
 * built from the run's database there).
 */
import * as os from 'os';
import * as path from 'path';
import * as vscode from 'vscode';
import type { RunManager } from '../runs/runManager';
import { showRunError } from '../runs/showError';
import * as P from '../runs/workerProtocol';

const EXTENSIONS = { markdown: 'md', json: 'json', html: 'html' } as const;
const FILTERS: Record<'markdown' | 'json' | 'html', Record<string, string[]>> = { markdown: { Markdown: ['md'] }, json: { JSON: ['json'] }, html: { HTML: ['html'] } };

function defaultUri(name: string): vscode.Uri {
  const folder = vscode.workspace.workspaceFolders?.[0]?.uri;
  const safe = name.replace(/[^A-Za-z0-9._-]+/g, '-').replace(/^-+|-+$/g, '') || 'phasewise';
  return folder !== undefined ? vscode.Uri.joinPath(folder, safe) : vscode.Uri.file(path.join(os.homedir(), safe));
}

async function written(what: string, file: string, bytes: number): Promise<void> {
  const pick = await vscode.window.showInformationMessage(`Phasewise: ${what} written to ${file} (${(bytes / 1024).toFixed(0)} KB)`, 'Open');
  if (pick === 'Open') {
    if (file.endsWith('.html')) await vscode.env.openExternal(vscode.Uri.file(file));
    else await vscode.window.showTextDocument(vscode.Uri.file(file));
  }
}

/** Asks where (unless `target` is given) and writes the report there; returns the file written. */
export async function exportReportTo(runs: RunManager, runId: string, format: 'markdown' | 'json' | 'html', log: vscode.LogOutputChannel, target?: string): Promise<string | undefined> {
  const entry = runs.catalog.get(runId);
  if (entry === undefined) return undefined;
  const file =
    target ??
    (
      await vscode.window.showSaveDialog({
        title: `Phasewise: export the report of ${entry.label} as ${format === 'markdown' ? 'Markdown' : format.toUpperCase()}`,
        defaultUri: defaultUri(`${path.parse(entry.label.split(' + ')[0]).name}.phasewise-report.${EXTENSIONS[format]}`),
        filters: FILTERS[format],
      })
    )?.fsPath;
  if (file === undefined) return undefined;
  try {
    const { bytes } = await runs.ask(runId, P.ExportReport, { format, path: file });
    log.info(`export: ${entry.label} as ${format} → ${file}`);
    if (target === undefined) void written('the report', file, bytes);
    return file;
  } catch (err) {
    showRunError(err, 'export', log);
    return undefined;
  }
}

export async function exportTraceTo(runs: RunManager, runId: string, traceId: string, format: 'html' | 'json', log: vscode.LogOutputChannel, target?: string): Promise<string | undefined> {
  const file =
    target ??
    (
      await vscode.window.showSaveDialog({
        title: `Phasewise: export trace ${traceId} as ${format.toUpperCase()}`,
        defaultUri: defaultUri(`trace-${traceId}.${format}`),
        filters: format === 'html' ? { HTML: ['html'] } : { JSON: ['json'] },
      })
    )?.fsPath;
  if (file === undefined) return undefined;
  try {
    const { bytes } = await runs.ask(runId, P.ExportTrace, { trace_id: traceId, format, path: file });
    log.info(`export: trace ${traceId} as ${format} → ${file}`);
    if (target === undefined) void written(`trace ${traceId}`, file, bytes);
    return file;
  } catch (err) {
    showRunError(err, 'export', log);
    return undefined;
  }
}
