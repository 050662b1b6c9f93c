/** A W3C trace ID as the readers store it: 32 lower-case hex digits, not all zero. */

/**
 * The stored form of a typed or pasted trace ID (a shorter hex ID, a 64-bit Zipkin one or a Jaeger one
 * written without its leading zeros, left-padded as the Jaeger and Zipkin readers do); undefined when
 * it is not one.
 */
export function normalizeTraceId(raw: string): string | undefined {
  const id = raw.trim().toLowerCase();
  const full = /^[0-9a-f]{1,31}$/.test(id) ? id.padStart(32, '0') : id;
  return /^[0-9a-f]{32}$/.test(full) && !/^0+$/.test(full) ? full : undefined;
}
