/**
 * Apply conflicts: a field the applier sets to a new value while another manager owns it. They
 * print, and answer HTTP 409, as Kubernetes words them (apimachinery managedfields
 * `NewConflictError`): "Apply failed with 1 conflict: conflict with \"kubectl\" using v1: .data.a",
 * with one StatusCause of type FieldManagerConflict per field.
 */
import { ApiError } from '../meta/errors.js';
import type { StatusCause } from '../meta/types.js';
import { describePath } from './elements.js';
import { forEachPath, type FieldSet } from './fieldset.js';
import { parseManagerIdentifier } from './managed.js';

/** One conflicting field and the manager (identifier) that owns it. */
export interface Conflict {
  readonly manager: string;
  readonly path: readonly string[];
}

/** The conflicts of an apply; thrown by the updater when not forced. */
export class ApplyConflicts extends Error {
  override readonly name = 'ApplyConflicts';

  constructor(readonly conflicts: readonly Conflict[]) {
    super(conflictMessage(conflicts));
  }

  /** The conflicts from each manager's conflicting set, managers in identifier order. */
  static fromSets(sets: ReadonlyMap<string, FieldSet>): ApplyConflicts {
    const conflicts: Conflict[] = [];
    for (const manager of [...sets.keys()].sort()) forEachPath(sets.get(manager)!, (path) => conflicts.push({ manager, path: [...path] }));
    return new ApplyConflicts(conflicts);
  }

  /** The 409 Conflict Status Kubernetes answers. */
  toApiError(): ApiError {
    const causes: StatusCause[] = this.conflicts.map((c) => ({
      reason: 'FieldManagerConflict',
      message: `conflict with ${printManager(c.manager)}`,
      field: describePath(c.path),
    }));
    return new ApiError('Conflict', this.message, { details: { causes }, cause: this });
  }
}

/** Kubernetes' printManager: `"name"`, plus ` with subresource "s"`, plus ` using v1` for updaters. */
export function printManager(id: string): string {
  const info = parseManagerIdentifier(id);
  let out = JSON.stringify(info.manager);
  if (info.subresource !== undefined && info.subresource !== '') out += ` with subresource ${JSON.stringify(info.subresource)}`;
  if (info.operation === 'Update') out += ` using ${info.apiVersion ?? ''}`;
  return out;
}

/** Kubernetes' getConflictMessage. */
export function conflictMessage(conflicts: readonly Conflict[]): string {
  if (conflicts.length === 1) {
    const only = conflicts[0]!;
    return `Apply failed with 1 conflict: conflict with ${printManager(only.manager)}: ${describePath(only.path)}`;
  }
  const byManager = new Map<string, string[]>();
  for (const c of conflicts) {
    const paths = byManager.get(c.manager) ?? [];
    paths.push(describePath(c.path));
    byManager.set(c.manager, paths);
  }
  const lines: string[] = [];
  for (const manager of [...byManager.keys()].sort()) {
    lines.push(`conflicts with ${printManager(manager)}:`);
    for (const path of byManager.get(manager)!) lines.push(`- ${path}`);
  }
  return `Apply failed with ${conflicts.length} conflicts: ${lines.join('\n')}`;
}
