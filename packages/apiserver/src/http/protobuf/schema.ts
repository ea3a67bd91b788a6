/**
 * The protobuf schema of the built-in kinds: the message descriptors generated from Kubernetes
 * 1.32's published definitions (generated/messages.ts, by `npm run gen:api` from
 * data/kubernetes-v1.32), built on first use into one protobufjs Root, and the table from
 * apiVersion + kind to the message of that kind.
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
import { messages } from './generated/messages.js';

/**
 * A message's fields as the generator writes them: [name, number, type, flags?] — type a scalar
 * or a message's full name (of a map: its values' type; keys are strings); flags: "r" repeated,
 * "m" map, "k" keep, "i" inline.
 */
export type MessageFields = ReadonlyArray<readonly [name: string, id: number, type: string, flags?: string]>;

export type MessageType = protobuf.Type;

const META_V1 = 'k8s.io.apimachinery.pkg.apis.meta.v1';

/** The kinds with a protobuf message, by apiVersion, and the package that holds their messages. */
const KINDS: ReadonlyArray<{ readonly apiVersion: string; readonly pkg: string; readonly kinds: readonly string[] }> = [
  {
    apiVersion: 'v1',
    pkg: 'k8s.io.api.core.v1',
    kinds: ['Namespace', 'ConfigMap', 'Secret', 'Event', 'ServiceAccount', 'Node', 'Pod', 'PodTemplate'].flatMap((k) => [k, `${k}List`]).concat('Binding'),
  },
  { apiVersion: 'apps/v1', pkg: 'k8s.io.api.apps.v1', kinds: ['Deployment', 'DeploymentList', 'ReplicaSet', 'ReplicaSetList'] },
  { apiVersion: 'coordination.k8s.io/v1', pkg: 'k8s.io.api.coordination.v1', kinds: ['Lease', 'LeaseList'] },
  { apiVersion: 'autoscaling/v1', pkg: 'k8s.io.api.autoscaling.v1', kinds: ['Scale'] },
  {
    apiVersion: 'rbac.authorization.k8s.io/v1',
    pkg: 'k8s.io.api.rbac.v1',
    kinds: ['Role', 'ClusterRole', 'RoleBinding', 'ClusterRoleBinding'].flatMap((k) => [k, `${k}List`]),
  },
  {
    apiVersion: 'authorization.k8s.io/v1',
    pkg: 'k8s.io.api.authorization.v1',
    kinds: ['SelfSubjectAccessReview', 'SelfSubjectRulesReview', 'SubjectAccessReview', 'LocalSubjectAccessReview'],
  },
];

/**
 * meta.k8s.io/v1 kinds that every group version carries (as Kubernetes' AddToGroupVersion
 * registers them): a Status or DeleteOptions is read whatever apiVersion it names.
 */
const META_KINDS: ReadonlySet<string> = new Set(['Status', 'DeleteOptions']);

const messageNames = new Map<string, string>();
for (const { apiVersion, pkg, kinds } of KINDS) for (const kind of kinds) messageNames.set(`${apiVersion}/${kind}`, `${pkg}.${kind}`);

/** The full name of the message of `apiVersion` + `kind`, or undefined when it has none. */
function messageName(apiVersion: string, kind: string): string | undefined {
  if (META_KINDS.has(kind)) return `${META_V1}.${kind}`;
  return messageNames.get(`${apiVersion}/${kind}`);
}

/** Whether objects of `apiVersion` + `kind` have a protobuf message (without parsing the schema). */
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
 * The schema, built on the first call and shared afterwards: the messages the kinds of KINDS, the
 * envelope and the meta kinds reach, not all of generated/. Throws only if the generated
 * descriptors are malformed, which the tests rule out.
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
  const needed = reachable([
    'k8s.io.apimachinery.pkg.runtime.Unknown',
    `${META_V1}.WatchEvent`,
    ...[...META_KINDS].map((kind) => `${META_V1}.${kind}`),
    ...messageNames.values(),
  ]);
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
  }
  root.resolveAll();
  const types = new Map<string, MessageType>();
  return {
    unknown: root.lookupType('k8s.io.apimachinery.pkg.runtime.Unknown'),
    watchEvent: root.lookupType(`${META_V1}.WatchEvent`),
    messageFor(apiVersion, kind) {
      const name = messageName(apiVersion, kind);
      if (name === undefined) return undefined;
      let type = types.get(name);
      if (type === undefined) {
        type = root.lookupType(name);
        types.set(name, type);
      }
      return type;
    },
  };
}
