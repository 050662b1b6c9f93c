import type { LineSink } from './sink';
import { nsToMs, type TimeFormatter } from './timefmt';
import type { RequestTruth } from './truth';

const SCENARIO = 'open_model';

/** Metric declarations exactly as k6 writes them (one line before the metric's first Point). */
const METRICS: Record<string, string> = {
  http_reqs: metric('http_reqs', 'counter', 'default'),
  http_req_duration:
    '{"type":"Metric","data":{"name":"http_req_duration","type":"trend","contains":"time","thresholds":[],"submetrics":[{"name":"http_req_duration{expected_response:true}","suffix":"expected_response:true","tags":{"expected_response":"true"}}]},"metric":"http_req_duration"}',
  http_req_blocked: metric('http_req_blocked', 'trend', 'time'),
  http_req_connecting: metric('http_req_connecting', 'trend', 'time'),
  http_req_tls_handshaking: metric('http_req_tls_handshaking', 'trend', 'time'),
  http_req_sending: metric('http_req_sending', 'trend', 'time'),
  http_req_waiting: metric('http_req_waiting', 'trend', 'time'),
  http_req_receiving: metric('http_req_receiving', 'trend', 'time'),
  http_req_failed: metric('http_req_failed', 'rate', 'default'),
  llm_ttft_ms: metric('llm_ttft_ms', 'trend', 'time'),
  data_sent: metric('data_sent', 'counter', 'data'),
  data_received: metric('data_received', 'counter', 'data'),
  iteration_duration: metric('iteration_duration', 'trend', 'time'),
  iterations: metric('iterations', 'counter', 'default'),
  dropped_iterations: metric('dropped_iterations', 'counter', 'default'),
  vus: metric('vus', 'gauge', 'default'),
  vus_max: metric('vus_max', 'gauge', 'default'),
};

function metric(name: string, type: string, contains: string): string {
  return `{"type":"Metric","data":{"name":"${name}","type":"${type}","contains":"${contains}","thresholds":[],"submetrics":null},"metric":"${name}"}`;
}

/**
 * Writes the k6 `--out json` layout: per request 9 `http_req*` Points at the request's end time with
 * the request's tags, then the iteration's Points (data_sent, data_received, iteration_duration,
 * iterations) at the iteration's end with `{group, scenario}` tags, as real k6 does. The trace ID is in
 * `data.metadata.trace_id` on all of them: the script sets `exec.vu.metrics.metadata.trace_id`, which
 * is also how the custom `llm_ttft_ms` Trend (streaming requests) carries it.
 */
export class K6Writer {
  private readonly declared = new Set<string>();
  points = 0;

  private readonly url: string;
  private readonly base: string;

  constructor(private readonly sink: LineSink, private readonly time: TimeFormatter, private readonly tls: boolean) {
    this.base = tls ? 'https://localhost:8443' : 'http://localhost:8080';
    this.url = `${this.base}/v1/chat/completions`;
  }

  private point(name: string, time: string, value: number, rest: string): void {
    if (!this.declared.has(name)) {
      this.declared.add(name);
      this.sink.line(METRICS[name]);
    }
    this.sink.line(`{"metric":"${name}","type":"Point","data":{"time":"${time}","value":${value},${rest}}}`);
    this.points++;
  }

  request(r: RequestTruth): void {
    const meta = `"metadata":{"trace_id":"${r.traceId}"}`;
    const ok = r.httpStatus >= 200 && r.httpStatus < 400;
    let tags = '{';
    if (r.errorMessage !== null) tags += `"error":${JSON.stringify(r.errorMessage)},`;
    if (r.errorCode !== null) tags += `"error_code":"${r.errorCode}",`;
    // Scenario routes (scenario.ts) carry the script's own tags, as a k6 script sets them per request.
    const url = r.routePath === undefined ? this.url : `${this.base}${r.routePath}`;
    tags += `"expected_response":"${ok}","group":"","method":"POST",`;
    if (r.route !== undefined) tags += `"model":${JSON.stringify(r.modelClass)},`;
    tags += `"name":"${url}",`;
    if (r.route !== undefined) tags += `"prompt_shape":${JSON.stringify(r.promptShape)},`;
    if (r.outcome !== 'transport_failed') tags += '"proto":"HTTP/1.1",';
    if (r.route !== undefined) tags += `"route":${JSON.stringify(r.route)},`;
    tags += `"scenario":"${SCENARIO}","status":"${r.httpStatus}",`;
    if (this.tls && r.outcome !== 'transport_failed') tags += '"tls_version":"tls1.3",';
    tags += `"url":"${url}"}`;
    const rest = `"tags":${tags},${meta}`;
    const t = this.time.rfc3339(r.endNs);
    this.point('http_reqs', t, 1, rest);
    this.point('http_req_duration', t, nsToMs(r.sendingNs + r.waitingNs + r.receivingNs), rest);
    this.point('http_req_blocked', t, nsToMs(r.blockedNs), rest);
    this.point('http_req_connecting', t, nsToMs(r.connectingNs), rest);
    this.point('http_req_tls_handshaking', t, nsToMs(r.tlsNs), rest);
    this.point('http_req_sending', t, nsToMs(r.sendingNs), rest);
    this.point('http_req_waiting', t, nsToMs(r.waitingNs), rest);
    this.point('http_req_receiving', t, nsToMs(r.receivingNs), rest);
    this.point('http_req_failed', t, ok ? 0 : 1, rest);
    const iterRest = `"tags":{"group":"","scenario":"${SCENARIO}"},${meta}`;
    if (r.clientTtftNs !== null) {
      this.point('llm_ttft_ms', this.time.rfc3339(r.sendNs + r.clientTtftNs), nsToMs(r.clientTtftNs), iterRest);
    }
    const ti = this.time.rfc3339(r.iterationEndNs);
    this.point('data_sent', ti, r.bytesSent, iterRest);
    this.point('data_received', ti, r.bytesReceived, iterRest);
    this.point('iteration_duration', ti, nsToMs(r.iterationEndNs - r.iterationStartNs), iterRest);
    this.point('iterations', ti, 1, iterRest);
  }

  /** An iteration the executor could not start (no free VU, or injected): no request, no trace. */
  dropped(scheduledNs: number): void {
    this.point('dropped_iterations', this.time.rfc3339(scheduledNs), 1, `"tags":{"scenario":"${SCENARIO}"}`);
  }

  vus(atNs: number, active: number, max: number): void {
    const t = this.time.rfc3339(atNs);
    this.point('vus', t, active, '"tags":{}');
    this.point('vus_max', t, max, '"tags":{}');
  }
}
