/**
 * The reference runs of bench/reference/main.ts: every path through the analysis that a refactoring
 * must leave byte-identical. A sequence runs its steps in order in one scratch directory, so the
 * steps of a `--db` sequence re-analyse the run the first step loaded (and each format of a step
 * after the first reads what the previous one left in the database).
 */
import * as path from 'path';

export type Format = 'text' | 'md' | 'json';

export interface Step {
  /** File stem of this step's outputs. */
  id: string;
  command: 'analyze' | 'reconcile';
  /** Arguments after the command; `{db}` is replaced with the sequence's database file. */
  args: string[];
  formats: Format[];
}

export interface Sequence {
  id: string;
  steps: Step[];
}

export interface CaseRoots {
  /** The repository's samples/ (run from the repository root: `samples`). */
  samples: string;
  /** The team's shared samples (real files from public projects). */
  shared: string;
  /** The bench generator's 10k preset run (k6.ndjson, requests.ndjson, spans.otlp.jsonl). */
  bench10k: string;
  /** bench/reference/contracts. */
  contracts: string;
}

const ALL: Format[] = ['text', 'md', 'json'];
const RECONCILE: Format[] = ['text', 'json'];

function analyze(id: string, args: string[], formats: Format[] = ALL): Step {
  return { id, command: 'analyze', args, formats };
}

/** One analysis per contract (none, then each of `contracts`). */
function perContract(prefix: string, inputs: string[], contracts: Array<[string, string | undefined]>): Step[] {
  return contracts.map(([name, file]) => analyze(`${prefix}-${name}`, [...inputs, ...(file ? ['--contract', file] : [])]));
}

/** Every reference sequence, in the order they run. */
export function referenceSequences(roots: CaseRoots): Sequence[] {
  const s = (f: string): string => path.join(roots.samples, f);
  const sh = (...f: string[]): string => path.join(roots.shared, ...f);
  const c = (f: string): string => path.join(roots.contracts, f);
  const b = (f: string): string => path.join(roots.bench10k, f);
  const sampleContracts: Array<[string, string | undefined]> = [
    ['none', undefined],
    ['steady', s('steady.loadcontract.yaml')],
    ['saturation', s('saturation.loadcontract.yaml')],
    ['streaming', s('streaming.loadcontract.yaml')],
  ];
  const k6 = ['--run', s('k6.ndjson'), '--spans', s('spans.otlp.jsonl')];
  const records = ['--run', s('requests.ndjson'), '--spans', s('spans.otlp.jsonl')];
  const joined = (run: string): string[] => ['--run', sh('joined-otel-js', run), '--spans', sh('joined-otel-js', 'spans.otlp.jsonl')];
  const spanSamples = [
    ['jaeger-json', 'jaeger-ui_TraceFlamegraph_testTrace.json'],
    ['jaeger-json', 'jaeger-ui_TraceTimelineViewer_genaiTestTrace.json'],
    ['jaeger-json', 'jaeger-ui_utils_fixtures_oltp2jaeger-multi-out.json'],
    ['jaeger-json', 'jaeger-ui_utils_fixtures_otlp2jaeger-out.json'],
    ['otlp-json', 'jaeger-ui_api_v3_v3-trace-local-2.21.0.json'],
    ['otlp-json', 'jaeger-ui_gen-ai_fixtures_agent-trace.json'],
    ['otlp-json', 'jaeger-ui_utils_fixtures_otlp2jaeger-in.json'],
    ['otlp-json', 'jaeger-ui_utils_fixtures_otlp2jaeger-multi-in-combined.json'],
    ['zipkin-json', 'zipkin_zipkin-lens_testdata_messaging-kafka.json'],
    ['zipkin-json', 'zipkin_zipkin-lens_testdata_smartthings-mobile-web-install.json'],
    ['zipkin-json', 'zipkin_zipkin-lens_testdata_smartthings-oauth-authorization.json'],
    ['zipkin-json', 'zipkin_zipkin-lens_testdata_yelp.json'],
    ['tempo-json', 'grafana_oats_internal_legacyyaml_tempo_responses_testdata_trace_by_id.json'],
    ['tempo-json', 'grafana_tempo_pkg_tempopb_trace.json'],
    ['otlp-protobuf', 'grafana_grafana_pkg_tsdb_tempo_testData_tempo_proto_response.pb'],
    ['otlp-protobuf', 'smithclay_otlp2parquet_testdata_trace.json'],
    ['otlp-protobuf', 'smithclay_otlp2parquet_testdata_trace.pb'],
    ['joined-otel-js', 'spans.otlp.jsonl'],
  ];
  const runOnly = [
    ['samples-k6', s('k6.ndjson')],
    ['samples-records', s('requests.ndjson')],
    ['joined-k6', sh('joined-otel-js', 'k6.ndjson')],
    ['joined-records', sh('joined-otel-js', 'requests.ndjson')],
    ['k6-csv', sh('k6-csv', 'dlmohamed13_trello_cypress_k6_results.csv')],
    ['k6-json', sh('k6-json', 'xk6-dashboard_dashboard_testdata_result.json')],
    ['k6-summary-grpc', sh('k6-summary', 'k6-reporter_tests_data_grpc.json')],
    ['k6-summary-test-data', sh('k6-summary', 'k6-reporter_tests_test-data.json')],
  ];
  const db = ['--db', '{db}'];
  const reconcileIds = [
    ['matched', '7c9889a5ea525cdb51de73ae6b7aea65'],
    ['streaming', '7521ae4549b7ea824cdb1726e2390dbe'],
    ['lost-root', 'c444506f2b48683d66749d7f7095a7a2'],
    ['no-spans', '9053a2343db5a419071ad86284ef4737'],
    ['rejected', 'd2b56d8d354b308f52cd0115cf228e06'],
    ['failed', '60b8183fd0bbaebdfe92bf7b1fb4a001'],
  ];
  return [
    { id: 'samples-k6', steps: perContract('k6', k6, sampleContracts) },
    { id: 'samples-records', steps: perContract('records', records, sampleContracts.slice(0, 2)) },
    {
      id: 'joined-otel-js',
      steps: [...perContract('k6', joined('k6.ndjson'), sampleContracts.slice(0, 2)), ...perContract('records', joined('requests.ndjson'), sampleContracts.slice(0, 2))],
    },
    { id: 'spans-only', steps: spanSamples.map(([dir, file]) => analyze(`${dir}-${file}`, ['--spans', sh(dir, file)])) },
    { id: 'run-only', steps: runOnly.map(([id, file]) => analyze(id, ['--run', file])) },
    {
      id: 'db-samples',
      steps: [
        // Only the first run loads: a second load of the same files into the same database is a reload,
        // which main (4d116d7) did not tell apart from the first load (test/core/analysis/catalog/freshness.test.ts).
        analyze('01-load', [...db, ...k6], ['json']),
        analyze('01-reanalyse', [...db], ['text', 'md']),
        analyze('02-steady', [...db, '--contract', s('steady.loadcontract.yaml')]),
        analyze('03-saturation', [...db, '--contract', s('saturation.loadcontract.yaml')]),
        analyze('04-window-10s', [...db, '--window', '10s']),
        analyze('05-thresholds', [...db, '--threshold', 'gpu_queue_ms.p95<=400', '--threshold', 'error_rate.value<=1%', '--threshold', 'client_ttft_ms.p95<=2s']),
        analyze('06-slow-3', [...db, '--slow', '3']),
        analyze('07-slow-150', [...db, '--slow', '150']),
        analyze('08-phases-b', [...db, '--contract', c('phases-b.loadcontract.yaml')]),
        analyze('09-phases-other', [...db, '--contract', c('phases-other.loadcontract.yaml')]),
        analyze('10-no-phases', [...db, '--contract', c('no-phases.loadcontract.yaml')]),
        analyze('11-default-again', [...db]),
        analyze('12-streaming', [...db, '--contract', s('streaming.loadcontract.yaml'), '--window', '20s']),
        analyze('13-reload-records', [...db, ...records], ['json']),
        analyze('13-reanalyse', [...db], ['text', 'md']),
        analyze('14-reload-default', [...db]),
        analyze('15-reload-phases-b', [...db, '--contract', c('phases-b.loadcontract.yaml'), '--slow', '5']),
        analyze('16-bad-threshold', [...db, '--threshold', 'nonsense_ms.p95<=1'], ['text']),
        ...reconcileIds.map(([name, id]): Step => ({ id: `17-reconcile-${name}`, command: 'reconcile', args: [...db, '--trace', id], formats: RECONCILE })),
      ],
    },
    {
      id: 'reconcile',
      steps: [
        ...reconcileIds.map(([name, id]): Step => ({ id: `samples-${name}`, command: 'reconcile', args: [...k6, '--trace', id], formats: RECONCILE })),
        { id: 'samples-phases-b', command: 'reconcile', args: [...k6, '--trace', reconcileIds[0][1], '--contract', c('phases-b.loadcontract.yaml')], formats: RECONCILE },
        { id: 'joined-matched', command: 'reconcile', args: [...joined('k6.ndjson'), '--trace', '0b71e6178914501b1e906d2ed642d4a0'], formats: RECONCILE },
        { id: 'joined-lost-root', command: 'reconcile', args: [...joined('k6.ndjson'), '--trace', '8c7de82776b258179c23ce4e36dfce60'], formats: RECONCILE },
        { id: 'joined-no-spans', command: 'reconcile', args: [...joined('k6.ndjson'), '--trace', '0e5e8fe1c908d728b1dc028979d9cda8'], formats: RECONCILE },
      ],
    },
    {
      id: 'bench-10k',
      steps: [
        ...perContract('k6', ['--run', b('k6.ndjson'), '--spans', b('spans.otlp.jsonl')], sampleContracts).map((st) => ({ ...st, formats: ['json', 'text'] as Format[] })),
        analyze('records-none', ['--run', b('requests.ndjson'), '--spans', b('spans.otlp.jsonl')], ['json']),
      ],
    },
    {
      id: 'db-bench-10k',
      steps: [
        analyze('01-load', [...db, '--run', b('k6.ndjson'), '--spans', b('spans.otlp.jsonl')], ['json']),
        analyze('01-reanalyse', [...db], ['text']),
        analyze('02-steady', [...db, '--contract', s('steady.loadcontract.yaml')], ['json', 'text']),
        analyze('03-phases-b', [...db, '--contract', c('phases-b.loadcontract.yaml'), '--window', '10s', '--slow', '5'], ['json', 'text']),
        analyze('04-no-phases', [...db, '--contract', c('no-phases.loadcontract.yaml')], ['json']),
        analyze('05-default-again', [...db], ['json', 'text']),
      ],
    },
  ];
}
