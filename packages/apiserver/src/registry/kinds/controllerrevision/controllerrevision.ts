/**
 * ControllerRevision (apps/v1, namespaced): an immutable snapshot of a controller's state (the
 * DaemonSet and StatefulSet controllers keep their template history in them). Validation as
 * ValidateControllerRevision and ValidateControllerRevisionUpdate: a DNS subdomain name, `data`
 * present ("data is mandatory"), `revision` not negative; on update `data` is immutable
 * ("field is immutable"), `revision` may change. No defaults, no status.
 */
import { FieldError, nameIsDNSSubdomain, type KubeObject } from '@setpoint/api';
import { publishedKindSchema } from '../../schemas/published.js';
import type { ResourceDef } from '../../types.js';
import { jsonEqual } from '../../../storage/equal.js';
import { controllerRevisionPrinter } from './table.js';

/** ValidateControllerRevision, less ObjectMeta (the REST layer checks it for every kind). */
export function validateControllerRevision(obj: KubeObject): FieldError[] {
  const errs: FieldError[] = [];
  if (obj['data'] === undefined || obj['data'] === null) errs.push(FieldError.required('data', 'data is mandatory'));
  const revision = obj['revision'];
  if (typeof revision === 'number' && revision < 0) errs.push(FieldError.invalid('revision', revision, 'must be greater than or equal to 0'));
  return errs;
}

/** ValidateControllerRevisionUpdate, less ObjectMeta and the create rules (run as well): `data` is immutable. */
export function validateControllerRevisionUpdate(obj: KubeObject, old: KubeObject): FieldError[] {
  return jsonEqual(obj['data'] ?? null, old['data'] ?? null) ? [] : [FieldError.invalid('data', obj['data'] ?? null, 'field is immutable')];
}

/** controllerrevisions (apps/v1). */
export const controllerRevisionResource: ResourceDef = {
  group: 'apps',
  version: 'v1',
  resource: 'controllerrevisions',
  protobuf: true,
  printer: controllerRevisionPrinter,
  singular: 'controllerrevision',
  kind: 'ControllerRevision',
  listKind: 'ControllerRevisionList',
  namespaced: true,
  schema: publishedKindSchema('apps', 'v1', 'ControllerRevision'),
  nameValidator: nameIsDNSSubdomain,
  strategy: {
    validate: (obj) => validateControllerRevision(obj),
    validateUpdate: (obj, old) => validateControllerRevisionUpdate(obj, old),
  },
};
