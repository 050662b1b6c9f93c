// The `phasewise` executable (dist/cli.js): everything else lives in dispatch.ts so it can be tested.
import { main } from './dispatch';
import { EXIT_INTERNAL_ERROR } from './exitCodes';

main(process.argv.slice(2)).then(
  (code) => process.exit(code),
  (err: unknown) => {
    process.stderr.write(`phasewise: internal error: ${err instanceof Error ? err.message : String(err)}\n`);
    process.exit(EXIT_INTERNAL_ERROR);
  },
);
