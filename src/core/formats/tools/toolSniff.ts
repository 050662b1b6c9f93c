/**
 * Recognising the other load generators' files by content (sniff.ts calls this before its own
 * single-document checks): AIPerf's profile_export.jsonl, vLLM bench serve results, guidellm reports.
 */

/** The formats of the other load generators (FormatId members). */
export type ToolFormatId = 'aiperf-jsonl' | 'vllm-bench-json' | 'guidellm-json';

export const TOOL_FORMATS_EXPECTED = 'AIPerf profile_export.jsonl, vLLM bench serve --save-detailed results, a guidellm JSON report';

/**
 * The tool format of a file, from its first line (`line`, a complete JSON object when
 * `oneLineObject`) and its head, or undefined.
 * - AIPerf: each line is `{"metadata": {…"x_request_id"…, "request_start_ns"…}, "metrics": …}`;
 * - vLLM: one object with the run's summary (`request_throughput`, `total_input_tokens` or
 *   `completed`) and the per-request lists (`ttfts`, `input_lens`); a summary saved without
 *   --save-detailed is sniffed too, so its reader can say what is missing;
 * - guidellm: `{"benchmarks": [{"type_": "generative_benchmark", …`.
 */
export function sniffToolFormat(line: string, head: string, oneLineObject: boolean): ToolFormatId | undefined {
  if (oneLineObject && /^\{\s*"metadata"\s*:\s*\{/.test(line) && /"(x_request_id|request_start_ns)"\s*:/.test(line) && /"metrics"\s*:/.test(line)) {
    return 'aiperf-jsonl';
  }
  const start = head.trimStart();
  if (!start.startsWith('{')) return undefined;
  if (/"benchmarks"\s*:\s*\[/.test(head) && /"generative_benchmark"/.test(head)) return 'guidellm-json';
  if (/"request_throughput"\s*:/.test(head) && /"(total_input_tokens|completed)"\s*:/.test(head) && /"(ttfts|input_lens|errors|mean_ttft_ms|mean_e2el_ms)"\s*:/.test(head)) {
    return 'vllm-bench-json';
  }
  return undefined;
}
