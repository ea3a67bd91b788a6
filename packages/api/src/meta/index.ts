export type * from './types.js';
export { ApiError, FieldError, OBJECT_MODIFIED, OMIT_VALUE, isApiError, isGone, reasonCodes, reasonForCode } from './errors.js';
export type { ApiErrorOptions, GroupKind, GroupResource, StatusReason } from './errors.js';
