// `npm run test:vscode:desktop`: the same integration suite on a desktop VS Code downloaded by
// @vscode/test-electron (for developer laptops; these CI machines cannot reach the download servers and
// use `npm run test:vscode` instead). Phasewise runs from the repo (extensionDevelopmentPath, built by
// `npm run build`); the suite's run() entry is the one test-electron expects.
import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import { runTests } from '@vscode/test-electron';
import { prepareWorkspace, REPO_ROOT } from './harness/workspace';

async function main(): Promise<number> {
  const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'phasewise-desktop-'));
  try {
    const workspace = prepareWorkspace(path.join(tmp, 'workspace'));
    const userData = path.join(tmp, 'user-data');
    fs.mkdirSync(path.join(userData, 'User'), { recursive: true });
    fs.writeFileSync(
      path.join(userData, 'User', 'settings.json'),
      JSON.stringify({ 'security.workspace.trust.enabled': false, 'workbench.startupEditor': 'none' }),
    );
    const results = path.join(REPO_ROOT, 'test', 'vscode', '.artifacts', 'desktop-results.json');
    await runTests({
      version: process.env.PHASEWISE_VSCODE_VERSION ?? 'stable',
      extensionDevelopmentPath: REPO_ROOT,
      extensionTestsPath: path.join(REPO_ROOT, 'out', 'test', 'vscode', 'suite', 'index.js'),
      launchArgs: [workspace, '--disable-extensions', `--user-data-dir=${userData}`],
      extensionTestsEnv: { PHASEWISE_TEST_RESULTS: results },
    });
    process.stdout.write(`desktop VS Code suite passed; results in ${path.relative(REPO_ROOT, results)}\n`);
    return 0;
  } catch (err) {
    process.stderr.write(`desktop VS Code suite failed: ${err instanceof Error ? err.message : String(err)}\n`);
    return 1;
  } finally {
    fs.rmSync(tmp, { recursive: true, force: true });
  }
}

void main().then((code) => process.exit(code));
