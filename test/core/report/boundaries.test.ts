import * as assert from 'assert';
import * as fs from 'fs';
import * as path from 'path';
import { repoRoot } from '../../helpers/paths';
import { tsFiles } from '../../helpers/sourceFiles';

describe('layer boundaries', () => {
  it('src/core never imports vscode', () => {
    const offenders = tsFiles(path.join(repoRoot, 'src', 'core')).filter((f) =>
      /(from\s+['"]vscode['"]|require\(\s*['"]vscode['"]\s*\))/.test(fs.readFileSync(f, 'utf8')),
    );
    assert.deepStrictEqual(offenders, []);
  });

  it('the extension loads the analysis core only inside a command (activation stays cheap)', () => {
    // Static value imports of analysis/report/store modules would load them at activation; type imports are erased.
    // Exempt: the entries of the worker threads' bundles (probeWorker.js, contractWorker.js with the
    // modules only it imports, runWorker.js with its own modules in runs/worker/), as long as nothing
    // imports them by value.
    const contractWorkerOnly = [path.join('contract', 'worker', 'contractWorker.ts'), path.join('contract', 'worker', 'assist.ts')];
    const separate = [path.join('probe', 'probeWorker.ts'), path.join('runs', 'runWorker.ts'), ...contractWorkerOnly].map((f) =>
      path.join(repoRoot, 'src', 'extension', f),
    );
    const workerOnly = path.join(repoRoot, 'src', 'extension', 'runs', 'worker') + path.sep;
    const files = tsFiles(path.join(repoRoot, 'src', 'extension'));
    const valueImports = files.filter((f) => !f.startsWith(workerOnly) && !separate.includes(f)).filter((f) =>
      /^import\s+(?!type\b)[^;]*from\s+['"](\.{1,2}\/)+(probeWorker|runWorker|(contract\/)?worker\/contractWorker|contractWorker)['"]/m.test(fs.readFileSync(f, 'utf8')),
    );
    assert.deepStrictEqual(valueImports, []);
    // The run worker's own modules (runs/worker/) are imported by value only on the worker's side.
    const runWorkerImporters = files.filter((f) => !f.startsWith(workerOnly) && !separate.includes(f)).filter((f) =>
      [...fs.readFileSync(f, 'utf8').matchAll(/^import\s+(?!type\b)[^;]*from\s+['"](\.{1,2}\/[^'"]+)['"]/gm)].some((m) => path.resolve(path.dirname(f), m[1]).startsWith(workerOnly)),
    );
    assert.deepStrictEqual(runWorkerImporters, []);
    // assist.ts (hovers, completions on the schema and the parser) belongs to the contract worker alone.
    const assistImporters = files.filter((f) => /^import\s+(?!type\b)[^;]*from\s+['"][./]*(worker\/)?assist['"]/m.test(fs.readFileSync(f, 'utf8')));
    assert.deepStrictEqual(assistImporters, [path.join(repoRoot, 'src', 'extension', contractWorkerOnly[0])]);
    const offenders = files.filter((f) => !separate.includes(f) && !f.startsWith(workerOnly)).filter((f) =>
      // The probe's receiver, backends and reconciliation too (only its tiny traceparent module is imported).
      /^import\s+(?!type\b)[^;]*from\s+['"][./]+core\/(analysis|report|run|store|formats|contract|probe\/(receiver|backends|spans))\//m.test(fs.readFileSync(f, 'utf8')) ||
        /^import\s+(?!type\b)[^;]*from\s+['"][./]+core\/probe\/(probe|series|reconcileProbe|hostApi)['"]/m.test(fs.readFileSync(f, 'utf8')),
    );
    assert.deepStrictEqual(offenders, []);
  });
});
