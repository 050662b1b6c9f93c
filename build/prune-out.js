// Removes compiled files under out/ whose TypeScript source is gone. The test compile is incremental
// (tsconfig.test.json keeps its state in out/.tsbuildinfo/), so out/ is no longer emptied before each
// compile; without this, a test file deleted or renamed in src/, test/ or bench/ would still run from
// its old out/…/x.test.js.
const fs = require('fs');
const path = require('path');

const root = path.join(__dirname, '..');
const out = path.join(root, 'out');

function prune(dir) {
  if (!fs.existsSync(dir)) return 0;
  let removed = 0;
  for (const entry of fs.readdirSync(dir, { withFileTypes: true })) {
    const file = path.join(dir, entry.name);
    if (entry.isDirectory()) {
      removed += prune(file);
      continue;
    }
    const m = /^(.*)\.js(\.map)?$/.exec(entry.name);
    if (!m) continue;
    const source = path.join(root, path.relative(out, dir), `${m[1]}.ts`);
    if (!fs.existsSync(source)) {
      fs.rmSync(file);
      removed++;
    }
  }
  return removed;
}

const removed = ['src', 'test', 'bench'].reduce((n, top) => n + prune(path.join(out, top)), 0);
if (removed > 0) console.log(`prune-out: removed ${removed} compiled files whose source is gone`);
