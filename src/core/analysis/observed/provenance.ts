/**
 * The report's provenance: what a later comparison of this report with another needs. The inputs
 * with their SHA-256 (recorded at load: formats/provenance.ts), the contract with its hash, the
 * resources that identify the system (OTLP service, SDK, schema URL), the services the spans name,
 * the declared sampling, Phasewise's version and the options the analysis ran with.
 */
import type { InputProvenance, Provenance, ResourceIdentity } from '../../report/model';
import type { QueryRunner } from '../../store/duckStore';
import { PHASEWISE_VERSION } from '../../version';
import { finiteOrNull } from '../figures/quantileSql';
import type { AnalysisOptions } from '../options';
import { query } from '../sql/statement';

/** The part of the provenance that depends only on the loaded run (cached: figures.ts `provenance`). */
export interface LoadedProvenance {
  inputs: InputProvenance[];
  resources: ResourceIdentity[];
  resources_note: string;
  services: Array<{ service: string | null; spans: number }>;
}

const IDENTITY_KEYS = ['service_name', 'service_version', 'sdk_name', 'sdk_version', 'sdk_language', 'schema_url'] as const;

function text(v: unknown): string | null {
  return typeof v === 'string' && v !== '' ? v : null;
}

export async function readLoadedProvenance(store: QueryRunner): Promise<LoadedProvenance> {
  const rows = await query<{ path: string; format: string; side: string; bytes: unknown; sha256: string | null; resources: string | null; how: string | null }>(
    store,
    'provenance of the inputs',
    `SELECT s.path, s.format, s.side, s.bytes, p.sha256, p.resources, p.resources_read AS how
     FROM sources s LEFT JOIN source_provenance p USING (source_id) ORDER BY s.source_id`,
  );
  const inputs: InputProvenance[] = rows.map((r) => ({ path: r.path, format: r.format, side: r.side, bytes: finiteOrNull(r.bytes) ?? 0, sha256: r.sha256 ?? null }));
  const byIdentity = new Map<string, ResourceIdentity>();
  const notes: string[] = [];
  for (const r of rows) {
    if (r.how !== null) notes.push(`${r.path}: ${r.how}`);
    if (r.resources === null) continue;
    const list = JSON.parse(r.resources) as Array<Record<string, unknown>>;
    for (const item of list) {
      const identity = Object.fromEntries(IDENTITY_KEYS.map((k) => [k, text(item[k])])) as Omit<ResourceIdentity, 'sources'>;
      const id = JSON.stringify(IDENTITY_KEYS.map((k) => identity[k]));
      const known = byIdentity.get(id);
      if (known === undefined) byIdentity.set(id, { ...identity, sources: [r.path] });
      else if (!known.sources.includes(r.path)) known.sources.push(r.path);
    }
  }
  const resources = [...byIdentity.values()].sort((a, b) => (a.service_name ?? '').localeCompare(b.service_name ?? '') || (a.service_version ?? '').localeCompare(b.service_version ?? ''));
  const unread = rows.filter((r) => r.side === 'server' && r.format !== 'otlp-json').map((r) => r.path);
  if (unread.length > 0) notes.push(`${unread.join(', ')}: ${unread.length === 1 ? 'its format carries' : 'their formats carry'} no OTLP resource (the services below come from the spans)`);
  const services = await query<{ service: string | null; spans: unknown }>(store, 'services of the spans', 'SELECT service, count(*) AS spans FROM spans GROUP BY service ORDER BY spans DESC, service');
  return {
    inputs,
    resources,
    resources_note: notes.length > 0 ? `resources read from: ${notes.join('; ')}` : 'no span file was loaded',
    services: services.map((s) => ({ service: s.service, spans: finiteOrNull(s.spans) ?? 0 })),
  };
}

/** The options as they enter the report: plain JSON, the contract identity apart. */
function optionsJson(options: AnalysisOptions): Record<string, unknown> {
  const { contract, ...rest } = options;
  void contract;
  return JSON.parse(JSON.stringify(rest)) as Record<string, unknown>;
}

export function buildProvenance(loaded: LoadedProvenance, options: AnalysisOptions): Provenance {
  return {
    phasewise_version: PHASEWISE_VERSION,
    inputs: loaded.inputs,
    contract: options.contract ? { path: options.contract.path, name: options.contract.name, sha256: options.contract.sha256, bytes: options.contract.bytes } : null,
    resources: loaded.resources,
    resources_note: loaded.resources_note,
    services: loaded.services,
    sampling: { declared: options.declaredSampling ?? null, source: options.declaredSampling !== undefined ? 'contract' : null },
    options: optionsJson(options),
  };
}
