/**
 * Validation of the list and watch query options as kube-apiserver's ValidateListOptions does it
 * (apimachinery meta/internalversion/validation): a bad combination of resourceVersion,
 * resourceVersionMatch, continue and sendInitialEvents is a 422 Invalid on
 * `ListOptions.meta.k8s.io ""`, each problem a cause on the resourceVersionMatch or
 * sendInitialEvents field.
 */
import { ApiError, FieldError } from '@setpoint/api';

export interface ListQuery {
  readonly watch: boolean;
  readonly resourceVersion?: string | undefined;
  readonly resourceVersionMatch?: string | undefined;
  readonly continue?: string | undefined;
  /** The raw sendInitialEvents value; undefined when the parameter is absent. */
  readonly sendInitialEvents?: string | undefined;
}

const MATCH = 'resourceVersionMatch';

/** Throws ApiError Invalid when the options break Kubernetes' rules; returns otherwise. */
export function validateListOptions(query: ListQuery): void {
  const errs = query.watch ? watchErrors(query) : listErrors(query);
  if (errs.length > 0) throw ApiError.invalid({ group: 'meta.k8s.io', kind: 'ListOptions' }, '', errs);
}

function listErrors(query: ListQuery): FieldError[] {
  const errs: FieldError[] = [];
  const match = query.resourceVersionMatch ?? '';
  if (match !== '') {
    if ((query.resourceVersion ?? '') === '') errs.push(FieldError.forbidden(MATCH, 'resourceVersionMatch is forbidden unless resourceVersion is provided'));
    if ((query.continue ?? '') !== '') errs.push(FieldError.forbidden(MATCH, 'resourceVersionMatch is forbidden when continue is provided'));
    if (match !== 'Exact' && match !== 'NotOlderThan') errs.push(FieldError.notSupported(MATCH, match, ['Exact', 'NotOlderThan', '']));
    if (match === 'Exact' && query.resourceVersion === '0') errs.push(FieldError.forbidden(MATCH, 'resourceVersionMatch "exact" is forbidden for resourceVersion "0"'));
  }
  if (query.sendInitialEvents !== undefined) errs.push(FieldError.forbidden('sendInitialEvents', 'sendInitialEvents is forbidden for list'));
  return errs;
}

function watchErrors(query: ListQuery): FieldError[] {
  const errs: FieldError[] = [];
  const match = query.resourceVersionMatch ?? '';
  if (query.sendInitialEvents !== undefined && match !== 'NotOlderThan') {
    errs.push(FieldError.forbidden(MATCH, 'sendInitialEvents requires setting resourceVersionMatch to NotOlderThan'));
  }
  if (match !== '') {
    if (query.sendInitialEvents === undefined) errs.push(FieldError.forbidden(MATCH, 'resourceVersionMatch is forbidden for watch unless sendInitialEvents is provided'));
    if (match !== 'NotOlderThan') errs.push(FieldError.notSupported(MATCH, match, ['NotOlderThan']));
    if ((query.continue ?? '') !== '') errs.push(FieldError.forbidden(MATCH, 'resourceVersionMatch is forbidden when continue is provided'));
  }
  return errs;
}
