import type * as Core from '../../core/contract';
import { loadCore } from '../lazyCore';

/**
 * The contract core (yaml + ajv) loads on the first contract the editor sees, not at activation:
 * it lives in the separate core bundle (see ../lazyCore.ts).
 */
export function contractCore(): typeof Core {
  return loadCore().contract;
}
