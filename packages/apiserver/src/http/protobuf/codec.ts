/**
 * Whole objects in Kubernetes' protobuf encoding (`application/vnd.kubernetes.protobuf`): an
 * envelope (envelope.ts) around the object's message (defs/), converted from and to the JSON
 * objects the server works on (convert.ts).
 */
import { ApiError } from '@setpoint/api';
import { jsonToMessage, messageToJson } from './convert.js';
import { openEnvelope, sealEnvelope } from './envelope.js';
import { META_KINDS, protobufSchema, type ProtobufKinds } from './schema.js';

/** The media type of Kubernetes' protobuf encoding. */
export const PROTOBUF_MEDIA_TYPE = 'application/vnd.kubernetes.protobuf';

/**
 * Decodes a protobuf body into a JSON object whose `kind` and `apiVersion` come from the envelope.
 * Throws ApiError BadRequest when the bytes are malformed or name no kind, and UnsupportedMediaType
 * with Kubernetes' message (the one it gives for custom resources, after which clients use JSON)
 * when the kind has no protobuf message, or `accepts` (the server's resources) does not take it.
 */
export function decodeObject(bytes: Uint8Array, accepts?: ProtobufKinds): Record<string, unknown> {
  const envelope = openEnvelope(bytes);
  if (envelope.kind === '') throw ApiError.badRequest(`Object 'Kind' is missing in the protobuf envelope (apiVersion ${JSON.stringify(envelope.apiVersion)})`);
  if (envelope.apiVersion === '') throw ApiError.badRequest(`Object 'apiVersion' is missing in the protobuf envelope (kind ${JSON.stringify(envelope.kind)})`);
  const taken = accepts === undefined || META_KINDS.has(envelope.kind) || accepts(envelope.apiVersion, envelope.kind);
  const type = taken ? protobufSchema().messageFor(envelope.apiVersion, envelope.kind) : undefined;
  if (type === undefined) throw ApiError.unsupportedMediaType(['application/json', 'application/yaml']);
  try {
    const message = type.decode(envelope.raw) as unknown as Record<string, unknown>;
    return { kind: envelope.kind, apiVersion: envelope.apiVersion, ...messageToJson(type, message) };
  } catch (err) {
    throw new ApiError('BadRequest', `the body of the request could not be decoded as protobuf ${envelope.kind}: ${(err as Error).message}`, { cause: err });
  }
}

/**
 * The protobuf encoding of a JSON object, or undefined when its apiVersion and kind have no
 * protobuf message here. Fields the message does not have are dropped. Throws TypeError when a
 * field's value has the wrong JSON type for its message (never for objects the server validated).
 */
export function encodeObject(obj: unknown): Buffer | undefined {
  if (typeof obj !== 'object' || obj === null) return undefined;
  const { apiVersion, kind } = obj as { apiVersion?: unknown; kind?: unknown };
  if (typeof apiVersion !== 'string' || typeof kind !== 'string') return undefined;
  const type = protobufSchema().messageFor(apiVersion, kind);
  if (type === undefined) return undefined;
  const raw = type.encode(jsonToMessage(type, obj as Record<string, unknown>)).finish();
  return sealEnvelope(apiVersion, kind, raw);
}
