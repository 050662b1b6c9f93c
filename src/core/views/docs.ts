/** The query views' documentation, generated from their declarations (catalog.ts): `phasewise sql --help`. */
import { DEFAULT_ANALYSIS_OPTIONS } from '../analysis/options';
import { VIEWS, VIEWS_VERSION } from './catalog';
import type { ViewContext } from './declarations';
import { viewContext } from './session';

/** Every view with its columns, under the default phase mapping (a contract's phases replace the `<phase>_ms` columns). */
export function viewsReference(ctx: ViewContext = viewContext(DEFAULT_ANALYSIS_OPTIONS)): string {
  const lines = [
    `views (version ${VIEWS_VERSION}; stable within a version: names, columns and meanings)`,
    `  the phase columns follow the phase mapping (default ${ctx.phaseColumns.join(', ')}; a contract's trace.phases replace them)`,
    '  phasewise_views and phasewise_columns list the same from SQL; other tables are internal and may change',
  ];
  for (const view of VIEWS) {
    lines.push('', `  ${view.name}: ${view.meaning}`);
    const columns = view.columns(ctx);
    const width = Math.max(...columns.map((c) => c.name.length));
    for (const c of columns) lines.push(`    ${c.name.padEnd(width)}  ${c.type.padEnd(7)}  ${c.meaning}`);
  }
  return `${lines.join('\n')}\n`;
}
