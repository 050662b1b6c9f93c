/**
 * The report figures kept between analyses (figures/figureCache.ts): each computed once per stamp and
 * read back by every later analysis with the same stamp. A figure's stamp (stamps.ts) is made of what
 * it reads, like a relation's; a phase-independent figure's leaves the phase mapping out, so a
 * re-analysis with another mapping reads it back. Every other figure (windows, tail, gates, verdict)
 * depends on options that change from one analysis to the next and is computed each time.
 */
import type { DerivedOption, LoadedTable } from './relations';

export type FigureName =
  | 'matched_metrics'
  | 'matched_phase_metrics'
  | 'client_metrics'
  | 'server_metrics'
  | 'server_phase_metrics'
  | 'ledger'
  | 'join'
  | 'slow_traces'
  | 'warnings'
  | 'join_bias'
  | 'provenance';

export interface FigureDecl {
  name: FigureName;
  meaning: string;
  /** Relations (loaded or derived) its SQL reads. */
  reads: ReadonlyArray<LoadedTable | string>;
  /** Options its own SQL or text reads. */
  options: readonly DerivedOption[];
  /** `phase-independent`: the figure reads only phase-independent columns (catalog metrics and relations.ts say which). */
  scope: 'all' | 'phase-independent';
}

export const FIGURES: readonly FigureDecl[] = [
  {
    name: 'matched_metrics',
    meaning: 'Whole-run matched-success table, phase-independent columns (the column list is part of the stamp).',
    reads: ['request_breakdown'],
    options: [],
    scope: 'phase-independent',
  },
  { name: 'matched_phase_metrics', meaning: 'Whole-run matched-success table, phase-dependent columns.', reads: ['request_breakdown'], options: [], scope: 'all' },
  { name: 'client_metrics', meaning: 'Whole-run client-only table.', reads: ['request_breakdown'], options: [], scope: 'phase-independent' },
  { name: 'server_metrics', meaning: 'Whole-run server-only table, phase-independent columns.', reads: ['root_breakdown'], options: [], scope: 'phase-independent' },
  { name: 'server_phase_metrics', meaning: 'Whole-run server-only table, phase-dependent columns.', reads: ['root_breakdown'], options: [], scope: 'all' },
  { name: 'ledger', meaning: 'The outcome ledger (DESIGN §2) and its notes.', reads: ['run_counters', 'request_breakdown'], options: [], scope: 'phase-independent' },
  {
    name: 'join',
    meaning: 'The join summary (coverage, collisions, lost roots).',
    reads: ['request_breakdown', 'trace_roots', 'client_index', 'spans'],
    options: [],
    scope: 'phase-independent',
  },
  {
    name: 'slow_traces',
    meaning: 'The slowest matched successes (a list long enough for any later --slow up to its length).',
    reads: ['request_breakdown'],
    options: [],
    scope: 'all',
  },
  {
    name: 'warnings',
    meaning: 'Data-quality findings on the breakdown (breakdown/warnings.ts).',
    reads: ['request_breakdown', 'trace_roots', 'span_index', 'spans', 'span_index_counts', 'load_issues'],
    options: ['timestampGranularityMs'],
    scope: 'all',
  },
  {
    name: 'join_bias',
    meaning: 'Matched against unmatched successes: both sides\' p50/p95 and the Kolmogorov–Smirnov statistic (observed/joinBias.ts).',
    reads: ['request_breakdown'],
    options: [],
    scope: 'phase-independent',
  },
  {
    name: 'provenance',
    meaning: 'The inputs with their SHA-256, the OTLP resources and the services of the spans (observed/provenance.ts).',
    reads: ['sources', 'source_provenance', 'spans'],
    options: [],
    scope: 'phase-independent',
  },
];
