/**
 * The outcome ledger's classes (docs/metrics.md §2), in ledger order: their own module so the extension host
 * can check a worker's answer against them without loading the readers (formats/client/outcome.ts holds the
 * SQL that classifies a request into one of them).
 */
export const OUTCOMES = ['succeeded', 'rejected', 'timed_out', 'transport_failed', 'canceled', 'failed'] as const;
export type Outcome = (typeof OUTCOMES)[number];
