// The `phasewise` executable (dist/cli.js): everything else lives in dispatch.ts so it can be tested.
import { main } from './dispatch';
import { EXIT_INTERNAL_ERROR } from './exitCodes';

let settled = false;
// The event loop emptied while a command still awaited something that can never settle (a promise
// no handle will resolve): Node would exit 0 with nothing written. That is our bug, never a pass.
process.on('beforeExit', () => {
  if (settled) return;
  process.stderr.write('phasewise: internal error: the command stopped before it finished (nothing left to wait for)\n');
  process.exit(EXIT_INTERNAL_ERROR);
});

main(process.argv.slice(2)).then(
  (code) => {
    settled = true;
    process.exit(code);
  },
  (err: unknown) => {
    settled = true;
    process.stderr.write(`phasewise: internal error: ${err instanceof Error ? err.message : String(err)}\n`);
    process.exit(EXIT_INTERNAL_ERROR);
  },
);
