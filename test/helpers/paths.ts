import * as fs from 'fs';
import * as path from 'path';

function findRepoRoot(start: string): string {
  let dir = start;
  while (!fs.existsSync(path.join(dir, 'package.json'))) {
    const parent = path.dirname(dir);
    if (parent === dir) throw new Error(`no package.json above ${start}`);
    dir = parent;
  }
  return dir;
}

/** The project root (tests run from compiled `out/test/...`). */
export const repoRoot = findRepoRoot(__dirname);
/** Fixtures committed with the project (copies of ../shared/samples live in `fixtures/shared-samples`). */
export const fixturesDir = path.join(repoRoot, 'test', 'fixtures');
export const sharedSamplesDir = path.join(fixturesDir, 'shared-samples');

export function fixture(...parts: string[]): string {
  return path.join(fixturesDir, ...parts);
}
