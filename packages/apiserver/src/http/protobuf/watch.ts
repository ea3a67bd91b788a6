/**
 * Watch streams for protobuf clients, framed as kube-apiserver frames them: each event is a 4-byte
 * big-endian length, then a meta.k8s.io/v1 WatchEvent (without envelope) whose `object.raw` is the
 * object in its envelope.
 */
import { ApiError } from '@setpoint/api';
import { encodeObject } from './codec.js';
import { protobufSchema } from './schema.js';

/** The Content-Type of a protobuf watch stream. */
export const PROTOBUF_WATCH_CONTENT_TYPE = 'application/vnd.kubernetes.protobuf;stream=watch';

/** One watch event: ADDED, MODIFIED, DELETED, BOOKMARK or ERROR (with a Status), and its object. */
export interface WatchEventLike {
  readonly type: string;
  readonly object: unknown;
}

const frames = new WeakMap<WatchEventLike, Buffer>();

/**
 * The frame of one watch event. The frame of an event object is encoded once and shared by every
 * watcher that sends it. An object that cannot be encoded (no protobuf message, a field of the
 * wrong JSON type) is sent as an ERROR event carrying an InternalError Status, which clients answer
 * by watching again.
 */
export function watchEventFrame(event: WatchEventLike): Buffer {
  let frame = frames.get(event);
  if (frame === undefined) {
    try {
      frame = encodeFrame(event);
    } catch (err) {
      frame = encodeFrame({ type: 'ERROR', object: ApiError.internal(err).toStatus() });
    }
    frames.set(event, frame);
  }
  return frame;
}

function encodeFrame(event: WatchEventLike): Buffer {
  const object = encodeObject(event.object);
  if (object === undefined) {
    const { apiVersion, kind } = (event.object ?? {}) as { apiVersion?: unknown; kind?: unknown };
    throw new TypeError(`a watch event's object (${String(apiVersion)}, Kind=${String(kind)}) has no protobuf encoding`);
  }
  const message = protobufSchema().watchEvent.encode({ type: event.type, object: { raw: object } }).finish();
  const frame = Buffer.allocUnsafe(4 + message.length);
  frame.writeUInt32BE(message.length, 0);
  frame.set(message, 4);
  return frame;
}
