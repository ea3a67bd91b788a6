/**
 * `metadata.managedFields` and the form server-side apply works on: one field set per manager,
 * where a manager is identified, as in Kubernetes, by its name, operation, subresource and — for
 * Update entries only — the API version it wrote with (so an applier keeps one entry across
 * versions, an updater one per version).
 */
import type { ManagedFieldsEntry } from '../meta/types.js';
import { goJson, readFieldsV1 } from './elements.js';
import { union, type FieldSet } from './fieldset.js';

export type Operation = 'Apply' | 'Update';

/** What one manager owns: the set, the version it is expressed in, whether it came from an apply. */
export interface VersionedSet {
  readonly set: FieldSet;
  readonly apiVersion: string;
  readonly applied: boolean;
  /** When the manager last changed the object (RFC 3339), if known. */
  readonly time?: string | undefined;
}

/** Manager identifier → what it owns. Treated as immutable: operations return new maps. */
export type Managed = ReadonlyMap<string, VersionedSet>;

/** The parts of a manager identifier. */
export interface ManagerInfo {
  readonly manager: string;
  readonly operation: Operation;
  /** Part of the identity of Update entries only. */
  readonly apiVersion?: string;
  readonly subresource?: string;
}

/** managedFields that cannot be read, with Kubernetes' reason. */
export class ManagedFieldsError extends Error {
  override readonly name = 'ManagedFieldsError';
}

/**
 * A manager's identifier: the JSON of its ManagedFieldsEntry without fields, type and time, and
 * without apiVersion for appliers — Kubernetes' BuildManagerIdentifier, so that identifiers sort
 * (and conflicts print) in the same order.
 */
export function managerIdentifier(info: ManagerInfo): string {
  let out = `{"manager":${goJson(info.manager)},"operation":${goJson(info.operation)}`;
  if (info.operation === 'Update' && info.apiVersion !== undefined && info.apiVersion !== '') out += `,"apiVersion":${goJson(info.apiVersion)}`;
  if (info.subresource !== undefined && info.subresource !== '') out += `,"subresource":${goJson(info.subresource)}`;
  return `${out}}`;
}

const parsedIdentifiers = new Map<string, ManagerInfo>();

/** The parts of an identifier made by `managerIdentifier` (a foreign string is a manager name). */
export function parseManagerIdentifier(id: string): ManagerInfo {
  let info = parsedIdentifiers.get(id);
  if (info === undefined) {
    info = parseIdentifier(id);
    // Stryker disable next-line ConditionalExpression,EqualityOperator: the bound only limits the cache's memory: clearing it sooner, later or never gives the same answers
    if (parsedIdentifiers.size >= 4096) parsedIdentifiers.clear();
    parsedIdentifiers.set(id, info);
  }
  return info;
}

function parseIdentifier(id: string): ManagerInfo {
  try {
    const parsed = JSON.parse(id) as Partial<ManagerInfo>;
    if (typeof parsed.manager === 'string' && (parsed.operation === 'Apply' || parsed.operation === 'Update')) {
      return {
        manager: parsed.manager,
        operation: parsed.operation,
        ...(typeof parsed.apiVersion === 'string' ? { apiVersion: parsed.apiVersion } : {}),
        ...(typeof parsed.subresource === 'string' ? { subresource: parsed.subresource } : {}),
      };
    }
  } catch {
    // not an identifier: a bare name
  }
  return { manager: id, operation: 'Update' };
}

/**
 * Decodes managedFields (Kubernetes' DecodeManagedFields). Throws ManagedFieldsError when an entry
 * has no valid operation, no apiVersion, a fieldsType other than FieldsV1, or malformed fields.
 * With `trusted` (managedFields this server wrote and stored), the field sets are used as they
 * are, without walking them.
 */
export function decodeManagedFields(entries: readonly ManagedFieldsEntry[] | undefined | null, trusted = false): Managed {
  const out = new Map<string, VersionedSet>();
  if (entries === undefined || entries === null) return out;
  if (!Array.isArray(entries)) throw new ManagedFieldsError('managedFields must be a list');
  entries.forEach((raw: unknown, i) => {
    if (typeof raw !== 'object' || raw === null || Array.isArray(raw)) throw new ManagedFieldsError(`managed fields entry ${i} is not an object`);
    const entry = raw as ManagedFieldsEntry;
    const operation = entry.operation;
    if (operation !== 'Apply' && operation !== 'Update') throw new ManagedFieldsError('operation must be `Apply` or `Update`');
    if (typeof entry.apiVersion !== 'string' || entry.apiVersion === '') throw new ManagedFieldsError('apiVersion must not be empty');
    const fieldsType = (entry.fieldsType ?? '') as string;
    if (fieldsType === '') throw new ManagedFieldsError(`missing fieldsType in managed fields entry ${i}`);
    if (fieldsType !== 'FieldsV1') throw new ManagedFieldsError(`invalid fieldsType ${JSON.stringify(fieldsType)} in managed fields entry ${i}`);
    const id = managerIdentifier({
      manager: typeof entry.manager === 'string' ? entry.manager : '',
      operation,
      apiVersion: entry.apiVersion,
      subresource: typeof entry.subresource === 'string' ? entry.subresource : '',
    });
    let set: FieldSet;
    try {
      set = entry.fieldsV1 === undefined || entry.fieldsV1 === null ? {} : trusted ? (entry.fieldsV1 as FieldSet) : readFieldsV1(entry.fieldsV1);
    } catch (err) {
      throw new ManagedFieldsError(`error decoding versioned set from entry ${i}: ${(err as Error).message}`, { cause: err });
    }
    out.set(id, { set, apiVersion: entry.apiVersion, applied: operation === 'Apply', ...(typeof entry.time === 'string' ? { time: entry.time } : {}) });
  });
  return out;
}

/**
 * Kubernetes' test for a client asking to clear managedFields: an empty list, or a list of one
 * empty entry (`managedFields: [{}]`).
 */
export function isResetManagedFields(entries: unknown): boolean {
  if (!Array.isArray(entries)) return false;
  if (entries.length === 0) return true;
  if (entries.length !== 1) return false;
  const only: unknown = entries[0];
  if (typeof only !== 'object' || only === null) return false;
  return Object.values(only).every((v) => v === undefined || v === null || v === '');
}

/** Code-unit order (Go's string comparison). */
function compareStrings(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

function seconds(time: string | undefined): number {
  if (time === undefined) return 0;
  const ms = Date.parse(time);
  return Number.isNaN(ms) ? 0 : Math.floor(ms / 1000);
}

/**
 * Encodes managed sets as managedFields entries, sorted as Kubernetes sorts them (operation, then
 * time, manager, apiVersion, subresource). Undefined when there is nothing to record.
 */
export function encodeManagedFields(managed: Managed): ManagedFieldsEntry[] | undefined {
  if (managed.size === 0) return undefined;
  const entries: ManagedFieldsEntry[] = [];
  for (const [id, vs] of managed) {
    const info = parseManagerIdentifier(id);
    const entry: ManagedFieldsEntry = { manager: info.manager, operation: vs.applied ? 'Apply' : info.operation, apiVersion: vs.apiVersion };
    if (vs.time !== undefined) entry.time = vs.time;
    entry.fieldsType = 'FieldsV1';
    entry.fieldsV1 = vs.set;
    if (info.subresource !== undefined && info.subresource !== '') entry.subresource = info.subresource;
    entries.push(entry);
  }
  if (entries.length === 1) return entries;
  const cmp = (a: string | undefined, b: string | undefined) => compareStrings(a ?? '', b ?? '');
  const at = new Map(entries.map((e) => [e, seconds(e.time)]));
  entries.sort(
    (p, q) =>
      cmp(p.operation, q.operation) ||
      at.get(p)! - at.get(q)! ||
      cmp(p.manager, q.manager) ||
      cmp(p.apiVersion, q.apiVersion) ||
      cmp(p.subresource, q.subresource),
  );
  return entries;
}

/** The manager that old Update entries merge into once there are too many (Kubernetes' capManagers). */
export const ANCIENT_CHANGES = 'ancient-changes';

/**
 * Merges the oldest Update entries into one "ancient-changes" entry per API version until at most
 * `max` Update entries are left (Kubernetes' DefaultMaxUpdateManagers is 10).
 */
export function capUpdateManagers(managed: Managed, max: number): Managed {
  const updaters = [...managed.entries()].filter(([, vs]) => !vs.applied).map(([id]) => id);
  if (updaters.length <= max) return managed;
  updaters.sort((a, b) => seconds(managed.get(a)!.time) - seconds(managed.get(b)!.time) || compareStrings(a, b));
  const out = new Map(managed);
  const firstOfVersion = new Map<string, string>();
  let length = updaters.length;
  for (let i = 0; i < updaters.length && length > max; i++) {
    const id = updaters[i]!;
    const vs = out.get(id)!;
    const bucket = managerIdentifier({ manager: ANCIENT_CHANGES, operation: 'Update', apiVersion: vs.apiVersion });
    const first = firstOfVersion.get(vs.apiVersion);
    if (first === undefined) {
      firstOfVersion.set(vs.apiVersion, id);
      continue;
    }
    if (!out.has(bucket)) {
      out.set(bucket, out.get(first)!);
      out.delete(first);
    }
    const merged = out.get(bucket)!;
    out.set(bucket, { set: union(vs.set, merged.set), apiVersion: vs.apiVersion, applied: false, ...(vs.time !== undefined ? { time: vs.time } : {}) });
    out.delete(id);
    length--;
  }
  return out;
}
