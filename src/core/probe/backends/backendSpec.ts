/**
 * A trace backend described as plain data (settings, a worker's `workerData`), and the backend it
 * names. The embedded receiver is started by the caller (it owns the port); the others are built here.
 */
import type { TraceBackend } from './backend';
import { SpanFileBackend } from './localBackends';
import { JaegerBackend, TempoBackend } from './queryApis';

export type BackendSpec =
  | { kind: 'none' }
  | { kind: 'receiver'; listen: string }
  | { kind: 'file'; path: string }
  | { kind: 'jaeger' | 'tempo'; url: string; headers?: Record<string, string> };

/** The backend for every kind but `receiver` (undefined for `none`). */
export function remoteBackend(spec: BackendSpec): TraceBackend | undefined {
  switch (spec.kind) {
    case 'file':
      return new SpanFileBackend(spec.path);
    case 'jaeger':
      return new JaegerBackend({ baseUrl: spec.url, headers: spec.headers });
    case 'tempo':
      return new TempoBackend({ baseUrl: spec.url, headers: spec.headers });
    default:
      return undefined;
  }
}
