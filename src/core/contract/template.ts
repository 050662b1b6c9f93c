/** The contract a user starts from (`Phasewise: New Load Contract`): valid, commented, every section present. */
export const CONTRACT_TEMPLATE = `# Phasewise load contract: what this run claims, frozen before it runs.
# Hover a key for its meaning; \`phasewise validate\` checks it, \`phasewise k6\` turns it into a k6 script.
version: 1
name: my-route steady SLO check
claim:
  kind: slo_check            # slo_check | capacity | saturation | soak | regression
  statement: p95 total ≤ 2 s at 10 req/s
workload:
  model: open                # open arrivals: the only model that can claim a rate
  executor: constant-arrival-rate
  rate: 10
  time_unit: 1s
  ramp: 30s
  plateau: 10m               # at least 10 minutes for p95/p99 claims
  drain: 30s
  warmup_exclude: 1m
  max_in_flight: 100         # ≥ rate × total SLO (Little's law), with headroom
request:
  route: POST /v1/chat/completions
  base_url: http://localhost:8080
  model_class: my-model
  region: my-region
  streaming: false
  timeout: 60s               # well above the total SLO, or timeouts censor the tail
  retries: 0
  prompt_shapes:
    - { id: short, weight: 0.8, input_tokens: [50, 300], output_tokens: [50, 200] }
    - { id: long, weight: 0.2, input_tokens: [1000, 4000], output_tokens: [200, 600] }
trace:
  id_source: metadata        # never a metric tag
  root: { service: my-gateway }
slo:
  total_ms: { p95: 2s, p99: 4s }
budgets:
  - allocates: total_ms.p95
    when: { model_class: my-model, region: my-region, rate: 10, window: steady }
    phases:
      network_envelope: 150ms
      gateway: 100ms
      gpu_queue: 400ms
      generation: 1250ms
      unattributed_server: 100ms
gates:
  error_rate: 0.01
  dropped_iterations: 0
  scheduler_lag_ms: 50ms
  join_coverage: 0.95
  negative_envelope_share: 0.01
  achieved_rate_ratio: 0.95
windows:
  size: 30s
`;
