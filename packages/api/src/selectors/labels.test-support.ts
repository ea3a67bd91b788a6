/** Kubernetes' messages the label selector tests expect, and the error shape they compare to. */

export const NAME_PART_MSG =
  "name part must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')";
export const LABEL_VALUE_MSG =
  "a valid label must be an empty string or consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyValue',  or 'my_value',  or '12345', regex used for validation is '(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?')";
export const SUPPORTED = 'supported values: "in", "notin", "=", "==", "!=", "gt", "lt", "exists", "!"';

/** The ApiError a parse failure throws, as assert.throws compares it. */
export function badRequest(message: string): { name: string; reason: string; code: number; message: string } {
  return { name: 'ApiError', reason: 'BadRequest', code: 400, message };
}
