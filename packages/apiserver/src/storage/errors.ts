/** Maps store errors to the API's errors, worded as Kubernetes words them. */
import { ApiError, type GroupResource } from '@setpoint/api';
import { isStoreError } from '@setpoint/store';

/** The ApiError a store error means for one object (or a collection when `name` is ''). */
export function fromStoreError(err: unknown, gr: GroupResource, name: string): unknown {
  if (!isStoreError(err)) return err;
  switch (err.code) {
    case 'NotFound':
      return ApiError.notFound(gr, name);
    case 'AlreadyExists':
      return ApiError.alreadyExists(gr, name);
    case 'Conflict':
      return ApiError.conflict(gr, name);
    case 'Compacted':
      return ApiError.expired(`too old resource version: ${err.message}`);
    case 'ValueTooLarge':
      return ApiError.tooLarge(err.message);
    case 'InvalidKey':
    case 'InvalidValue':
      return ApiError.badRequest(err.message);
    case 'FutureRevision':
      return err.requestedRevision !== undefined && err.currentRevision !== undefined
        ? ApiError.tooLargeResourceVersion(err.requestedRevision, err.currentRevision)
        : ApiError.timeout(`Too large resource version: ${err.message}`, 1);
    case 'Closed':
    case 'Unavailable':
    case 'WatchOverflow':
      return ApiError.serviceUnavailable(`the store is unavailable: ${err.message}`, 1);
  }
}
