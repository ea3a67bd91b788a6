/** Times as the API writes them. */

/** metav1.Time: RFC 3339, UTC, whole seconds ("2026-11-29T15:47:44Z"). */
export function rfc3339(ms: number): string {
  return new Date(ms).toISOString().replace(/\.\d{3}Z$/, 'Z');
}

/** metav1.MicroTime: RFC 3339, UTC, six fractional digits ("2026-11-29T15:47:44.123000Z"). */
export function microTime(ms: number): string {
  // toISOString writes milliseconds; MicroTime wants microseconds.
  return new Date(ms).toISOString().replace(/Z$/, '000Z');
}
