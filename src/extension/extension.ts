import type * as vscode from 'vscode';

export function activate(_context: vscode.ExtensionContext): void {
  // Registrations land with the extension layer.
}

export function deactivate(): void {}
