// `npm run sandbox`: the harness's provisioning, then the VS Code server with the freshly packaged
// Phasewise installed and samples/ opened, on 127.0.0.1, for a person to try the extension in a browser
// without installing VS Code. Ctrl-C stops the server (by PID). The profile lives in the harness cache
// (<cache>/sandbox) so settings and state survive restarts; PHASEWISE_SANDBOX_PORT picks the port.
import * as fs from 'fs';
import * as path from 'path';
import { stopAll } from './harness/processes';
import { cacheRoot, provision } from './harness/provision';
import { startServer } from './harness/server';
import { installExtensions, PHASEWISE_VSIX } from './harness/vsix';
import { REPO_ROOT, writeUserSettings } from './harness/workspace';

let stopping = false;
function stop(): void {
  stopping = true;
  void stopAll().finally(() => process.exit(0));
}
// From the start: a Ctrl-C during the first provisioning stops the install by PID too.
process.once('SIGINT', stop);
process.once('SIGTERM', stop);

async function main(): Promise<void> {
  const tc = await provision();
  const root = path.join(cacheRoot(), 'sandbox');
  const dirs = {
    userDataDir: path.join(root, 'user-data'),
    serverDataDir: path.join(root, 'server-data'),
    extensionsDir: path.join(root, 'extensions'),
  };
  writeUserSettings(dirs.userDataDir);
  installExtensions(tc, dirs, [PHASEWISE_VSIX]);
  const port = Number(process.env.PHASEWISE_SANDBOX_PORT ?? 8765);
  const folder = path.join(REPO_ROOT, 'samples');
  if (!fs.existsSync(folder)) throw new Error(`${folder} not found`);
  const server = await startServer(tc, dirs, folder, { port, logFile: path.join(root, 'server.log') });
  process.stdout.write(
    `\nPhasewise sandbox is running (VS Code server pid ${server.proc.pid}, log ${server.logFile}).\n` +
      `Open in a browser on this machine:\n\n    ${server.url}\n\n` +
      `Try: Ctrl+Shift+P → "Phasewise: Analyze Run…". Press Ctrl-C here to stop.\n`,
  );
  const code = await server.proc.exited;
  if (stopping) return;
  process.stderr.write(`VS Code server exited (${code}); see ${server.logFile}\n`);
  process.exit(1);
}

main().catch(async (err: unknown) => {
  process.stderr.write(`${err instanceof Error ? err.message : String(err)}\n`);
  await stopAll();
  process.exit(1);
});
