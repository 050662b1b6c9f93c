/** A W3C trace ID as the readers store it: 32 lower-case hex digits, not all zero. */

/** The stored form of a typed or pasted trace ID (64-bit Zipkin IDs left-padded as the span readers do); undefined when it is not one. */
export function normalizeTraceId(raw: string): string | undefined {
  const id = raw.trim().toLowerCase();
  const full = /^[0-9a-f]{16}$/.test(id) ? id.padStart(32, '0') : id;
  return /^[0-9a-f]{32}$/.test(full) && !/^0+$/.test(full) ? full : undefined;
}
