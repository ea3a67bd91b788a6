/**
 * Kubernetes' protobuf encoding (`application/vnd.kubernetes.protobuf`) of the built-in kinds:
 * request bodies, responses and watch streams. Custom resources have no protobuf encoding, as in
 * Kubernetes.
 */
export { PROTOBUF_MEDIA_TYPE, decodeObject as decodeProtobuf, encodeObject as encodeProtobuf } from './codec.js';
export { PROTOBUF_MAGIC, openEnvelope, sealEnvelope, type Envelope } from './envelope.js';
export { hasProtobufMessage, type ProtobufKinds } from './schema.js';
export { PROTOBUF_WATCH_CONTENT_TYPE, watchEventFrame, type WatchEventLike } from './watch.js';
