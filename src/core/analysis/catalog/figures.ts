/**
 * The report figures kept between analyses (figures/figureCache.ts): each computed once per stamp and
 * read back by every later analysis with the same stamp. A figure's stamp (stamps.ts) is made of what
 * it reads, like a relation's, plus the options it reads and its `detail` (what varies within it: the
 * columns of a table, the group dimensions, a tail budget); a phase-independent figure's leaves the
 * phase mapping out, so a re-analysis with another mapping reads it back. The per-group figures are
 * stored as lists of [group id, value]. Every other figure (the whole-run tail, gates, verdict) is
 * cheap or depends on gates and is computed each time.
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
  | 'provenance'
  | 'user_observed'
  | 'window_series'
  | 'group_mixes'
  | 'group_counts'
  | 'group_matched_metrics'
  | 'group_matched_phase_metrics'
  | 'group_client_metrics'
  | 'group_server_metrics'
  | 'group_server_phase_metrics'
  | 'group_tails'
  | 'group_user_observed'
  | 'group_series'
  | 'stages';

/**
 * Options a cached figure's own SQL or text can read: the derived relations' options and the ones that
 * shape only figures (token bands of the group keys, the timeout, the window grid).
 */
export type FigureOption = DerivedOption | 'tokenBands' | 'timeoutMs' | 'windowSizeMs' | 'windowSlideMs' | 'stages' | 'callsPerSession';

export interface FigureDecl {
  name: FigureName;
  meaning: string;
  /** Relations (loaded or derived) its SQL reads. */
  reads: ReadonlyArray<LoadedTable | string>;
  /** Options its own SQL or text reads. */
  options: readonly FigureOption[];
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
  { name: 'ledger', meaning: 'The outcome ledger (docs/metrics.md §2) and its notes.', reads: ['run_counters', 'request_breakdown'], options: [], scope: 'phase-independent' },
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
  {
    name: 'user_observed',
    meaning: 'Whole-run user-observed figures (observed/userObserved.ts).',
    reads: ['request_breakdown'],
    options: ['timeoutMs'],
    scope: 'phase-independent',
  },
  {
    name: 'window_series',
    meaning: 'The whole-run window series (series/windowSeries.ts); detail: the window grid.',
    reads: ['request_breakdown'],
    options: ['windowSizeMs', 'windowSlideMs', 'stages'],
    scope: 'all',
  },
  { name: 'group_mixes', meaning: 'Route and model values with their calls (groups/grouping.ts).', reads: ['request_dimensions'], options: [], scope: 'phase-independent' },
  {
    name: 'group_counts',
    meaning: 'Outcome counts per group; detail: the dimensions (groups/groupFigures.ts).',
    reads: ['request_groups'],
    options: ['tokenBands'],
    scope: 'phase-independent',
  },
  {
    name: 'group_matched_metrics',
    meaning: 'Per-group matched-success tables, phase-independent columns; detail: dimensions and columns.',
    reads: ['request_groups'],
    options: ['tokenBands'],
    scope: 'phase-independent',
  },
  { name: 'group_matched_phase_metrics', meaning: 'Per-group matched-success tables, phase-dependent columns.', reads: ['request_groups'], options: ['tokenBands'], scope: 'all' },
  { name: 'group_client_metrics', meaning: 'Per-group client-only tables.', reads: ['request_groups'], options: ['tokenBands'], scope: 'phase-independent' },
  {
    name: 'group_server_metrics',
    meaning: 'Per-group server-only tables (the roots of the group\'s matched requests), phase-independent columns.',
    reads: ['request_groups', 'root_breakdown'],
    options: ['tokenBands'],
    scope: 'phase-independent',
  },
  { name: 'group_server_phase_metrics', meaning: 'Per-group server-only tables, phase-dependent columns.', reads: ['request_groups', 'root_breakdown'], options: ['tokenBands'], scope: 'all' },
  {
    name: 'group_tails',
    meaning: 'Per-group tail counts and the tail\'s owner means; detail: dimensions and the tail budget.',
    reads: ['request_groups'],
    options: ['tokenBands'],
    scope: 'all',
  },
  {
    name: 'group_user_observed',
    meaning: 'Per-group user-observed figures.',
    reads: ['request_groups'],
    options: ['tokenBands', 'timeoutMs'],
    scope: 'phase-independent',
  },
  {
    name: 'group_series',
    meaning: 'Per-group window series; detail: dimensions and the window grid.',
    reads: ['request_groups'],
    options: ['tokenBands', 'windowSizeMs', 'windowSlideMs', 'stages'],
    scope: 'all',
  },
  {
    name: 'stages',
    meaning: "The stage table and the knee (stages/stagesReport.ts): the contract's stages, else the steps found in the schedule.",
    reads: ['request_breakdown', 'run_counters'],
    options: ['stages'],
    scope: 'all',
  },
];
