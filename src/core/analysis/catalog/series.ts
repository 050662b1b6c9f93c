/**
 * The window series' figures, declared once: which owners every window lists (all matched-population
 * metrics of metrics.ts, the phases where PHASES stands), and for each SLO metric the owners whose
 * means add up to it (a request's client total is its envelope plus its phases plus the unattributed
 * rest, so their window means add up too; percentiles would not).
 */
import { metricDecl, PHASES } from './metrics';

/** The owners of the series, in report order; PHASES stands for the phase columns. */
export const SERIES_OWNERS: ReadonlyArray<string> = [
  'client_total_ms',
  'server_root_ms',
  'network_envelope_ms',
  'transport_setup_ms',
  PHASES,
  'unattributed_server_ms',
  'generation_ms_per_output_token',
  'client_ttft_ms',
  'server_ttft_ms',
  'ttft_envelope_ms',
];

for (const o of SERIES_OWNERS) {
  if (o !== PHASES && !metricDecl(o)?.populations.includes('matched')) throw new Error(`catalog/series.ts names ${o}, which is not a matched-population metric`);
}

/** The owner columns of the series under a phase mapping. */
export function seriesOwnerColumns(phaseColumns: readonly string[]): string[] {
  return SERIES_OWNERS.flatMap((o) => (o === PHASES ? [...phaseColumns] : [o]));
}

/** The SLO figures a series picks a worst window for when no gate names one. */
export const DEFAULT_SLO_FIGURES: ReadonlyArray<{ metric: string; stat: 'p95' }> = [
  { metric: 'client_total_ms', stat: 'p95' },
  { metric: 'client_ttft_ms', stat: 'p95' },
];

/** The owners whose means make up `metric` per request (empty: the metric is not decomposed). */
export function ownersOf(metric: string, phaseColumns: readonly string[]): string[] {
  switch (metric) {
    case 'client_total_ms':
      return ['network_envelope_ms', ...phaseColumns, 'unattributed_server_ms'];
    case 'server_root_ms':
      return [...phaseColumns, 'unattributed_server_ms'];
    case 'client_ttft_ms':
      return ['ttft_envelope_ms', 'server_ttft_ms'];
    default:
      return [];
  }
}
