/** Time and retry utilities shared by every Setpoint component: the injectable clock, backoff, a deadline on a promise. */
export { every, FakeClock, realClock } from './clock.js';
export type { Clock, Timer } from './clock.js';
export { Backoff } from './backoff.js';
export type { BackoffOptions } from './backoff.js';
export { DeadlineExceeded, within } from './deadline.js';
export { jsonClone, jsonEqual } from './json.js';
export { microTime, rfc3339 } from './time.js';
