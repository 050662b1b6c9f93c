/** A window series as the report holds it: its kind and windows, the owners listed and the worst window per SLO metric. */
import type { SeriesWindow, WindowSeries } from '../../report/model';
import type { GateSpec } from '../options';
import type { WindowSpec } from './windowGrid';
import { worstWindows } from './worstWindows';

export function seriesReport(spec: WindowSpec, windows: SeriesWindow[], gates: readonly GateSpec[], phaseColumns: readonly string[]): WindowSeries {
  return {
    kind: spec.kind,
    size_ms: spec.kind === 'stages' ? null : spec.sizeMs,
    slide_ms: spec.kind === 'sliding' ? spec.slideMs : spec.kind === 'fixed' ? spec.sizeMs : null,
    owners: windows[0] ? Object.keys(windows[0].owners) : [],
    windows,
    worst: worstWindows(windows, gates, phaseColumns),
  };
}
