/**
 * The protobuf schema of the built-in kinds: the message definitions in defs/, parsed on first use
 * into one protobufjs Root, and the table from apiVersion + kind to the message of that kind.
 *
 * The definitions are `.proto` text with Kubernetes' package, message and field names and numbers.
 * Two field options are Setpoint's own and steer only the JSON side of the conversion (convert.ts):
 * - `(keep) = true` on a scalar: a zero value on the wire stays in JSON. Kubernetes' Go types write
 *   every non-pointer scalar, zero or not, and their JSON leaves out the zeros of `omitempty`
 *   fields; pointer fields and fields without `omitempty` keep them (`replicas: 0`,
 *   `ready: false`). On a list's `items`: always an array, `[]` when empty.
 * - `(inline) = true` on a message field: in JSON its fields are the parent's (Go's
 *   `json:",inline"`: Volume.volumeSource, Probe.handler, EphemeralContainer's common part,
 *   the LocalObjectReference inside key selectors and volume sources).
 */
import protobuf from 'protobufjs';
import { appsProto } from './defs/apps.js';
import { authorizationProto } from './defs/authorization.js';
import { autoscalingProto } from './defs/autoscaling.js';
import { coordinationProto } from './defs/coordination.js';
import { corePodProto } from './defs/core-pod.js';
import { coreVolumeProto } from './defs/core-volume.js';
import { coreProto } from './defs/core.js';
import { intstrProto, metaV1Proto, resourceProto, runtimeProto } from './defs/meta.js';
import { rbacProto } from './defs/rbac.js';

export type MessageType = protobuf.Type;

const META_V1 = 'k8s.io.apimachinery.pkg.apis.meta.v1';

/** The kinds with a protobuf message, by apiVersion, and the package that holds their messages. */
const KINDS: ReadonlyArray<{ readonly apiVersion: string; readonly pkg: string; readonly kinds: readonly string[] }> = [
  {
    apiVersion: 'v1',
    pkg: 'k8s.io.api.core.v1',
    kinds: ['Namespace', 'ConfigMap', 'Secret', 'Event', 'ServiceAccount', 'Node', 'Pod'].flatMap((k) => [k, `${k}List`]).concat('Binding'),
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
 * The schema, parsed on the first call (a few milliseconds) and shared afterwards. Throws only if
 * the definitions in defs/ are malformed, which the tests rule out.
 */
export function protobufSchema(): ProtobufSchema {
  schema ??= parseSchema();
  return schema;
}

function parseSchema(): ProtobufSchema {
  const root = new protobuf.Root();
  for (const source of [runtimeProto, intstrProto, resourceProto, metaV1Proto, coreProto, corePodProto, coreVolumeProto, appsProto, autoscalingProto, coordinationProto, rbacProto, authorizationProto]) {
    protobuf.parse(source, root, { keepCase: true });
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
