// The `phasewise` executable (dist/cli.js): everything else lives in dispatch.ts so it can be tested.
import { main, reportError } from './dispatch';
import { EXIT_INTERNAL_ERROR } from './exitCodes';

// A failed write to a closed pipe also reaches the write's callback (writeStdout), which reports it;
// without a listener the stream's 'error' event would end the process with a stack trace instead.
process.stdout.on('error', () => undefined);

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
    process.exit(reportError(err));
  },
);
