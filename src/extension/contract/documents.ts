import * as vscode from 'vscode';
import type { OffsetRange } from '../../core/contract';

const CONTRACT_FILE = /\.loadcontract\.(ya?ml|json)$/i;

/** A document is a contract by its name, or (untitled) by the template's first line. */
export function isContractDocument(doc: vscode.TextDocument): boolean {
  if (CONTRACT_FILE.test(doc.fileName)) return true;
  return doc.isUntitled && doc.lineCount > 0 && doc.lineAt(0).text.startsWith('# Phasewise load contract');
}

export function toRange(doc: vscode.TextDocument, r: OffsetRange): vscode.Range {
  return new vscode.Range(doc.positionAt(r.start), doc.positionAt(r.end));
}

/** The diagnostic source name shown in the Problems panel and used to recognise our diagnostics. */
export const SOURCE = 'phasewise';
