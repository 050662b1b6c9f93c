/**
 * The order of the report, decided once for every rendering: the verdict and why first, then who owns
 * the tail, the figures behind it, and the bookkeeping (ledger, windows, gates, inputs) last.
 */
import type { Report } from './model';
import type { ReportDocument, Section } from './document';
import {
  definitionsSection,
  gatesSection,
  inputsSection,
  k6SummarySection,
  ledgerSection,
  slowTracesSection,
  warningsSection,
  windowsSection,
} from './runSections';
import {
  joinSection,
  metricTableSection,
  negativeEnvelopeSection,
  tailAttributionSection,
  verdictSection,
  verdictTitle,
} from './summarySections';
import { groupsSection, joinBiasSection, provenanceSection, userObservedSection } from './populationSections';
import { diagnosesSection, windowSeriesSection } from './seriesSections';
import { stagesSection } from './stagesSection';

/** Builds the report's content (sections in reading order) from the Report model. */
export function buildReportDocument(report: Report): ReportDocument {
  const candidates: Array<Section | undefined> = [
    verdictSection(report),
    joinSection(report),
    joinBiasSection(report),
    tailAttributionSection(report),
    diagnosesSection(report),
    stagesSection(report),
    groupsSection(report),
    metricTableSection('Decomposition', `matched successful requests (n per row; ${report.join.matched} requests matched in all)`, report.metrics),
    metricTableSection('Client only', 'all successful client requests (comparable with k6)', report.client_only),
    metricTableSection('Server only', 'all server root spans', report.server_only),
    negativeEnvelopeSection(report),
    userObservedSection(report),
    ledgerSection(report),
    windowsSection(report),
    windowSeriesSection(report),
    gatesSection(report),
    slowTracesSection(report),
    k6SummarySection(report),
    inputsSection(report),
    provenanceSection(report),
    warningsSection(report),
    definitionsSection(report),
  ];
  return {
    title: `${verdictTitle(report)} · phasewise ${report.phasewise_version}`,
    sections: candidates.filter((s): s is Section => s !== undefined),
  };
}
