/**
 * Exit codes are the CLI's API for CI pipelines: a job can tell "the service got slower" (1) from
 * "the load generator did not deliver the workload" (2) from "the measurement itself is broken" (3)
 * from "you gave me the wrong file" (4).
 */
import type { VerdictStatus } from '../core/report/model';

export const EXIT_PASS = 0;
export const EXIT_FAIL = 1;
export const EXIT_INCONCLUSIVE = 2;
export const EXIT_INSTRUMENTATION_FAILURE = 3;
export const EXIT_BAD_INPUT = 4;
/** A bug in Phasewise (not in the input): distinct from 4 so that bad input is never blamed for it. */
export const EXIT_INTERNAL_ERROR = 5;
/** 128 + SIGINT, the shell convention for an interrupted command. */
export const EXIT_INTERRUPTED = 130;

export function exitCodeForVerdict(status: VerdictStatus): number {
  switch (status) {
    case 'pass':
    case 'not_evaluated':
      return EXIT_PASS;
    case 'fail':
      return EXIT_FAIL;
    case 'inconclusive':
      return EXIT_INCONCLUSIVE;
    case 'instrumentation_failure':
      return EXIT_INSTRUMENTATION_FAILURE;
  }
}
