/** JSON helpers of the storage layer. */
export { jsonEqual } from '@setpoint/api';
import { jsonClone } from '@setpoint/api';

/** A deep copy of a JSON value. */
export function clone<T>(value: T): T {
  return jsonClone(value);
}
