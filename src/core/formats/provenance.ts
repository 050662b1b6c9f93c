/**
 * What a later comparison needs to know about a loaded file, recorded at load time into
 * `source_provenance` (a --db re-analysis never reads the file again): the SHA-256 of its bytes, and
 * for an OTLP span file the distinct resources that wrote it (service name and version, SDK name,
 * version and language, schema URL).
 *
 * The hash streams the file while its reader runs (startFileHash before the reader, await after), so
 * it overlaps DuckDB's parse instead of adding a pass. The resources are read from the first
 * RESOURCE_DOCUMENTS documents of a line-delimited file (one SDK or Collector process writes the same
 * resources into every batch; the report says how many documents were read), and from the whole of a
 * single document.
 */
import { createHash } from 'crypto';
import { createReadStream } from 'fs';
import type { QueryRunner } from '../store/duckStore';
import type { SniffResult } from './sniff';

/** Documents of a line-delimited OTLP file the resources are read from. */
export const RESOURCE_DOCUMENTS = 200;

/** A SHA-256 of the file's bytes, computed as the file is streamed (resolves with hex, or null when unreadable). */
export function startFileHash(path: string): Promise<string | null> {
  return new Promise((resolve) => {
    const hash = createHash('sha256');
    const stream = createReadStream(path, { highWaterMark: 1 << 20 });
    stream.on('data', (chunk) => hash.update(chunk));
    stream.on('error', () => resolve(null));
    stream.on('end', () => resolve(hash.digest('hex')));
  });
}

const KV = '[{"key":"VARCHAR","value":{"stringValue":"VARCHAR"}}]';
const RS = `[{"resource":{"attributes":${KV}},"schemaUrl":"VARCHAR","scopeSpans":[{"schemaUrl":"VARCHAR"}]}]`;
const SHAPE = `{"resourceSpans":${RS},"result":{"resourceSpans":${RS}}}`;

function attr(key: string): string {
  return `list_filter(r.resource.attributes, lambda a: a.key = '${key}')[1].value.stringValue`;
}

/** The resources of an OTLP JSON file as a JSON list, and how they were read. */
async function readResources(store: QueryRunner, path: string, sniff: SniffResult): Promise<{ json: string; how: string }> {
  const source = sniff.lineDelimited
    ? `(SELECT json FROM read_ndjson_objects($1, compression = 'auto_detect', maximum_object_size = 16777216) LIMIT ${RESOURCE_DOCUMENTS})`
    : `(SELECT json FROM read_json_objects($1, format = 'auto', compression = 'auto_detect', maximum_object_size = 268435456) LIMIT 1)`;
  const rows = await store.all<{ resources: string | null; documents: number }>(
    `WITH d AS (SELECT json_transform(json, '${SHAPE}') AS d FROM ${source}),
     r AS (SELECT unnest(coalesce(d.resourceSpans, d.result.resourceSpans)) AS r FROM d)
     SELECT (SELECT to_json(list(DISTINCT {
               service_name: ${attr('service.name')}, service_version: ${attr('service.version')},
               sdk_name: ${attr('telemetry.sdk.name')}, sdk_version: ${attr('telemetry.sdk.version')},
               sdk_language: ${attr('telemetry.sdk.language')},
               schema_url: coalesce(nullif(r.schemaUrl, ''), nullif(r.scopeSpans[1].schemaUrl, ''))}))::VARCHAR FROM r) AS resources,
            (SELECT count(*) FROM d) AS documents`,
    [path],
  );
  const documents = Number(rows[0]?.documents ?? 0);
  const how = !sniff.lineDelimited ? 'the whole document' : documents < RESOURCE_DOCUMENTS ? `all ${documents} documents` : `the first ${documents} documents`;
  return { json: rows[0]?.resources ?? '[]', how };
}

/** Records a loaded file's provenance (its hash, and the resources of an OTLP span file). */
export async function recordProvenance(store: QueryRunner, sourceId: number, path: string, sniff: SniffResult, sha256: string | null): Promise<void> {
  let resources: string | null = null;
  let how: string | null = null;
  if (sniff.format === 'otlp-json') {
    try {
      ({ json: resources, how } = await readResources(store, path, sniff));
    } catch {
      // The spans are loaded; only the identity of their writer is missing, and the report says so.
      how = 'not read (a document too large or not readable for the resource sample)';
    }
  }
  await store.run('INSERT INTO source_provenance VALUES ($1, $2, $3, $4)', [sourceId, sha256, resources, how]);
}
