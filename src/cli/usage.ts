/** The help text: every flag, and the exit codes a CI job branches on. */
export const USAGE = `usage: phasewise <command> [options]

commands
  analyze    join a load-test run with server spans and report who owns the p95
  reconcile  one request from both sides: key=value figures and the span waterfall
  validate   check a load contract (*.loadcontract.yaml)
  k6         generate a k6 script from a load contract

phasewise analyze --run FILE... --spans FILE... [options]
  --run FILE...          client side: k6 JSON/CSV output, k6 summary, per-request records (NDJSON/CSV)
  --spans FILE...        server side: OTLP JSON, Jaeger JSON, Zipkin v2 JSON (gzip accepted)
                         either alone works (client-only or server-only figures)
  --contract FILE        load contract: phases, windows and gates
  --threshold EXPR       a gate, repeatable: METRIC.STAT OP LIMIT, e.g. 'client_total_ms.p95<=2000',
                         'gpu_queue_ms.p95<=400', 'error_rate.value<=1%', 'dropped_iterations.value<=0'
  --window DURATION      window size for per-window figures (default 30s)
  --slow N               how many slow traces to list (default 10)
  --trace-tag NAME       k6 tag carrying the trace ID when data.metadata.trace_id is absent (default trace_id)
  --format text|json|md  report format (default text)
  --out FILE             write the report to FILE instead of stdout
  --db FILE              keep the loaded run in a DuckDB file; later 'analyze --db FILE' without
                         --run/--spans re-analyses it without re-reading the inputs
  --progress             progress on stderr even when stderr is not a terminal
  --quiet, -q            no report on stdout and no progress (skipped lines are still reported)

phasewise reconcile --trace ID --run FILE... --spans FILE... [--contract FILE] [--db FILE] [--format text|json]

exit codes
  0 pass (or no gates)   1 fail   2 inconclusive   3 instrumentation failure
  4 bad input or usage   5 internal error   130 interrupted
`;
