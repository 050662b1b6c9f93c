/**
 * The opentelemetry-proto message types the receiver needs, from the protobufjs static code that
 * @opentelemetry/otlp-transformer 0.216.0 generates (`build/src/generated/root.js`, typed there only as
 * a Root): loaded on first use, so that the CLI's other commands never pay for it.
 */
import { Writer } from 'protobufjs/minimal';

/** The static-code message API protobufjs generates (the subset used here). */
export interface StaticMessageType {
  decode(reader: Uint8Array): unknown;
  encode(message: unknown): { finish(): Uint8Array };
  fromObject(object: Record<string, unknown>): unknown;
  toObject(message: unknown, options: { longs: typeof String; enums: typeof Number; bytes: typeof String; defaults: boolean }): Record<string, unknown>;
}

interface OtlpTypes {
  ExportTraceServiceRequest: StaticMessageType;
  ExportTraceServiceResponse: StaticMessageType;
}

let types: OtlpTypes | undefined;

export function otlpTypes(): OtlpTypes {
  if (!types) {
    // eslint-disable-next-line @typescript-eslint/no-require-imports
    const root = require('@opentelemetry/otlp-transformer/build/src/generated/root.js') as {
      opentelemetry: { proto: { collector: { trace: { v1: OtlpTypes } } } };
    };
    const v1 = root.opentelemetry.proto.collector.trace.v1;
    types = { ExportTraceServiceRequest: v1.ExportTraceServiceRequest, ExportTraceServiceResponse: v1.ExportTraceServiceResponse };
  }
  return types;
}

/** ExportTraceServiceResponse as protobuf: empty on full success, else partial_success {rejected_spans, error_message}. */
export function encodeExportResponse(rejected: number, errorMessage: string): Uint8Array {
  const { ExportTraceServiceResponse } = otlpTypes();
  const body = rejected > 0 ? { partialSuccess: { rejectedSpans: rejected, errorMessage } } : {};
  return ExportTraceServiceResponse.encode(ExportTraceServiceResponse.fromObject(body)).finish();
}

/** The same response as OTLP JSON (int64 as a decimal string, per the proto3 JSON mapping). */
export function exportResponseJson(rejected: number, errorMessage: string): string {
  return JSON.stringify(rejected > 0 ? { partialSuccess: { rejectedSpans: String(rejected), errorMessage } } : {});
}

/**
 * google.rpc.Status {int32 code = 1; string message = 2; repeated Any details = 3} as protobuf. The
 * generated root does not carry google.rpc, and the message is two scalar fields: written by hand
 * with protobufjs's Writer (field 1 varint: tag 0x08; field 2 length-delimited: tag 0x12).
 */
export function encodeStatus(code: number, message: string): Uint8Array {
  return Writer.create().uint32(0x08).int32(code).uint32(0x12).string(message).finish();
}

export function statusJson(code: number, message: string): string {
  return JSON.stringify({ code, message });
}

/** gRPC status codes used in Status bodies. */
export const RPC_INVALID_ARGUMENT = 3;
export const RPC_RESOURCE_EXHAUSTED = 8;
export const RPC_UNAVAILABLE = 14;
export const RPC_INTERNAL = 13;
