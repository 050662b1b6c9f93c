import type * as Core from '../../core/contract';

let core: typeof Core | undefined;

/**
 * The contract core (yaml + ajv, ~0.5 MB) loads on the first contract the editor sees, not at
 * activation: activation must stay under 50 ms. esbuild keeps a `require`d module's initialisation lazy.
 */
export function contractCore(): typeof Core {
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  core ??= require('../../core/contract') as typeof Core;
  return core;
}
