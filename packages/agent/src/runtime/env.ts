/**
 * A container's environment and command line, as the kubelet makes them (kubecontainer.MakeEnvironmentVariables
 * and ExpandContainerCommandAndArgs): `envFrom` first, then `env` in order, each value with `$(VAR)`
 * references to earlier variables expanded (`$$` is a literal `$`); command and args expanded the
 * same way. ConfigMap and Secret keys are read through the API when the container starts; the
 * downward API gives the pod's name, namespace, uid, labels, annotations, node name, service account
 * and IPs.
 *
 * Throws ContainerConfigError (reported as the container's CreateContainerConfigError) for a
 * missing ConfigMap, Secret or key that is not optional, and for sources this agent does not
 * support (resourceFieldRef, fileKeyRef): it refuses them rather than guessing.
 */
import { isApiError, type ConfigMap, type Container, type EnvVar, type Pod, type Secret } from '@setpoint/api';
import type { DeepReadonly } from '@setpoint/client';

/** A container whose configuration cannot be made (missing ConfigMap or key, unsupported source). */
export class ContainerConfigError extends Error {
  override readonly name = 'ContainerConfigError';
}

/** Reads ConfigMaps and Secrets (a Client's `configMaps()` and `secrets()` fit). */
export interface ConfigSource {
  configMap(namespace: string, name: string): Promise<ConfigMap | undefined>;
  secret(namespace: string, name: string): Promise<Secret | undefined>;
}

/** A ConfigSource over a client; NotFound reads as undefined. */
export function configSourceOf(client: {
  configMaps(): { get(name: string, o: { namespace: string }): Promise<ConfigMap> };
  secrets(): { get(name: string, o: { namespace: string }): Promise<Secret> };
}): ConfigSource {
  const orUndefined = async <T>(read: () => Promise<T>): Promise<T | undefined> => {
    try {
      return await read();
    } catch (err) {
      if (isApiError(err, 'NotFound')) return undefined;
      throw err;
    }
  };
  return {
    configMap: (namespace, name) => orUndefined(() => client.configMaps().get(name, { namespace })),
    secret: (namespace, name) => orUndefined(() => client.secrets().get(name, { namespace })),
  };
}

/** `$(NAME)` references expanded from `vars` (unknown ones are left as written); `$$` → `$`. */
export function expand(text: string, vars: Readonly<Record<string, string>>): string {
  return text.replace(/\$\$|\$\(([^)]*)\)/g, (match, name: string | undefined) => {
    if (match === '$$') return '$';
    return name !== undefined && Object.hasOwn(vars, name) ? (vars[name] as string) : match;
  });
}

/** The value of a downward API field path of the pod, or undefined for one not supported. */
export function podField(pod: DeepReadonly<Pod>, fieldPath: string, podIP: string, hostIP: string): string | undefined {
  const m = /^metadata\.(labels|annotations)\['(.+)'\]$/.exec(fieldPath);
  if (m !== null) return pod.metadata[m[1] as 'labels' | 'annotations']?.[m[2] as string] ?? '';
  switch (fieldPath) {
    case 'metadata.name':
      return pod.metadata.name ?? '';
    case 'metadata.namespace':
      return pod.metadata.namespace ?? '';
    case 'metadata.uid':
      return pod.metadata.uid ?? '';
    case 'spec.nodeName':
      return pod.spec?.nodeName ?? '';
    case 'spec.serviceAccountName':
      return pod.spec?.serviceAccountName ?? '';
    case 'status.podIP':
    case 'status.podIPs':
      return podIP;
    case 'status.hostIP':
    case 'status.hostIPs':
      return hostIP;
    default:
      return undefined;
  }
}

function decode(value: string | undefined): string | undefined {
  return value === undefined ? undefined : Buffer.from(value, 'base64').toString('utf8');
}

async function envVarValue(v: DeepReadonly<EnvVar>, pod: DeepReadonly<Pod>, source: ConfigSource, ips: { podIP: string; hostIP: string }): Promise<string | undefined> {
  const from = v.valueFrom;
  const namespace = pod.metadata.namespace ?? 'default';
  if (from?.fieldRef !== undefined) {
    const value = podField(pod, from.fieldRef.fieldPath, ips.podIP, ips.hostIP);
    if (value === undefined) throw new ContainerConfigError(`env ${v.name}: unsupported fieldRef ${from.fieldRef.fieldPath}`);
    return value;
  }
  if (from?.configMapKeyRef !== undefined) {
    const ref = from.configMapKeyRef;
    const cm = await source.configMap(namespace, ref.name ?? '');
    const value = cm?.data?.[ref.key] ?? decode(cm?.binaryData?.[ref.key]);
    if (value === undefined && ref.optional !== true) {
      throw new ContainerConfigError(cm === undefined ? `configmap "${ref.name ?? ''}" not found` : `couldn't find key ${ref.key} in ConfigMap ${namespace}/${ref.name ?? ''}`);
    }
    return value;
  }
  if (from?.secretKeyRef !== undefined) {
    const ref = from.secretKeyRef;
    const secret = await source.secret(namespace, ref.name ?? '');
    const value = decode(secret?.data?.[ref.key]);
    if (value === undefined && ref.optional !== true) {
      throw new ContainerConfigError(secret === undefined ? `secret "${ref.name ?? ''}" not found` : `couldn't find key ${ref.key} in Secret ${namespace}/${ref.name ?? ''}`);
    }
    return value;
  }
  // fileKeyRef is newer than Kubernetes 1.32's shape (a newer API server may send it).
  if (from?.resourceFieldRef !== undefined || (from as Readonly<Record<string, unknown>> | undefined)?.['fileKeyRef'] !== undefined) {
    throw new ContainerConfigError(`env ${v.name}: resourceFieldRef and fileKeyRef are not supported by this agent`);
  }
  return v.value ?? '';
}

/**
 * The variables the container's `envFrom` and `env` define (not the base environment), in the
 * kubelet's order and with its expansion rules (see the file comment).
 */
export async function containerEnv(container: DeepReadonly<Container>, pod: DeepReadonly<Pod>, source: ConfigSource, ips: { podIP: string; hostIP: string }): Promise<Record<string, string>> {
  const env: Record<string, string> = {};
  const namespace = pod.metadata.namespace ?? 'default';
  for (const from of container.envFrom ?? []) {
    const prefix = from.prefix ?? '';
    if (from.configMapRef !== undefined) {
      const cm = await source.configMap(namespace, from.configMapRef.name ?? '');
      if (cm === undefined && from.configMapRef.optional !== true) throw new ContainerConfigError(`configmap "${from.configMapRef.name ?? ''}" not found`);
      for (const [k, v] of Object.entries(cm?.data ?? {})) env[prefix + k] = v;
    }
    if (from.secretRef !== undefined) {
      const secret = await source.secret(namespace, from.secretRef.name ?? '');
      if (secret === undefined && from.secretRef.optional !== true) throw new ContainerConfigError(`secret "${from.secretRef.name ?? ''}" not found`);
      for (const [k, v] of Object.entries(secret?.data ?? {})) env[prefix + k] = decode(v) ?? '';
    }
  }
  for (const v of container.env ?? []) {
    const value = await envVarValue(v, pod, source, ips);
    if (value === undefined) continue; // an optional source that is missing
    env[v.name] = v.valueFrom === undefined ? expand(value, env) : value;
  }
  return env;
}

/** argv: command then args, each with `$(VAR)` expanded from `env`. Empty when neither is set. */
export function containerArgv(container: DeepReadonly<Container>, env: Readonly<Record<string, string>>): string[] {
  return [...(container.command ?? []), ...(container.args ?? [])].map((a) => expand(a, env));
}
