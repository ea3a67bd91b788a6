/**
 * Kubernetes' protobuf envelope: the four bytes "k8s\0", then a runtime.Unknown whose typeMeta
 * names the object's apiVersion and kind and whose raw holds the object's own message. Every
 * protobuf request and response body is one envelope; so is the object inside a watch event.
 */
import { ApiError } from '@setpoint/api';
import { protobufSchema } from './schema.js';

/** The magic prefix of an envelope: "k8s" and a zero byte. */
export const PROTOBUF_MAGIC: Buffer = Buffer.from([0x6b, 0x38, 0x73, 0x00]);

/** What an envelope carries. */
export interface Envelope {
  readonly apiVersion: string;
  readonly kind: string;
  /** The object's message, encoded. */
  readonly raw: Uint8Array;
  /** Unused by Kubernetes ('' in every envelope it writes). */
  readonly contentEncoding: string;
  /** Unused by Kubernetes ('' in every envelope it writes). */
  readonly contentType: string;
}

/**
 * Opens an envelope. Throws ApiError BadRequest, with kube-apiserver's messages, when the bytes
 * lack the magic prefix, hold nothing after it, or are not a runtime.Unknown.
 */
export function openEnvelope(bytes: Uint8Array): Envelope {
  if (bytes.length < PROTOBUF_MAGIC.length || !PROTOBUF_MAGIC.equals(bytes.subarray(0, PROTOBUF_MAGIC.length))) {
    throw ApiError.badRequest('provided data does not appear to be a protobuf message, expected prefix [107 56 115 0]');
  }
  if (bytes.length === PROTOBUF_MAGIC.length) throw ApiError.badRequest('empty body');
  let unknown: { typeMeta?: { apiVersion?: string; kind?: string }; raw?: Uint8Array; contentEncoding?: string; contentType?: string };
  try {
    unknown = protobufSchema().unknown.decode(bytes.subarray(PROTOBUF_MAGIC.length)) as typeof unknown;
  } catch (err) {
    throw new ApiError('BadRequest', `the body of the request could not be decoded as protobuf: ${(err as Error).message}`, { cause: err });
  }
  return {
    apiVersion: unknown.typeMeta?.apiVersion ?? '',
    kind: unknown.typeMeta?.kind ?? '',
    raw: unknown.raw ?? new Uint8Array(0),
    contentEncoding: unknown.contentEncoding ?? '',
    contentType: unknown.contentType ?? '',
  };
}

/** The envelope of an encoded object of `apiVersion` + `kind`: the magic prefix, then runtime.Unknown. */
export function sealEnvelope(apiVersion: string, kind: string, raw: Uint8Array): Buffer {
  const unknown = protobufSchema().unknown.encode({ typeMeta: { apiVersion, kind }, raw }).finish();
  return Buffer.concat([PROTOBUF_MAGIC, unknown], PROTOBUF_MAGIC.length + unknown.length);
}
