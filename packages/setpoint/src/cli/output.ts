/**
 * Objects as text, the way kubectl prints them: `-o yaml` (keys sorted, sequences not indented,
 * strings a YAML 1.1 reader would misread quoted), `-o json` (keys sorted, four spaces), `-o name`
 * (deployment.apps/web), and a kind "List" around several objects.
 */
import { stringify } from 'yaml';
import type { KubeObject } from '@setpoint/api';

/** The output formats of get. */
export type OutputFormat = 'table' | 'wide' | 'yaml' | 'json' | 'name';

/** `-o` values; throws Error naming the flag for anything else. */
export function parseOutputFormat(value: string | undefined): OutputFormat {
  if (value === undefined || value === '') return 'table';
  if (value === 'wide' || value === 'yaml' || value === 'json' || value === 'name') return value;
  throw new Error(`unable to match a printer suitable for the output format "${value}", allowed formats are: json, name, wide, yaml`);
}

/** A copy of `value` whose object keys are sorted (as Go prints maps). */
export function sortKeys(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(sortKeys);
  if (value !== null && typeof value === 'object') {
    const out: Record<string, unknown> = {};
    for (const key of Object.keys(value).sort()) out[key] = sortKeys((value as Record<string, unknown>)[key]);
    return out;
  }
  return value;
}

/** One YAML document (ending with a newline). */
export function toYaml(value: unknown): string {
  return stringify(sortKeys(value), { version: '1.1', indentSeq: false, lineWidth: 0 });
}

/** Indented JSON, keys sorted, ending with a newline. */
export function toJson(value: unknown): string {
  return JSON.stringify(sortKeys(value), null, 4) + '\n';
}

/** What kubectl prints for several objects: a v1 List. */
export function asList(items: readonly KubeObject[]): KubeObject {
  return { apiVersion: 'v1', kind: 'List', metadata: { resourceVersion: '' }, items } as unknown as KubeObject;
}
