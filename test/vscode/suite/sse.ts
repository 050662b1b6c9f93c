import type * as http from 'http';

/**
 * Answers as an OpenAI-compatible streaming endpoint does: three content deltas 5 ms apart (after a
 * role delta when `role` is set), then `[DONE]`; `done` runs once the answer has ended.
 */
export function streamThreeTokens(res: http.ServerResponse, role: boolean, done?: () => void): void {
  res.writeHead(200, { 'content-type': 'text/event-stream' });
  if (role) res.write('data: {"choices":[{"delta":{"role":"assistant"}}]}\n\n');
  let i = 0;
  const timer = setInterval(() => {
    if (i < 3) {
      res.write(`data: {"choices":[{"delta":{"content":"t${i++}"}}]}\n\n`);
      return;
    }
    clearInterval(timer);
    res.end('data: [DONE]\n\n');
    done?.();
  }, 5);
}
