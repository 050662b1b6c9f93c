// Builds the harness's test-runner VSIX (never shipped) and installs VSIX files into a throwaway
// extensions folder with the VS Code server's own CLI: a folder copied there without installation is
// removed at start-up, so installation is the only way in.
import { spawnSync } from 'child_process';
import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import type { Toolchain } from './provision';
import { REPO_ROOT } from './workspace';

/** Where `npm run package` writes the platform-specific VSIX. */
export const PHASEWISE_VSIX = path.join(REPO_ROOT, 'phasewise-linux-x64.vsix');

function vsceBin(): string {
  return path.join(REPO_ROOT, 'node_modules', '@vscode', 'vsce', 'vsce');
}

function check(res: ReturnType<typeof spawnSync>, what: string): void {
  if (res.error !== undefined) throw res.error;
  if (res.status !== 0) {
    throw new Error(`${what} failed (exit ${String(res.status)}):\n${String(res.stdout)}\n${String(res.stderr)}`);
  }
}

/** Packages test/vscode/runner-extension (manifest + compiled entry) into `<outDir>/phasewise-test-runner.vsix`. */
export function packageRunnerExtension(outDir: string): string {
  const stage = fs.mkdtempSync(path.join(os.tmpdir(), 'phasewise-runner-'));
  try {
    const source = path.join(REPO_ROOT, 'test', 'vscode', 'runner-extension');
    const compiled = path.join(REPO_ROOT, 'out', 'test', 'vscode', 'runner-extension', 'extension.js');
    if (!fs.existsSync(compiled)) throw new Error(`${compiled} missing: run tsc -p test/vscode first`);
    fs.copyFileSync(path.join(source, 'package.json'), path.join(stage, 'package.json'));
    fs.copyFileSync(compiled, path.join(stage, 'extension.js'));
    fs.writeFileSync(path.join(stage, 'README.md'), '# Phasewise test runner\n\nHarness-only extension; see test/vscode in the Phasewise repository.\n');
    fs.writeFileSync(path.join(stage, 'LICENSE'), fs.readFileSync(path.join(REPO_ROOT, 'LICENSE')));
    fs.mkdirSync(outDir, { recursive: true });
    const out = path.join(outDir, 'phasewise-test-runner.vsix');
    const res = spawnSync(
      process.execPath,
      [vsceBin(), 'package', '--no-dependencies', '--allow-missing-repository', '--skip-license', '-o', out],
      { cwd: stage, encoding: 'utf8' },
    );
    check(res, 'vsce package (runner extension)');
    return out;
  } finally {
    fs.rmSync(stage, { recursive: true, force: true });
  }
}

/** Installs VSIX files with `server-main.js --install-extension` into the given extensions folder. */
export function installExtensions(tc: Toolchain, dirs: { extensionsDir: string; userDataDir: string; serverDataDir: string }, vsixFiles: readonly string[]): void {
  for (const vsix of vsixFiles) {
    if (!fs.existsSync(vsix)) throw new Error(`${vsix} not found (run npm run package)`);
  }
  const args = [
    tc.serverMain,
    '--accept-server-license-terms',
    '--extensions-dir',
    dirs.extensionsDir,
    '--user-data-dir',
    dirs.userDataDir,
    '--server-data-dir',
    dirs.serverDataDir,
    ...vsixFiles.flatMap((v) => ['--install-extension', v]),
    '--force',
  ];
  const res = spawnSync(tc.nodeBin, args, { encoding: 'utf8', timeout: 180_000 });
  check(res, 'install-extension');
  process.stderr.write(`[harness] installed ${vsixFiles.map((v) => path.basename(v)).join(', ')}\n`);
}
