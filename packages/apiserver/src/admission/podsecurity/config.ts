/**
 * Reading the PodSecurity configuration as kube-apiserver reads it: an AdmissionConfiguration
 * (apiserver.config.k8s.io/v1, --admission-control-config-file) whose plugin `PodSecurity` has a
 * PodSecurityConfiguration (pod-security.admission.config.k8s.io/v1, v1beta1 or v1alpha1) inline
 * under `configuration` or in the file named by `path`. A bare PodSecurityConfiguration is
 * accepted too. Every error throws an Error naming the file and the field.
 *
 * Also Setpoint's shortcut for the defaults: `enforce=baseline,warn=restricted:v1.30`.
 */
import { readFileSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { parse as parseYaml } from 'yaml';
import type { PodSecurityConfig } from './admission.js';
import { LATEST, MODES, parseLevel, parseVersion, PRIVILEGED_POLICY, type LevelVersion, type Mode, type Policy } from './levels.js';

const CONFIG_GROUP = 'pod-security.admission.config.k8s.io';
const CONFIG_VERSIONS = ['v1', 'v1beta1', 'v1alpha1'];

function record(v: unknown): Record<string, unknown> | undefined {
  return typeof v === 'object' && v !== null && !Array.isArray(v) ? (v as Record<string, unknown>) : undefined;
}

function stringList(v: unknown, field: string): string[] {
  if (v === undefined || v === null) return [];
  if (!Array.isArray(v) || v.some((x) => typeof x !== 'string' || x === '')) throw new Error(`${field}: must be a list of non-empty strings`);
  return v as string[];
}

/** A PodSecurityConfiguration object (already decoded) as the plugin's configuration. */
export function parsePodSecurityConfiguration(obj: unknown, source: string): PodSecurityConfig {
  const o = record(obj);
  if (o === undefined) throw new Error(`${source}: a PodSecurityConfiguration must be an object`);
  const apiVersion = o['apiVersion'];
  if (o['kind'] !== 'PodSecurityConfiguration' || typeof apiVersion !== 'string' || !CONFIG_VERSIONS.some((v) => apiVersion === `${CONFIG_GROUP}/${v}`)) {
    throw new Error(`${source}: expected kind PodSecurityConfiguration of ${CONFIG_VERSIONS.map((v) => `${CONFIG_GROUP}/${v}`).join(', ')}`);
  }
  const defaults = record(o['defaults']) ?? {};
  const policy: Record<Mode, LevelVersion> = { ...PRIVILEGED_POLICY };
  for (const mode of MODES) {
    const level = defaults[mode] ?? 'privileged';
    const version = defaults[`${mode}-version`] ?? 'latest';
    try {
      policy[mode] = { level: parseLevel(String(level)), version: LATEST };
    } catch (err) {
      throw new Error(`${source}: defaults.${mode}: Invalid value: ${JSON.stringify(level)}: ${(err as Error).message}`, { cause: err });
    }
    try {
      policy[mode] = { level: policy[mode].level, version: parseVersion(String(version)) };
    } catch (err) {
      throw new Error(`${source}: defaults.${mode}-version: Invalid value: ${JSON.stringify(version)}: ${(err as Error).message}`, { cause: err });
    }
  }
  const exemptions = record(o['exemptions']) ?? {};
  return {
    defaults: policy,
    exemptions: {
      usernames: stringList(exemptions['usernames'], `${source}: exemptions.usernames`),
      namespaces: stringList(exemptions['namespaces'], `${source}: exemptions.namespaces`),
      runtimeClasses: stringList(exemptions['runtimeClasses'], `${source}: exemptions.runtimeClasses`),
    },
  };
}

/**
 * The PodSecurity configuration of an admission configuration file (or of a bare
 * PodSecurityConfiguration file); undefined when the file configures no PodSecurity plugin.
 */
export function loadAdmissionControlConfig(file: string): PodSecurityConfig | undefined {
  const read = (path: string): unknown => {
    let raw: string;
    try {
      raw = readFileSync(path, 'utf8');
    } catch (err) {
      throw new Error(`cannot read ${path}: ${(err as Error).message}`, { cause: err });
    }
    try {
      return parseYaml(raw, { maxAliasCount: 100 });
    } catch (err) {
      throw new Error(`${path}: not YAML or JSON: ${(err as Error).message}`, { cause: err });
    }
  };
  const doc = record(read(file));
  if (doc?.['kind'] === 'PodSecurityConfiguration') return parsePodSecurityConfiguration(doc, file);
  if (doc?.['kind'] !== 'AdmissionConfiguration' || !/^apiserver\.(config\.)?k8s\.io\/v1(alpha1)?$/.test(String(doc['apiVersion']))) {
    throw new Error(`${file}: expected an AdmissionConfiguration (apiserver.config.k8s.io/v1) or a PodSecurityConfiguration`);
  }
  const plugins = doc['plugins'] ?? [];
  if (!Array.isArray(plugins)) throw new Error(`${file}: plugins: must be a list`);
  const plugin = plugins.map(record).find((p) => p?.['name'] === 'PodSecurity');
  if (plugin === undefined) return undefined;
  if (plugin['configuration'] !== undefined) return parsePodSecurityConfiguration(plugin['configuration'], `${file}: plugins[PodSecurity].configuration`);
  if (typeof plugin['path'] === 'string' && plugin['path'] !== '') {
    const path = resolve(dirname(file), plugin['path']);
    return parsePodSecurityConfiguration(read(path), path);
  }
  throw new Error(`${file}: plugins[PodSecurity]: needs a configuration or a path`);
}

/**
 * `mode=level[:version]` entries, comma-separated (`enforce=baseline,warn=restricted:v1.30`), over
 * `base`; throws an Error naming the bad entry.
 */
export function parsePodSecurityDefaults(textValue: string, base: Policy = PRIVILEGED_POLICY): Policy {
  const out: Record<Mode, LevelVersion> = { ...base };
  for (const entry of textValue.split(',').map((s) => s.trim()).filter((s) => s !== '')) {
    const m = /^(enforce|audit|warn)=([a-z]+)(?::(\S+))?$/.exec(entry);
    if (m === null) throw new Error(`"${entry}": expected MODE=LEVEL[:VERSION], MODE one of ${MODES.join(', ')}`);
    const mode = m[1] as Mode;
    try {
      out[mode] = { level: parseLevel(m[2]!), version: m[3] === undefined ? LATEST : parseVersion(m[3]) };
    } catch (err) {
      throw new Error(`"${entry}": ${(err as Error).message}`, { cause: err });
    }
  }
  return out;
}
