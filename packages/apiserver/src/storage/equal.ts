/** JSON helpers of the storage layer: deep equality, and a deep copy of a JSON value. */
export { jsonClone as clone, jsonEqual } from '@setpoint/api';
