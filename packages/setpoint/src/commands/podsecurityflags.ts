/**
 * The PodSecurity flags of `setpoint server` and `setpoint up`:
 *
 * - `--admission-control-config-file FILE`: kube-apiserver's AdmissionConfiguration (its
 *   `PodSecurity` plugin's PodSecurityConfiguration: defaults and exemptions), or a bare
 *   PodSecurityConfiguration. It replaces Setpoint's defaults whole (exempt kube-system yourself).
 * - `--pod-security-default MODE=LEVEL[:VERSION],…`: the levels of namespaces without
 *   pod-security.kubernetes.io labels, over the file's defaults (`enforce=privileged` turns
 *   enforcement off).
 *
 * Without either: enforce=baseline (latest) outside the exempt namespace kube-system; audit and
 * warn privileged. So a pod that runs privileged, shares a host namespace or mounts a host path
 * or runs as root — `runAsUser: 0`, which baseline refuses here because root in a pod is the
 * host's root on the process runtime (`rootIsHostRoot`) — (everything that owns the host on the
 * process runtime) needs a namespace labelled
 * `pod-security.kubernetes.io/enforce=privileged`, or kube-system.
 */
import { resolve } from 'node:path';
import type { Command } from 'commander';
import { loadAdmissionControlConfig, parsePodSecurityDefaults, PRIVILEGED_POLICY, type PodSecurityConfig } from '@setpoint/apiserver';

/** The flags as commander gives them. */
export interface PodSecurityFlags {
  admissionControlConfigFile?: string;
  podSecurityDefault?: string;
}

/** What the server enforces when no flag says otherwise. */
export const DEFAULT_POD_SECURITY = 'enforce=baseline';
/** The namespaces exempt when no configuration file says otherwise. */
export const DEFAULT_EXEMPT_NAMESPACES: readonly string[] = ['kube-system'];

export function addPodSecurityFlags(cmd: Command): Command {
  return cmd
    .option('--admission-control-config-file <file>', 'an AdmissionConfiguration whose PodSecurity plugin configuration (defaults, exemptions) replaces the built-in one')
    .option('--pod-security-default <modes>', `PodSecurity levels of namespaces without pod-security.kubernetes.io labels, e.g. enforce=baseline,warn=restricted (default ${DEFAULT_POD_SECURITY}; kube-system exempt)`);
}

/** The ApiServer's PodSecurity configuration the flags ask for; throws an Error naming the flag. */
export function podSecurityOptions(flags: PodSecurityFlags): PodSecurityConfig {
  let base: PodSecurityConfig = { defaults: PRIVILEGED_POLICY, exemptions: { namespaces: DEFAULT_EXEMPT_NAMESPACES } };
  if (flags.admissionControlConfigFile !== undefined) {
    try {
      base = loadAdmissionControlConfig(resolve(flags.admissionControlConfigFile)) ?? { defaults: PRIVILEGED_POLICY };
    } catch (err) {
      throw new Error(`--admission-control-config-file: ${(err as Error).message}`, { cause: err });
    }
  }
  // The nodes of setpoint up and server run pods as host processes: root in a pod is the host's.
  base = { ...base, rootIsHostRoot: true };
  const modes = flags.podSecurityDefault ?? (flags.admissionControlConfigFile === undefined ? DEFAULT_POD_SECURITY : undefined);
  if (modes === undefined) return base;
  try {
    return { ...base, defaults: parsePodSecurityDefaults(modes, base.defaults) };
  } catch (err) {
    throw new Error(`--pod-security-default: ${(err as Error).message}`, { cause: err });
  }
}
