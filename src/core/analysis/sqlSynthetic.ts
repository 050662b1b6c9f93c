import type { QueryRunner } from '../store/duckStore';

/**
 * A synthetic run made entirely in SQL (range() + random()), for measuring the breakdown build when no
 * generated run is at hand: `requests` client rows and ≈ 6.5 spans per request shaped like the
 * OpenTelemetry JS gateway (a SERVER root, gateway/queue/generation children with millisecond-granular
 * starts and exact durations, half of the requests streaming with a first_token event).
 * Appends to the loaded tables; meant for benchmarks and tests, never for a user's run.
 */
export async function insertSyntheticRun(store: QueryRunner, requests: number, seed = 0.42): Promise<void> {
  await store.run('SELECT setseed($1)', [seed]);
  await store.run(
    `CREATE OR REPLACE TEMP TABLE synthetic_plan AS
     SELECT i,
            lpad(format('{:x}', i + 1), 32, '0') AS trace_id,
            1795965000000000000 + i * 10000000 AS t0,
            (1 + random() * 3)::DOUBLE AS auth_ms, (2 + random() * 10)::DOUBLE AS prep_ms,
            (0.5 + random() * 2)::DOUBLE AS route_ms, (random() ^ 3 * 800)::DOUBLE AS queue_ms,
            (100 + random() * 1500)::DOUBLE AS gen_ms, (0.2 + random() * 2)::DOUBLE AS write_ms,
            i % 2 = 0 AS has_write, i % 2 = 1 AS streaming, (20 + random() * 80)::DOUBLE AS net_ms
     FROM range($1) t(i)`,
    [requests],
  );
  // Children start at the millisecond after the previous one ended (OTel JS truncates starts to ms).
  await store.run(
    `INSERT INTO spans
     WITH p AS (
       SELECT *, t0 + 1000000 AS a_s FROM synthetic_plan
     ), q AS (
       SELECT *, a_s + (auth_ms * 1e6)::BIGINT AS a_e FROM p
     ), r AS (
       SELECT *, (a_e // 1000000) * 1000000 AS pr_s FROM q
     ), s AS (
       SELECT *, pr_s + (prep_ms * 1e6)::BIGINT AS pr_e FROM r
     ), u AS (
       SELECT *, (pr_e // 1000000) * 1000000 + 1000000 AS ro_s FROM s
     ), v AS (
       SELECT *, ro_s + (route_ms * 1e6)::BIGINT AS ro_e FROM u
     ), w AS (
       SELECT *, (ro_e // 1000000) * 1000000 + 1000000 AS qu_s FROM v
     ), x AS (
       SELECT *, qu_s + (queue_ms * 1e6)::BIGINT AS qu_e FROM w
     ), y AS (
       SELECT *, (qu_e // 1000000) * 1000000 AS ge_s FROM x
     ), z AS (
       SELECT *, ge_s + (gen_ms * 1e6)::BIGINT AS ge_e FROM y
     ), zz AS (
       SELECT *, (ge_e // 1000000) * 1000000 + 1000000 AS wr_s FROM z
     ), fin AS (
       SELECT *, wr_s + (write_ms * 1e6)::BIGINT AS wr_e, wr_s + (write_ms * 1e6)::BIGINT + 300000 AS root_e FROM zz
     ), parts AS (
       SELECT trace_id, format('{:016x}', i * 8 + 1) AS span_id, format('{:016x}', i * 8) AS parent, 'POST /v1/chat/completions' AS name,
              'SERVER' AS kind, t0 AS s, root_e AS e, MAP {'http.route': '/v1/chat/completions'} AS attrs FROM fin
       UNION ALL SELECT trace_id, format('{:016x}', i * 8 + 2), format('{:016x}', i * 8 + 1), 'auth.check', 'INTERNAL', a_s, a_e, MAP {} FROM fin
       UNION ALL SELECT trace_id, format('{:016x}', i * 8 + 3), format('{:016x}', i * 8 + 1), 'request.prepare', 'INTERNAL', pr_s, pr_e, MAP {} FROM fin
       UNION ALL SELECT trace_id, format('{:016x}', i * 8 + 4), format('{:016x}', i * 8 + 1), 'route.select', 'INTERNAL', ro_s, ro_e, MAP {} FROM fin
       UNION ALL SELECT trace_id, format('{:016x}', i * 8 + 5), format('{:016x}', i * 8 + 1), 'inference.acquire_slot', 'INTERNAL', qu_s, qu_e,
              MAP {'llm.phase': 'queue'} FROM fin
       UNION ALL SELECT trace_id, format('{:016x}', i * 8 + 6), format('{:016x}', i * 8 + 1), 'inference.generate', 'INTERNAL', ge_s, ge_e,
              MAP {'llm.phase': 'generation', 'gen_ai.usage.output_tokens': '64'} FROM fin
       UNION ALL SELECT trace_id, format('{:016x}', i * 8 + 7), format('{:016x}', i * 8 + 1), 'response.write', 'INTERNAL', wr_s, wr_e, MAP {}
              FROM fin WHERE has_write
     )
     SELECT 900, NULL, trace_id, span_id, parent, name, kind, 'llm-gateway', s, e, (e - s) / 1e6, 'UNSET', attrs, NULL, NULL FROM parts`,
  );
  await store.run(
    `INSERT INTO span_events
     SELECT 900, trace_id, format('{:016x}', i * 8 + 6), 'first_token', t0 + ((queue_ms + 20 + 15) * 1e6)::BIGINT
     FROM synthetic_plan WHERE streaming`,
  );
  await store.run(
    `INSERT INTO client_requests (source_id, line, trace_id, start_ms, client_total_ms, is_streaming, client_ttft_ms, outcome, output_tokens)
     SELECT 901, i + 1, trace_id, t0 / 1e6, net_ms + (root_ms), streaming, CASE WHEN streaming THEN queue_ms + 40 END,
            CASE WHEN i % 50 = 0 THEN 'rejected' ELSE 'succeeded' END, 64
     FROM (SELECT *, auth_ms + prep_ms + route_ms + queue_ms + gen_ms + write_ms + 6 AS root_ms FROM synthetic_plan)`,
  );
}
