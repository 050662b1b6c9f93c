import * as vscode from 'vscode';

/** The one place that prefixes command ids and keeps their disposables (rust-analyzer's ctx.registerCommand). */
export class Registry {
  constructor(
    private readonly context: vscode.ExtensionContext,
    readonly log: vscode.LogOutputChannel,
  ) {}

  /** Registers `phasewise.<name>`; the handler's return value goes back to `executeCommand` callers. */
  registerCommand<A extends unknown[], R>(name: string, handler: (...args: A) => Promise<R>): void {
    const id = `phasewise.${name}`;
    this.context.subscriptions.push(vscode.commands.registerCommand(id, (...args: unknown[]) => handler(...(args as A))));
    this.log.debug(`registered ${id}`);
  }
}
