import * as vscode from 'vscode';
import { commandId, type CommandName } from './commandIds';

/**
 * The one place that prefixes command ids and keeps disposables (rust-analyzer's ctx.registerCommand):
 * created once in activate() and passed to every feature that registers something.
 */
export class Registry {
  constructor(
    private readonly context: vscode.ExtensionContext,
    readonly log: vscode.LogOutputChannel,
  ) {}

  /** Registers `phasewise.<name>`; the handler's return value goes back to `executeCommand` callers. */
  registerCommand<A extends unknown[], R>(name: CommandName, handler: (...args: A) => Promise<R>): void {
    const id = this.commandId(name);
    this.subscribe(vscode.commands.registerCommand(id, (...args: unknown[]) => handler(...(args as A))));
    this.log.debug(`registered ${id}`);
  }

  /** The id of a Phasewise command, for CodeLenses and executeCommand. */
  commandId(name: CommandName): string {
    return commandId(name);
  }

  /** Disposed when the extension deactivates. */
  subscribe(...disposables: vscode.Disposable[]): void {
    this.context.subscriptions.push(...disposables);
  }
}
