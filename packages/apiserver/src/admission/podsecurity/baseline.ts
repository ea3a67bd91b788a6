/**
 * The baseline Pod Security Standard: the checks of Kubernetes 1.32's policy package at level
 * baseline, with their IDs, versions, reasons and details (the facts of
 * k8s.io/pod-security-admission/policy/check_*.go).
 */
import type { Check, CheckFn, Violation } from './check.js';
import { annotations, containers, containersPhrase, joinQuote, list, pluralize, podSecurityContext, record, sortedSet, text, type Json } from './podspec.js';

/** Capabilities a baseline container may add (the container runtimes' default set). */
export const BASELINE_CAPABILITIES: ReadonlySet<string> = new Set([
  'AUDIT_WRITE', 'CHOWN', 'DAC_OVERRIDE', 'FOWNER', 'FSETID', 'KILL', 'MKNOD', 'NET_BIND_SERVICE', 'SETFCAP', 'SETGID', 'SETPCAP', 'SETUID', 'SYS_CHROOT',
]);

const SYSCTLS_1_0 = ['kernel.shm_rmid_forced', 'net.ipv4.ip_local_port_range', 'net.ipv4.tcp_syncookies', 'net.ipv4.ping_group_range', 'net.ipv4.ip_unprivileged_port_start'];
const SYSCTLS_1_27 = [...SYSCTLS_1_0, 'net.ipv4.ip_local_reserved_ports'];
const SYSCTLS_1_29 = [...SYSCTLS_1_27, 'net.ipv4.tcp_keepalive_time', 'net.ipv4.tcp_fin_timeout', 'net.ipv4.tcp_keepalive_intvl', 'net.ipv4.tcp_keepalive_probes'];
const SYSCTLS_1_32 = [...SYSCTLS_1_29, 'net.ipv4.tcp_rmem', 'net.ipv4.tcp_wmem'];

const SELINUX_TYPES_1_0 = ['', 'container_t', 'container_init_t', 'container_kvm_t'];
const SELINUX_TYPES_1_31 = [...SELINUX_TYPES_1_0, 'container_engine_t'];

const APPARMOR_ANNOTATION_PREFIX = 'container.apparmor.security.beta.kubernetes.io/';
export const SECCOMP_POD_ANNOTATION = 'seccomp.security.alpha.kubernetes.io/pod';
export const SECCOMP_CONTAINER_ANNOTATION_PREFIX = 'container.seccomp.security.alpha.kubernetes.io/';

function truthy(v: unknown): boolean {
  return v === true;
}

const windowsHostProcess: CheckFn = ({ spec }) => {
  const setters: string[] = [];
  if (truthy(record(podSecurityContext(spec)?.['windowsOptions'])?.['hostProcess'])) setters.push('pod');
  const bad = containers(spec).filter((c) => truthy(record(c.securityContext?.['windowsOptions'])?.['hostProcess'])).map((c) => c.name);
  if (bad.length > 0) setters.push(containersPhrase(bad));
  if (setters.length === 0) return undefined;
  return { reason: 'hostProcess', detail: `${setters.join(' and ')} must not set securityContext.windowsOptions.hostProcess=true` };
};

const hostNamespaces: CheckFn = ({ spec }) => {
  const set = (['hostNetwork', 'hostPID', 'hostIPC'] as const).filter((f) => truthy(spec[f])).map((f) => `${f}=true`);
  return set.length === 0 ? undefined : { reason: 'host namespaces', detail: set.join(', ') };
};

const privileged: CheckFn = ({ spec }) => {
  const bad = containers(spec).filter((c) => truthy(c.securityContext?.['privileged'])).map((c) => c.name);
  return bad.length === 0 ? undefined : { reason: 'privileged', detail: `${containersPhrase(bad)} must not set securityContext.privileged=true` };
};

const capabilitiesBaseline: CheckFn = ({ spec }) => {
  const bad: string[] = [];
  const caps: string[] = [];
  for (const c of containers(spec)) {
    const added = list(record(c.securityContext?.['capabilities'])?.['add']).map(text);
    const extra = added.filter((cap) => !BASELINE_CAPABILITIES.has(cap));
    if (extra.length > 0) {
      bad.push(c.name);
      caps.push(...extra);
    }
  }
  if (bad.length === 0) return undefined;
  return { reason: 'non-default capabilities', detail: `${containersPhrase(bad)} must not include ${joinQuote(sortedSet(caps))} in securityContext.capabilities.add` };
};

const hostPathVolumes: CheckFn = ({ spec }) => {
  const bad = list(spec['volumes']).map(record).filter((v): v is Json => v !== undefined && v['hostPath'] !== undefined && v['hostPath'] !== null).map((v) => text(v['name']));
  return bad.length === 0 ? undefined : { reason: 'hostPath volumes', detail: `${pluralize('volume', 'volumes', bad.length)} ${joinQuote(bad)}` };
};

const hostPorts: CheckFn = ({ spec }) => {
  const bad: string[] = [];
  const ports: string[] = [];
  for (const c of containers(spec)) {
    const used = list(c.raw['ports']).map((p) => record(p)?.['hostPort']).filter((p): p is number => typeof p === 'number' && p !== 0);
    if (used.length > 0) {
      bad.push(c.name);
      ports.push(...used.map(String));
    }
  }
  if (bad.length === 0) return undefined;
  const distinct = sortedSet(ports);
  return {
    reason: 'hostPort',
    detail: `${containersPhrase(bad)} ${pluralize('uses', 'use', bad.length)} ${pluralize('hostPort', 'hostPorts', distinct.length)} ${distinct.join(', ')}`,
  };
};

const appArmorProfile: CheckFn = ({ metadata, spec }) => {
  const allowedType = (t: unknown) => t === 'RuntimeDefault' || t === 'Localhost';
  const setters: string[] = [];
  const values: string[] = [];
  const podProfile = record(podSecurityContext(spec)?.['appArmorProfile']);
  if (podProfile && !allowedType(podProfile['type'])) {
    setters.push('pod');
    values.push(text(podProfile['type']));
  }
  const bad: string[] = [];
  for (const c of containers(spec)) {
    const profile = record(c.securityContext?.['appArmorProfile']);
    if (profile && !allowedType(profile['type'])) {
      bad.push(c.name);
      values.push(text(profile['type']));
    }
  }
  if (bad.length > 0) setters.push(containersPhrase(bad));
  const badValues = sortedSet(values);
  const forbidden: string[] = [];
  for (const [k, v] of annotations(metadata)) {
    if (k.startsWith(APPARMOR_ANNOTATION_PREFIX) && !(v === '' || v === 'runtime/default' || v.startsWith('localhost/'))) forbidden.push(`${k}=${JSON.stringify(v)}`);
  }
  forbidden.sort();
  if (forbidden.length > 0) setters.push(pluralize('annotation', 'annotations', forbidden.length));
  if (setters.length === 0) return undefined;
  const all = [...badValues, ...forbidden];
  return {
    reason: pluralize('forbidden AppArmor profile', 'forbidden AppArmor profiles', all.length),
    detail: `${setters.join(' and ')} must not set AppArmor profile type to ${joinQuote(all)}`,
  };
};

function seLinuxOptions(allowedTypes: readonly string[]): CheckFn {
  const allowed = new Set(allowedTypes);
  return ({ spec }) => {
    const badTypes: string[] = [];
    let setUser = false;
    let setRole = false;
    const valid = (o: Json): boolean => {
      let ok = true;
      const type = text(o['type']);
      if (!allowed.has(type)) {
        ok = false;
        badTypes.push(type);
      }
      if (text(o['user']) !== '') {
        ok = false;
        setUser = true;
      }
      if (text(o['role']) !== '') {
        ok = false;
        setRole = true;
      }
      return ok;
    };
    const setters: string[] = [];
    const podOptions = record(podSecurityContext(spec)?.['seLinuxOptions']);
    if (podOptions && !valid(podOptions)) setters.push('pod');
    const bad = containers(spec).filter((c) => {
      const o = record(c.securityContext?.['seLinuxOptions']);
      return o !== undefined && !valid(o);
    });
    if (bad.length > 0) setters.push(containersPhrase(bad.map((c) => c.name)));
    if (setters.length === 0) return undefined;
    const data: string[] = [];
    const types = sortedSet(badTypes);
    if (types.length > 0) data.push(`${pluralize('type', 'types', types.length)} ${joinQuote(types)}`);
    if (setUser) data.push('user may not be set');
    if (setRole) data.push('role may not be set');
    return { reason: 'seLinuxOptions', detail: `${setters.join(' and ')} set forbidden securityContext.seLinuxOptions: ${data.join('; ')}` };
  };
}

const procMount: CheckFn = ({ spec }) => {
  const bad: string[] = [];
  const types: string[] = [];
  for (const c of containers(spec)) {
    const pm = c.securityContext?.['procMount'];
    if (pm === undefined || pm === null || pm === 'Default') continue;
    bad.push(c.name);
    types.push(text(pm));
  }
  if (bad.length === 0) return undefined;
  return { reason: 'procMount', detail: `${containersPhrase(bad)} must not set securityContext.procMount to ${joinQuote(sortedSet(types))}` };
};

/** RuntimeDefault and Localhost: the seccomp profile types baseline and restricted allow. */
export function validSeccompType(t: unknown): boolean {
  return t === 'RuntimeDefault' || t === 'Localhost';
}

/** Before 1.19 seccomp was set by annotations. */
const seccompBaselineAnnotations: CheckFn = ({ metadata, spec }) => {
  const valid = (v: string) => v === 'runtime/default' || v === 'docker/default' || v.startsWith('localhost/');
  const a = annotations(metadata);
  const forbidden: string[] = [];
  const pod = a.get(SECCOMP_POD_ANNOTATION);
  if (pod !== undefined && !valid(pod)) forbidden.push(`${SECCOMP_POD_ANNOTATION}=${JSON.stringify(pod)}`);
  for (const c of containers(spec)) {
    const key = SECCOMP_CONTAINER_ANNOTATION_PREFIX + c.name;
    const v = a.get(key);
    if (v !== undefined && !valid(v)) forbidden.push(`${key}=${JSON.stringify(v)}`);
  }
  const distinct = sortedSet(forbidden);
  if (distinct.length === 0) return undefined;
  return { reason: 'seccompProfile', detail: `forbidden ${pluralize('annotation', 'annotations', distinct.length)} ${distinct.join(', ')}` };
};

const seccompBaseline: CheckFn = ({ spec }) => {
  const setters: string[] = [];
  const values: string[] = [];
  const podProfile = record(podSecurityContext(spec)?.['seccompProfile']);
  if (podProfile && !validSeccompType(podProfile['type'])) {
    setters.push('pod');
    values.push(text(podProfile['type']));
  }
  const bad: string[] = [];
  for (const c of containers(spec)) {
    const profile = record(c.securityContext?.['seccompProfile']);
    if (profile && !validSeccompType(profile['type'])) {
      bad.push(c.name);
      values.push(text(profile['type']));
    }
  }
  if (bad.length > 0) setters.push(containersPhrase(bad));
  if (setters.length === 0) return undefined;
  return { reason: 'seccompProfile', detail: `${setters.join(' and ')} must not set securityContext.seccompProfile.type to ${joinQuote(sortedSet(values))}` };
};

function sysctls(allowedNames: readonly string[]): CheckFn {
  const allowed = new Set(allowedNames);
  return ({ spec }): Violation | undefined => {
    const bad = list(podSecurityContext(spec)?.['sysctls'])
      .map((s) => text(record(s)?.['name']))
      .filter((name) => !allowed.has(name));
    return bad.length === 0 ? undefined : { reason: 'forbidden sysctls', detail: bad.join(', ') };
  };
}

const one = (check: CheckFn) => [{ minVersion: 0, check }];

/** Every baseline check. */
export const BASELINE_CHECKS: readonly Check[] = [
  { id: 'appArmorProfile', level: 'baseline', versions: one(appArmorProfile) },
  { id: 'capabilities_baseline', level: 'baseline', versions: one(capabilitiesBaseline) },
  { id: 'hostNamespaces', level: 'baseline', versions: one(hostNamespaces) },
  { id: 'hostPathVolumes', level: 'baseline', versions: one(hostPathVolumes) },
  { id: 'hostPorts', level: 'baseline', versions: one(hostPorts) },
  { id: 'privileged', level: 'baseline', versions: one(privileged) },
  { id: 'procMount', level: 'baseline', versions: one(procMount) },
  {
    id: 'seLinuxOptions',
    level: 'baseline',
    versions: [
      { minVersion: 0, check: seLinuxOptions(SELINUX_TYPES_1_0) },
      { minVersion: 31, check: seLinuxOptions(SELINUX_TYPES_1_31) },
    ],
  },
  {
    id: 'seccompProfile_baseline',
    level: 'baseline',
    versions: [
      { minVersion: 0, check: seccompBaselineAnnotations },
      { minVersion: 19, check: seccompBaseline },
    ],
  },
  {
    id: 'sysctls',
    level: 'baseline',
    versions: [
      { minVersion: 0, check: sysctls(SYSCTLS_1_0) },
      { minVersion: 27, check: sysctls(SYSCTLS_1_27) },
      { minVersion: 29, check: sysctls(SYSCTLS_1_29) },
      { minVersion: 32, check: sysctls(SYSCTLS_1_32) },
    ],
  },
  { id: 'windowsHostProcess', level: 'baseline', versions: one(windowsHostProcess) },
];
