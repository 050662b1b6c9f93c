import * as path from 'path';
import type * as Core from './core';

let core: typeof Core | undefined;

/**
 * Loads the core bundle on first use. The path is computed at run time so esbuild leaves the
 * `require` alone and the core stays a separate file next to this one (dist/core.js when bundled,
 * out/src/extension/core.js when compiled by tsc).
 */
export function loadCore(): typeof Core {
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  core ??= require(path.join(__dirname, 'core.js')) as typeof Core;
  return core;
}
