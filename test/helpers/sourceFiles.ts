import * as fs from 'fs';
import * as path from 'path';

/** Every .ts file below `dir`, for tests that read the sources (layer boundaries, spelled-out ids). */
export function tsFiles(dir: string): string[] {
  return fs.readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const full = path.join(dir, e.name);
    return e.isDirectory() ? tsFiles(full) : e.name.endsWith('.ts') ? [full] : [];
  });
}
