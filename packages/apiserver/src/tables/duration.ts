/**
 * Ages as kubectl users read them: apimachinery's `duration.HumanDuration` ("45s", "5m2s", "3h",
 * "3d4h", "2y30d") and the printers' `translateTimestampSince` ("<unknown>" for an unset time).
 */
import type { KubeObject } from '@setpoint/api';

const SECOND = 1000;
const MINUTE = 60 * SECOND;
const HOUR = 60 * MINUTE;

/**
 * A succinct duration with two or three significant figures, exactly as Kubernetes'
 * HumanDuration: under 2 minutes in seconds, then "XmYs" below 10 minutes, minutes below 3 hours,
 * "XhYm" below 8 hours, hours below 2 days, "XdYh" below 8 days, days below 2 years, "XyYd" below
 * 8 years, then years. Up to a second in the future reads "0s" (clock skew); further ahead reads
 * "<invalid>".
 */
export function humanDuration(ms: number): string {
  const seconds = Math.trunc(ms / SECOND);
  if (seconds < -1) return '<invalid>';
  if (seconds < 0) return '0s';
  if (seconds < 60 * 2) return `${seconds}s`;
  const minutes = Math.trunc(ms / MINUTE);
  if (minutes < 10) {
    const s = seconds % 60;
    return s === 0 ? `${minutes}m` : `${minutes}m${s}s`;
  }
  if (minutes < 60 * 3) return `${minutes}m`;
  const hours = Math.trunc(ms / HOUR);
  if (hours < 8) {
    const m = minutes % 60;
    return m === 0 ? `${hours}h` : `${hours}h${m}m`;
  }
  if (hours < 48) return `${hours}h`;
  if (hours < 24 * 8) {
    const h = hours % 24;
    return h === 0 ? `${Math.trunc(hours / 24)}d` : `${Math.trunc(hours / 24)}d${h}h`;
  }
  if (hours < 24 * 365 * 2) return `${Math.trunc(hours / 24)}d`;
  if (hours < 24 * 365 * 8) {
    const dy = Math.trunc(hours / 24) % 365;
    const years = Math.trunc(hours / 24 / 365);
    return dy === 0 ? `${years}y` : `${years}y${dy}d`;
  }
  return `${Math.trunc(hours / 24 / 365)}y`;
}

/**
 * How long ago `timestamp` (RFC 3339, any fraction) was at server time `now` (ms since the epoch),
 * as {@link humanDuration}: "<unknown>" when the timestamp is unset, "<invalid>" when it does not
 * parse.
 */
export function timestampSince(timestamp: unknown, now: number): string {
  if (typeof timestamp !== 'string' || timestamp === '') return '<unknown>';
  const at = Date.parse(timestamp);
  if (Number.isNaN(at)) return '<invalid>';
  return humanDuration(now - at);
}

/** An object's AGE cell: the time since its creationTimestamp, as kubectl prints it. */
export function objectAge(obj: KubeObject, now: number): string {
  return timestampSince(obj.metadata.creationTimestamp, now);
}
