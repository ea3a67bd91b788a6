/**
 * The protobuf schema of the built-in kinds: the message descriptors generated from Kubernetes
 * 1.32's published definitions (generated/messages.ts, by `npm run gen:api` from
 * data/kubernetes-v1.32), built on first use into one protobufjs Root; a kind's message is the one
 * of its name in its group version's package.
 *
 * Package, message and field names and numbers are Kubernetes'. Two field flags are Setpoint's
 * own and steer only the JSON side of the conversion (convert.ts); the generator derives them from
 * the Go struct tags of each field (data/kubernetes-v1.32/gofields.json):
 * - keep ("k"): a zero value on the wire stays in JSON. Kubernetes' Go types write every
 *   non-pointer scalar, zero or not, and their JSON leaves out the zeros of `omitempty` fields;
 *   pointer fields and fields without `omitempty` keep them (`replicas: 0`, `ready: false`). On a
 *   repeated field without `omitempty` (a list's `items`): always an array, `[]` when empty.
 * - inline ("i"): in JSON the message field's fields are the parent's (Go's `json:",inline"`:
 *   Volume.volumeSource, Probe.handler, EphemeralContainer's common part, the
 *   LocalObjectReference inside key selectors and volume sources).
 */
import protobuf from 'protobufjs';
import { messages, packages } from './generated/messages.js';

/**
 * A message's fields as the generator writes them: [name, number, type, flags?] — type a scalar
 * or a message's full name (of a map: its values' type; keys are strings); flags: "r" repeated,
 * "m" map, "k" keep, "i" inline.
 */
export type MessageFields = ReadonlyArray<readonly [name: string, id: number, type: string, flags?: string]>;

export type MessageType = protobuf.Type;

const META_V1 = 'k8s.io.apimachinery.pkg.apis.meta.v1';

/**
 * meta.k8s.io/v1 kinds that every group version carries (as Kubernetes' AddToGroupVersion
 * registers them): a Status or DeleteOptions is read whatever apiVersion it names.
 */
export const META_KINDS: ReadonlySet<string> = new Set(['Status', 'DeleteOptions']);

/**
 * The full name of the message of `apiVersion` + `kind` (PACKAGE.KIND in the group version's
 * package), or undefined when it has none: a custom resource, an unserved group version.
 */
function messageName(apiVersion: string, kind: string): string | undefined {
  if (META_KINDS.has(kind)) return `${META_V1}.${kind}`;
  const pkg = Object.hasOwn(packages, apiVersion) ? packages[apiVersion] : undefined;
  const name = `${pkg}.${kind}`;
  return pkg !== undefined && Object.hasOwn(messages, name) ? name : undefined;
}

/**
 * Which kinds a server takes in protobuf request bodies (apiVersion, kind): those its resources
 * declare (ResourceDef.protobuf; the Registry answers it). Status and DeleteOptions always.
 */
export type ProtobufKinds = (apiVersion: string, kind: string) => boolean;

/**
 * Whether objects of `apiVersion` + `kind` have a protobuf message in Kubernetes' published
 * definitions (without parsing the schema). Whether a resource is served in protobuf is its
 * ResourceDef's `protobuf`.
 */
export function hasProtobufMessage(apiVersion: string, kind: string): boolean {
  return messageName(apiVersion, kind) !== undefined;
}

/** The parsed schema: the envelope's messages and the message of each kind. */
export interface ProtobufSchema {
  /** runtime.Unknown, the envelope after the magic prefix. */
  readonly unknown: MessageType;
  /** meta.k8s.io/v1 WatchEvent, one frame of a protobuf watch. */
  readonly watchEvent: MessageType;
  /** The message of `apiVersion` + `kind`, or undefined when the kind has none. */
  messageFor(apiVersion: string, kind: string): MessageType | undefined;
}

let schema: ProtobufSchema | undefined;

/**
 * The schema, built on the first call and shared afterwards: the envelope's and the meta kinds'
 * messages, and each kind's (with what it reaches) the first time it is asked for, not all of
 * generated/. Throws only if the generated descriptors are malformed, which the tests rule out.
 */
export function protobufSchema(): ProtobufSchema {
  schema ??= parseSchema();
  return schema;
}

/** The messages `roots` refer to, directly or through their fields, with themselves. */
function reachable(roots: Iterable<string>): Set<string> {
  const seen = new Set<string>();
  const pending = [...roots];
  for (let name = pending.pop(); name !== undefined; name = pending.pop()) {
    if (seen.has(name)) continue;
    seen.add(name);
    for (const [, , valueType] of messages[name] ?? []) if (valueType.includes('.') && !seen.has(valueType)) pending.push(valueType);
  }
  return seen;
}

function parseSchema(): ProtobufSchema {
  const root = new protobuf.Root();
  const defined = new Set<string>();
  /** Defines `roots` and every message they reach that is not defined yet, and resolves them. */
  const define = (roots: Iterable<string>) => {
    const needed = [...reachable(roots)].filter((name) => !defined.has(name));
    for (const fullName of needed) {
      const fields = messages[fullName];
      if (fields === undefined) throw new Error(`no protobuf message ${fullName} in generated/messages.ts`);
      const dot = fullName.lastIndexOf('.');
      const type = new protobuf.Type(fullName.slice(dot + 1));
      for (const [name, id, valueType, flags = ''] of fields) {
        // A message type as an absolute reference (leading dot), so that resolving does not look in
        // the referring package first.
        const typeName = valueType.includes('.') ? `.${valueType}` : valueType;
        const options: Record<string, boolean> = {};
        if (flags.includes('k')) options['(keep)'] = true;
        if (flags.includes('i')) options['(inline)'] = true;
        type.add(
          flags.includes('m')
            ? new protobuf.MapField(name, id, 'string', typeName, options)
            : new protobuf.Field(name, id, typeName, flags.includes('r') ? 'repeated' : 'optional', undefined, options),
        );
      }
      root.define(fullName.slice(0, dot)).add(type);
      defined.add(fullName);
    }
    if (needed.length > 0) root.resolveAll();
  };
  define(['k8s.io.apimachinery.pkg.runtime.Unknown', `${META_V1}.WatchEvent`, ...[...META_KINDS].map((kind) => `${META_V1}.${kind}`)]);
  const types = new Map<string, MessageType>();
  return {
    unknown: root.lookupType('k8s.io.apimachinery.pkg.runtime.Unknown'),
    watchEvent: root.lookupType(`${META_V1}.WatchEvent`),
    messageFor(apiVersion, kind) {
      const name = messageName(apiVersion, kind);
      if (name === undefined) return undefined;
      let type = types.get(name);
      if (type === undefined) {
        define([name]);
        type = root.lookupType(name);
        types.set(name, type);
      }
      return type;
    },
  };
}
