/**
 * A probe's result in the editor: its record and its trace's documents open as a probe run (listed in
 * the Runs view; its database serves the waterfall after a reload too), and the trace's waterfall
 * opens with the probe's banner on top: the propagation check, the outcome, how the trace was fetched.
 */
import type { ProbeResult } from '../../core/probe/result';
import type { ProbeBanner } from '../../protocol/waterfall';
import type { RunFeatures } from '../runs/index';

export function probeBannerOf(r: ProbeResult): ProbeBanner {
  return {
    url: r.url,
    traceparent: r.traceparent,
    outcome: r.outcome,
    outcome_detail: r.outcome_detail,
    http_status: r.http_status,
    propagation:
      r.propagation === null
        ? null
        : {
            ok: r.propagation.ok,
            problems: [...r.propagation.problems],
            expected_parent_span_id: r.propagation.expected_parent_span_id,
            root_parent_span_id: r.propagation.root_parent_span_id,
            phases_present: [...r.propagation.phases_present],
            phases_missing: [...r.propagation.phases_missing],
          },
    fetch: r.trace === null ? null : { backend: r.trace.backend, status: r.trace.status, spans: r.trace.spans, waited_ms: r.trace.waited_ms, reasons: [...r.trace.reasons] },
  };
}

export async function openProbeRun(f: RunFeatures, result: ProbeResult, files: { records: string; spans: string[] }, contract: string | undefined): Promise<void> {
  const time = new Date(result.started_epoch_ms).toLocaleTimeString();
  let host = result.url;
  try {
    host = new URL(result.url).host;
  } catch {
    // The URL as the probe wrote it.
  }
  const entry = await f.runs.open(
    { run: [files.records], spans: files.spans, contract: contract ?? null },
    { kind: 'probe', label: `Probe ${time} ${host}`, title: 'Phasewise: opening the probe’s trace' },
  );
  if (entry === undefined) return;
  f.runs.catalog.update(entry.id, { probes: { ...(entry.probes ?? {}), [result.trace_id]: probeBannerOf(result) } });
  await f.waterfalls.show(entry.id, result.trace_id);
}
