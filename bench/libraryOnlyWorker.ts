/**
 * The contract worker with the fast path swapped out, so the bench can time the `yaml` library alone
 * on the worker thread beside today's fast path (sourceMap.parseSource is read at call time).
 */
import * as sourceMap from '../src/core/contract/sourceMap';

(sourceMap as { parseSource: typeof sourceMap.parseSource }).parseSource = sourceMap.parseSourceWithLibrary;
// eslint-disable-next-line @typescript-eslint/no-require-imports
require('../src/extension/contract/contractWorker');
