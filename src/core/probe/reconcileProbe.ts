/**
 * One probe, reconciled: its record and the trace's documents are loaded into a fresh in-memory
 * DuckDB store by the ordinary readers, and `reconcileTrace` (the same code as `phasewise reconcile`)
 * computes the server root, the phases and the envelope. The propagation check reads the trace's
 * roots and the phases its spans were assigned.
 */
import { mkdtemp, rm, writeFile } from 'fs/promises';
import * as path from 'path';
import type { AnalysisOptions } from '../analysis/options';
import { reconcileTrace, type TraceReconciliation } from '../analysis/trace/reconcile';
import { loadRun } from '../run/loadRun';
import { renderReconciliationLines, roundHalfAway } from '../report/waterfall';
import { DuckStore } from '../store/duckStore';
import { processTempDirectory } from '../tempDirectory';
import type { TraceLook } from './backends/backend';
import { rootCandidates } from './backends/poll';
import { toProbeRecord } from './records';
import type { ProbeResult, ProbeSend, PropagationCheck, ServerFigures, TraceFetch } from './result';

export async function reconcileProbe(send: ProbeSend, fetch: TraceFetch | null, look: TraceLook | null, options: AnalysisOptions): Promise<ProbeResult> {
  const base: ProbeResult = {
    ...send, server: null, network_envelope_ms: null, ttft_envelope_ms: null,
    propagation: null, trace: fetch, reconcile: [], spans: [], notes: [],
  };
  if (!fetch || !look) return base;
  const dir = await mkdtemp(path.join(processTempDirectory(), 'probe-'));
  // The readers size their buffers for big files (a 1 GiB block): the default memory_limit, not a small one.
  const store = new DuckStore();
  try {
    const recordFile = path.join(dir, 'probe.records.ndjson');
    const record = toProbeRecord(send, { runId: 'probe', requestId: '1', scheduledOffsetMs: 0, attemptOffsetMs: 0 });
    await writeFile(recordFile, JSON.stringify(record) + '\n');
    const spanFiles: string[] = [];
    for (const [i, doc] of look.documents.entries()) {
      const file = path.join(dir, `trace-${i}.${doc.format === 'otlp' ? 'otlp.jsonl' : 'jaeger.json'}`);
      await writeFile(file, doc.text.endsWith('\n') ? doc.text : `${doc.text}\n`);
      spanFiles.push(file);
    }
    await loadRun(store, { run: [recordFile], spans: spanFiles });
    const rec = await reconcileTrace(store, send.trace_id, options);
    if (!rec) return { ...base, propagation: propagationCheck(send, look, fetch, undefined, options) };
    return assemble(base, rec, send, look, fetch, options);
  } finally {
    await store.close();
    await rm(dir, { recursive: true, force: true });
  }
}

function assemble(base: ProbeResult, rec: TraceReconciliation, send: ProbeSend, look: TraceLook, fetch: TraceFetch, options: AnalysisOptions): ProbeResult {
  const b = rec.breakdown;
  const hasServer = b.server_root_ms !== null;
  const phase = (name: string): number | null => b.phases[`${name}_ms`] ?? null;
  const server: ServerFigures | null = hasServer
    ? {
        root_ms: b.server_root_ms,
        phases: {
          ...Object.fromEntries(options.phases.map((p) => [`${p.name}_ms`, phase(p.name)])),
          gateway_ms: phase('gateway'),
          gpu_queue_ms: phase('gpu_queue'),
          generation_ms: phase('generation'),
          unattributed_ms: b.unattributed_server_ms,
        },
        server_ttft_ms: b.server_ttft_ms,
      }
    : null;
  const envelope = send.client.total_ms !== null && b.server_root_ms !== null ? send.client.total_ms - b.server_root_ms : null;
  const ttftEnvelope = send.client.ttft_ms !== null && b.server_ttft_ms !== null ? send.client.ttft_ms - b.server_ttft_ms : null;
  const lines = renderReconciliationLines(rec, options.phases.map((p) => p.name));
  lines.push(
    `client_ttft_ms=${intOrNa(send.client.ttft_ms)}`,
    `server_ttft_ms=${intOrNa(b.server_ttft_ms)}`,
    `ttft_envelope_ms=${intOrNa(ttftEnvelope)}`,
  );
  return {
    ...base,
    server,
    network_envelope_ms: envelope,
    ttft_envelope_ms: ttftEnvelope,
    propagation: propagationCheck(send, look, fetch, rec, options),
    reconcile: lines,
    spans: rec.spans,
    notes: rec.notes,
  };
}

function intOrNa(v: number | null): string {
  return v === null || !Number.isFinite(v) ? 'n/a' : String(roundHalfAway(v));
}

/**
 * Did the probe's context reach the server, and does the trace have the spans the phases need?
 * The root must be the one SERVER span whose parent is not in the trace, and that parent must be the
 * probe's parent-id (trace-context: the callee's span is a child of the caller's).
 */
export function propagationCheck(
  send: ProbeSend,
  look: TraceLook,
  fetch: TraceFetch,
  rec: TraceReconciliation | undefined,
  options: AnalysisOptions,
): PropagationCheck {
  const problems: string[] = [];
  const expected = send.parent_span_id;
  const roots = rootCandidates(look.spans);
  const root = roots.find((r) => r.parentSpanId === expected) ?? roots[0];
  if (look.spans.length === 0) {
    problems.push(`trace ${send.trace_id} was not found in ${fetch.backend}${fetch.reasons[0] ? `: ${fetch.reasons[0]}` : ''}`);
  } else if (roots.length === 0) {
    problems.push(`no server root: none of the ${look.spans.length} span(s) is a SERVER span whose parent is outside the trace`);
  } else {
    if (roots.length > 1) problems.push(`${roots.length} root candidates (${roots.map((r) => `'${r.name}'`).join(', ')}): a collision or a lost intermediate span`);
    if (root.parentSpanId === null) {
      problems.push(`the root '${root.name}' has no parent: the server kept the trace ID but not the probe's parent-id ${expected}`);
    } else if (root.parentSpanId !== expected) {
      problems.push(
        `the root '${root.name}' names parent ${root.parentSpanId}, not the probe's parent-id ${expected}: a hop in between ` +
          '(a proxy, a mesh sidecar, an API gateway) started a span it did not export, or the server replaced the context',
      );
    }
  }
  const present = new Set((rec?.spans ?? []).map((s) => s.phase).filter((p): p is string => p !== null));
  const names = options.phases.map((p) => p.name);
  const missing = look.spans.length > 0 ? names.filter((n) => !present.has(n)) : names;
  // A refused or failed request stops before the queue and the model: its missing phases are expected.
  if (look.spans.length > 0 && missing.length > 0 && send.outcome === 'succeeded') {
    problems.push(`no span of phase ${missing.join(', ')}: ${missing.map((m) => phaseHint(m)).join('; ')}`);
  }
  return {
    ok: problems.length === 0,
    problems,
    root_parent_span_id: root?.parentSpanId ?? null,
    expected_parent_span_id: expected,
    phases_present: names.filter((n) => present.has(n)),
    phases_missing: missing,
  };
}

function phaseHint(phase: string): string {
  switch (phase) {
    case 'gateway':
      return 'gateway expects auth.check, request.prepare, route.select or response.write';
    case 'gpu_queue':
      return "gpu_queue expects inference.acquire_slot or llm.phase=queue (a route to an external provider names it provider_request)";
    case 'generation':
      return 'generation expects inference.generate, llm.phase=generation or a GenAI span (gen_ai.operation.name)';
    default:
      return `${phase} is defined by the contract's trace.phases`;
  }
}
