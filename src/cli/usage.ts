import { exitCodeUsage } from './exitCodes';

/** The help text: every flag, and the exit codes a CI job branches on (from exitCodes.ts). */
export const USAGE = `usage: phasewise <command> [options]

commands
  analyze    join a load-test run with server spans and report who owns the p95
  reconcile  one request from both sides: key=value figures and the span waterfall
  validate   check a load contract (*.loadcontract.yaml)
  k6         generate a k6 script from a load contract
  probe      send one request (or a slow series) with a traceparent, fetch its trace, reconcile it
  receive    an OTLP/HTTP trace receiver: store the spans a gateway exports (JSONL and/or --db)
  sql        one read-only SELECT over a loaded run's query views (phasewise sql --help lists them)
  export     the raw pairs of a loaded run (one row per request, every owner's duration) as Parquet or CSV
  compare    two runs: every owner's p50/p95/p99 with bootstrap intervals, ledgers, coverage, same experiment?

phasewise analyze --run FILE... --spans FILE... [options]
  --run FILE...          client side: k6 JSON/CSV output, k6 summary, per-request records (NDJSON/CSV),
                         AIPerf profile_export.jsonl, vLLM bench serve --save-detailed, guidellm JSON
  --spans FILE...        server side: OTLP JSON, Jaeger JSON, Zipkin v2 JSON (gzip accepted)
                         either alone works (client-only or server-only figures)
  --contract FILE        load contract: phases, windows, stages and gates (a stepped run, from the
                         contract's stages or the steps found in the schedule, gets a stage table
                         and its knee: 'stages' in --format json)
  --threshold EXPR       a gate, repeatable: METRIC.STAT OP LIMIT, e.g. 'client_total_ms.p95<=2000',
                         'gpu_queue_ms.p95<=400', 'error_rate.value<=1%', 'dropped_iterations.value<=0'
  --window DURATION      window size for per-window figures (default 30s)
  --window-slide DURATION  a sliding window series: windows of --window starting every DURATION
                         (e.g. --window 15m --window-slide 1m); default: fixed windows
  --group-by DIM,...     figures per group: route, model, region, priority, streaming, prompt_shape,
                         input_band, output_band, status_class (default: route and model when the
                         run holds several; none: no groups)
  --min-group-size N     a group with fewer successful calls is marked too small for a p95
                         (default 200, at most 100,000,000)
  --slow N               how many slow traces to list (default 10, at most 10,000)
  --trace-tag NAME       k6 tag carrying the trace ID when data.metadata.trace_id is absent (default trace_id)
  --join-by KEY          what joins client records to spans: trace-id (default), or request-id[=ATTR]:
                         the records' request ID (AIPerf x_request_id) against the span attribute ATTR
                         (default http.request.header.x-request-id); the contract's trace.id_source;
                         re-analysing a --db without either uses the key it was analysed with
  --format text|json|md|html  report format (default text); html is one self-contained file with
                         the charts and the waterfall of every listed slow trace
  --out FILE             write the report to FILE instead of stdout
  --db FILE              keep the loaded run in a DuckDB file; later 'analyze --db FILE' without
                         --run/--spans re-analyses it without re-reading the inputs
  --memory-limit SIZE    DuckDB's memory limit, e.g. 2GB (default 1200MB); larger work spills to disk
  --threads N            DuckDB's threads (default: one per core)
  --progress             progress on stderr even when stderr is not a terminal
  --quiet, -q            no report on stdout and no progress (skipped lines are still reported)

phasewise reconcile --trace ID --run FILE... --spans FILE... [--contract FILE] [--db FILE]
                         [--format text|json|html] [--out FILE]

phasewise probe --url URL [--receive HOST:PORT | --spans FILE | --jaeger URL | --tempo URL] [options]
  --url URL              base URL (http://127.0.0.1:8080) or the full endpoint URL
  --route PATH           default /v1/chat/completions (or the contract's request.route)
  --model NAME           the request's model (default: the contract's request.model_class)
  --stream, --no-stream  streaming (SSE) or not (default: the contract's request.streaming, else streaming)
  --body FILE            a JSON request body to send instead of the fixed prompt (model and stream still set)
  --contract FILE        request defaults and the phases to check
  --receive HOST:PORT    start a receiver there and point the gateway's OTLP exporter at it
  --spans FILE           a span file a Collector writes (re-read until the trace appears)
  --jaeger URL           Jaeger query API (…/api/v3 for api_v3); --tempo URL: Tempo (…/api/v2 for v2)
  --backend-header 'K: V'  a header for the query API (e.g. X-Scope-OrgID), repeatable
  --timeout DURATION     how long to wait for the trace (default 30s); --quiet-period (default 1500ms)
  --request-timeout DURATION  the request's own timeout (default 60s, or the contract's request.timeout)
  --count N --rate R     a series: N requests at R/s (open arrivals), per-request records in --records FILE,
                         spans (with --receive) in --spans-out FILE; then analysed as a run
  --format text|json     --out FILE writes the result instead of stdout
  the API token is read from PHASEWISE_API_TOKEN (never from a flag; never printed or stored)
  exit: 0 ok, 1 the request failed (429, 5xx, timeout, refused), 2 the trace did not arrive in time,
  3 propagation broken or phase spans missing

phasewise receive [--listen 127.0.0.1:4318] [--out FILE.otlp.jsonl] [--db FILE] [--max-body 20MiB] [--format text|json]
  POST /v1/traces, protobuf or JSON, gzip; one ExportTraceServiceRequest per line in --out (default
  spans-<time>.otlp.jsonl unless --db); Ctrl-C or SIGTERM flushes, prints the totals and exits 0

phasewise validate [--strict] [--quiet] FILE.loadcontract.yaml...
phasewise k6 FILE.loadcontract.yaml [--out script.js]
phasewise sql --db FILE [--contract FILE] [--format text|csv|json] "SELECT …"   (phasewise sql --help: the views)
phasewise export --db FILE --out pairs.parquet|pairs.csv [--contract FILE] [--window DURATION]
phasewise compare BASE HEAD [--fail-on 'METRIC.STAT>+N%'] [--format json]   (phasewise compare --help)

${exitCodeUsage()}`;
