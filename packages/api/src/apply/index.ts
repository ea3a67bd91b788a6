/**
 * Server-side apply: field sets in FieldsV1 form, the structure of a kind's schema as apply sees
 * it, ownership of fields per manager (managedFields), merging applied configurations, conflicts,
 * and the FieldManager that puts these together for the API server.
 */
export { ApplyConflicts, conflictMessage, printManager, type Conflict } from './conflict.js';
export { describePath, fieldElement, FieldPathError, keyElement, readFieldsV1, valueElement } from './elements.js';
export { BEFORE_FIRST_APPLY, FieldManager, KUBECTL_MANAGER, LAST_APPLIED_ANNOTATION, MAX_UPDATE_MANAGERS, type ApplyRequest, type FieldManagerOptions } from './fieldmanager.js';
export { difference, emptySet, hasPath, insertPath, intersection, isEmptySet, pathsOf, setOf, setsEqual, union, type FieldSet } from './fieldset.js';
export {
  ANCIENT_CHANGES,
  capUpdateManagers,
  decodeManagedFields,
  encodeManagedFields,
  isResetManagedFields,
  ManagedFieldsError,
  managerIdentifier,
  parseManagerIdentifier,
  type Managed,
  type ManagerInfo,
  type Operation,
  type VersionedSet,
} from './managed.js';
export { compare, ensureNamedFieldsAreMembers, merge, removeItems, toFieldSet, TypedValueError, validateConfiguration, type Comparison } from './typed.js';
export { typeOf, type TypeNode } from './types.js';
export { recordApply, recordUpdate, type ApplyResult, type FieldFilter, type UpdaterOptions } from './updater.js';
