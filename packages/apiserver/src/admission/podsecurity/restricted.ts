/**
 * The restricted Pod Security Standard: the checks Kubernetes 1.32's policy package adds at level
 * restricted (on top of the baseline checks they do not override), with their IDs, versions,
 * reasons and details.
 */
import { validSeccompType } from './baseline.js';
import type { Check, CheckFn } from './check.js';
import { containers, containersPhrase, isWindows, joinQuote, list, pluralize, podSecurityContext, record, sortedSet, text } from './podspec.js';

/** The inline volume types a restricted pod may use. */
export const RESTRICTED_VOLUME_TYPES: ReadonlySet<string> = new Set(['configMap', 'csi', 'downwardAPI', 'emptyDir', 'ephemeral', 'persistentVolumeClaim', 'projected', 'secret']);

/** The other volume sources, in the order Kubernetes names the first one a volume sets. */
const OTHER_VOLUME_TYPES = [
  'hostPath', 'gcePersistentDisk', 'awsElasticBlockStore', 'gitRepo', 'nfs', 'iscsi', 'glusterfs', 'rbd', 'flexVolume', 'cinder', 'cephfs', 'flocker', 'fc',
  'azureFile', 'vsphereVolume', 'quobyte', 'azureDisk', 'photonPersistentDisk', 'portworxVolume', 'scaleIO', 'storageos',
];

const set = (v: unknown) => v !== undefined && v !== null;

const restrictedVolumes: CheckFn = ({ spec }) => {
  const bad: string[] = [];
  const types: string[] = [];
  for (const item of list(spec['volumes'])) {
    const v = record(item);
    if (v === undefined) continue;
    if ([...RESTRICTED_VOLUME_TYPES].some((t) => set(v[t]))) continue;
    bad.push(text(v['name']));
    types.push(OTHER_VOLUME_TYPES.find((t) => set(v[t])) ?? 'unknown');
  }
  if (bad.length === 0) return undefined;
  const distinct = sortedSet(types);
  return {
    reason: 'restricted volume types',
    detail: `${pluralize('volume', 'volumes', bad.length)} ${joinQuote(bad)} ${pluralize('uses', 'use', bad.length)} ${pluralize('restricted volume type', 'restricted volume types', distinct.length)} ${joinQuote(distinct)}`,
  };
};

function allowPrivilegeEscalation(skipWindows: boolean): CheckFn {
  return ({ spec }) => {
    if (skipWindows && isWindows(spec)) return undefined;
    const bad = containers(spec).filter((c) => c.securityContext?.['allowPrivilegeEscalation'] !== false).map((c) => c.name);
    return bad.length === 0 ? undefined : { reason: 'allowPrivilegeEscalation != false', detail: `${containersPhrase(bad)} must set securityContext.allowPrivilegeEscalation=false` };
  };
}

const runAsNonRoot: CheckFn = ({ spec }) => {
  const setters: string[] = [];
  let podNonRoot = false;
  const podValue = podSecurityContext(spec)?.['runAsNonRoot'];
  if (podValue === false) setters.push('pod');
  else if (podValue === true) podNonRoot = true;
  const explicit: string[] = [];
  const implicit: string[] = [];
  for (const c of containers(spec)) {
    const v = c.securityContext?.['runAsNonRoot'];
    if (typeof v === 'boolean') {
      if (!v) explicit.push(c.name);
    } else if (!podNonRoot) {
      implicit.push(c.name);
    }
  }
  if (explicit.length > 0) setters.push(containersPhrase(explicit));
  if (setters.length > 0) return { reason: 'runAsNonRoot != true', detail: `${setters.join(' and ')} must not set securityContext.runAsNonRoot=false` };
  if (implicit.length > 0) return { reason: 'runAsNonRoot != true', detail: `pod or ${containersPhrase(implicit)} must set securityContext.runAsNonRoot=true` };
  return undefined;
};

const runAsUser: CheckFn = ({ spec }) => {
  const setters: string[] = [];
  if (podSecurityContext(spec)?.['runAsUser'] === 0) setters.push('pod');
  const bad = containers(spec).filter((c) => c.securityContext?.['runAsUser'] === 0).map((c) => c.name);
  if (bad.length > 0) setters.push(containersPhrase(bad));
  return setters.length === 0 ? undefined : { reason: 'runAsUser=0', detail: `${setters.join(' and ')} must not set runAsUser=0` };
};

function seccompRestricted(skipWindows: boolean): CheckFn {
  return ({ spec }) => {
    if (skipWindows && isWindows(spec)) return undefined;
    const setters: string[] = [];
    const values: string[] = [];
    let podSet = false;
    const podProfile = record(podSecurityContext(spec)?.['seccompProfile']);
    if (podProfile) {
      if (!validSeccompType(podProfile['type'])) {
        setters.push('pod');
        values.push(text(podProfile['type']));
      } else {
        podSet = true;
      }
    }
    const explicit: string[] = [];
    const implicit: string[] = [];
    for (const c of containers(spec)) {
      const profile = record(c.securityContext?.['seccompProfile']);
      if (profile) {
        if (!validSeccompType(profile['type'])) {
          explicit.push(c.name);
          values.push(text(profile['type']));
        }
      } else if (!podSet) {
        implicit.push(c.name);
      }
    }
    if (explicit.length > 0) setters.push(containersPhrase(explicit));
    if (setters.length > 0) return { reason: 'seccompProfile', detail: `${setters.join(' and ')} must not set securityContext.seccompProfile.type to ${joinQuote(sortedSet(values))}` };
    if (implicit.length > 0) return { reason: 'seccompProfile', detail: `pod or ${containersPhrase(implicit)} must set securityContext.seccompProfile.type to "RuntimeDefault" or "Localhost"` };
    return undefined;
  };
}

function capabilitiesRestricted(skipWindows: boolean): CheckFn {
  return ({ spec }) => {
    if (skipWindows && isWindows(spec)) return undefined;
    const missingDrop: string[] = [];
    const adding: string[] = [];
    const caps: string[] = [];
    for (const c of containers(spec)) {
      const capabilities = record(c.securityContext?.['capabilities']);
      if (capabilities === undefined) {
        missingDrop.push(c.name);
        continue;
      }
      if (!list(capabilities['drop']).includes('ALL')) missingDrop.push(c.name);
      const extra = list(capabilities['add']).map(text).filter((cap) => cap !== 'NET_BIND_SERVICE');
      if (extra.length > 0) {
        adding.push(c.name);
        caps.push(...extra);
      }
    }
    const details: string[] = [];
    if (missingDrop.length > 0) details.push(`${containersPhrase(missingDrop)} must set securityContext.capabilities.drop=["ALL"]`);
    if (adding.length > 0) details.push(`${containersPhrase(adding)} must not include ${joinQuote(sortedSet(caps))} in securityContext.capabilities.add`);
    return details.length === 0 ? undefined : { reason: 'unrestricted capabilities', detail: details.join('; ') };
  };
}

/** Every restricted check. */
export const RESTRICTED_CHECKS: readonly Check[] = [
  {
    id: 'allowPrivilegeEscalation',
    level: 'restricted',
    versions: [
      { minVersion: 8, check: allowPrivilegeEscalation(false) },
      { minVersion: 25, check: allowPrivilegeEscalation(true) },
    ],
  },
  {
    id: 'capabilities_restricted',
    level: 'restricted',
    versions: [
      { minVersion: 22, check: capabilitiesRestricted(false), overrides: ['capabilities_baseline'] },
      { minVersion: 25, check: capabilitiesRestricted(true), overrides: ['capabilities_baseline'] },
    ],
  },
  { id: 'restrictedVolumes', level: 'restricted', versions: [{ minVersion: 0, check: restrictedVolumes, overrides: ['hostPathVolumes'] }] },
  { id: 'runAsNonRoot', level: 'restricted', versions: [{ minVersion: 0, check: runAsNonRoot }] },
  { id: 'runAsUser', level: 'restricted', versions: [{ minVersion: 23, check: runAsUser }] },
  {
    id: 'seccompProfile_restricted',
    level: 'restricted',
    versions: [
      { minVersion: 19, check: seccompRestricted(false), overrides: ['seccompProfile_baseline'] },
      { minVersion: 25, check: seccompRestricted(true), overrides: ['seccompProfile_baseline'] },
    ],
  },
];
