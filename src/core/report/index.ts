/** Renderers of the Report model: pure functions from a Report to text (no vscode, no I/O). */
import type { Report } from './model';
import { renderMarkdownReport } from './markdown';
import { renderTextReport } from './text';

export type ReportFormat = 'text' | 'json' | 'md';

export const REPORT_FORMATS: readonly ReportFormat[] = ['text', 'json', 'md'];

/** Renders a report in one of the CLI's formats; `json` is the Report model itself. */
export function renderReport(report: Report, format: ReportFormat): string {
  switch (format) {
    case 'json':
      return JSON.stringify(report, null, 2) + '\n';
    case 'md':
      return renderMarkdownReport(report);
    case 'text':
      return renderTextReport(report);
  }
}

export { renderMarkdownReport } from './markdown';
export { renderTextReport } from './text';
export { renderReconciliationLines, renderWaterfallText, type TraceReconciliationView } from './waterfall';
