import * as assert from 'assert';
import { createHash } from 'crypto';
import { readFileSync, statSync } from 'fs';
import * as path from 'path';
import { analyzeRun } from '../../../../src/core/analysis/analyze';
import { DEFAULT_ANALYSIS_OPTIONS } from '../../../../src/core/analysis/options';
import type { Report } from '../../../../src/core/report/model';
import { loadRun } from '../../../../src/core/run/loadRun';
import { DuckStore } from '../../../../src/core/store/duckStore';
import { PHASEWISE_VERSION } from '../../../../src/core/version';
import { sharedSamplesDir } from '../../../helpers/paths';

const dir = path.join(sharedSamplesDir, 'joined-otel-js');
const k6 = path.join(dir, 'k6.ndjson');
const spans = path.join(dir, 'spans.otlp.jsonl');

interface KeyValue {
  key: string;
  value: { stringValue?: string };
}

/** The distinct resources of an OTLP JSONL file, read in plain TypeScript (no DuckDB). */
function resourcesOf(file: string): Set<string> {
  const out = new Set<string>();
  for (const line of readFileSync(file, 'utf8').split('\n')) {
    if (line.trim() === '') continue;
    const doc = JSON.parse(line) as { resourceSpans: Array<{ resource: { attributes: KeyValue[] }; schemaUrl?: string }> };
    for (const rs of doc.resourceSpans) {
      const a = (k: string): string | null => rs.resource.attributes.find((x) => x.key === k)?.value.stringValue ?? null;
      out.add(JSON.stringify([a('service.name'), a('service.version'), a('telemetry.sdk.name'), a('telemetry.sdk.version'), a('telemetry.sdk.language'), rs.schemaUrl || null]));
    }
  }
  return out;
}

describe('provenance (issue 17 §6) on the real joined-otel-js sample', () => {
  let report: Report;
  before(async () => {
    const store = new DuckStore();
    try {
      await loadRun(store, { run: [k6], spans: [spans] });
      report = await analyzeRun(store, { ...DEFAULT_ANALYSIS_OPTIONS, declaredSampling: 0.5 }, []);
    } finally {
      await store.close();
    }
  });

  it('carries each input with its size and the SHA-256 of its bytes (node:crypto over the file)', () => {
    const p = report.provenance;
    assert.deepStrictEqual(
      p.inputs.map((i) => [path.basename(i.path), i.side, i.bytes, i.sha256]),
      [k6, spans].map((f, i) => [path.basename(f), i === 0 ? 'client' : 'server', statSync(f).size, createHash('sha256').update(readFileSync(f)).digest('hex')]),
    );
  });

  it('lists the OTLP resources that wrote the spans as a plain JSON parse of the file finds them', () => {
    const got = new Set(report.provenance.resources.map((r) => JSON.stringify([r.service_name, r.service_version, r.sdk_name, r.sdk_version, r.sdk_language, r.schema_url])));
    assert.deepStrictEqual(got, resourcesOf(spans));
    assert.deepStrictEqual([...got], [JSON.stringify(['llm-gateway', '0.1.0', 'opentelemetry', '2.12.1', 'nodejs', null])]);
    // The sample has fewer documents than the sampling limit: every one was read.
    assert.match(report.provenance.resources_note, /all \d+ documents/);
  });

  it('counts the spans per service (812 spans, all from llm-gateway: the join test\'s count)', () => {
    assert.deepStrictEqual(report.provenance.services, [{ service: 'llm-gateway', spans: 812 }]);
  });

  it('carries the version, the sampling declaration and the options; no contract was given', () => {
    const p = report.provenance;
    assert.strictEqual(p.phasewise_version, PHASEWISE_VERSION);
    assert.deepStrictEqual(p.sampling, { declared: 0.5, source: 'contract' });
    assert.strictEqual(p.contract, null);
    assert.strictEqual(p.options.windowSizeMs, DEFAULT_ANALYSIS_OPTIONS.windowSizeMs);
  });
});
