/**
 * Query parameters read as kube-apiserver's parameter codec reads them into ListOptions,
 * GetOptions, DeleteOptions, CreateOptions, UpdateOptions and PatchOptions (apimachinery
 * runtime/conversion.go, then `errors.NewBadRequest(err.Error())` in the handlers):
 *
 * - integers (limit, timeoutSeconds, gracePeriodSeconds) with Go's strconv.ParseInt(s, 10, 64): a
 *   parameter that is present must be a base-10 int64, optionally signed, or the request is a 400
 *   `strconv.ParseInt: parsing "abc": invalid syntax` (`value out of range` beyond int64) — an
 *   empty value too, as in Kubernetes;
 * - booleans (watch, allowWatchBookmarks, sendInitialEvents, orphanDependents, force): "0" and
 *   "false" (any case) are false, anything else present is true (so `watch=maybe` is a watch, as
 *   in Kubernetes);
 * - resourceVersion with etcd's versioner (strconv.ParseUint): `-1`, `1e3` and `abc` are refused
 *   with kube's message `resourceVersion: Invalid value: "abc": strconv.ParseUint: parsing "abc":
 *   invalid syntax`. Kubernetes answers that one with a 500 (kubernetes#101350, #139485); this
 *   server answers 400 BadRequest, as the open fix there does.
 */
import { ApiError } from '@setpoint/api';

export type Query = Record<string, string | string[] | undefined>;

/** The first value of a query parameter (undefined when absent). */
export function firstValue(query: Query, name: string): string | undefined {
  const v = query[name];
  return Array.isArray(v) ? v[0] : v;
}

/** Kubernetes' query boolean (Convert_Slice_string_To_bool): absent, "0" or "false" (any case) is false; anything else is true. */
export function queryBool(value: unknown): boolean {
  if (Array.isArray(value)) value = value[0];
  if (typeof value !== 'string') return false;
  return !(value === '0' || value.toLowerCase() === 'false');
}

const INT64_MAX = 2n ** 63n - 1n;
const INT64_MIN = -(2n ** 63n);
const UINT64_MAX = 2n ** 64n - 1n;

/**
 * The int64 query parameter `name` (undefined when absent), as a number: values beyond
 * Number.MAX_SAFE_INTEGER are clamped to it (no limit or timeout that large can differ from it).
 * Throws a 400 with Go's strconv.ParseInt message when the value is no int64.
 */
export function queryInt64(query: Query, name: string): number | undefined {
  const raw = firstValue(query, name);
  if (raw === undefined) return undefined;
  const n = parseGoInt64(raw);
  if (n > BigInt(Number.MAX_SAFE_INTEGER)) return Number.MAX_SAFE_INTEGER;
  if (n < BigInt(Number.MIN_SAFE_INTEGER)) return Number.MIN_SAFE_INTEGER;
  return Number(n);
}

/** Go's strconv.ParseInt(s, 10, 64); throws ApiError BadRequest with Go's message. */
export function parseGoInt64(s: string): bigint {
  if (!/^[+-]?[0-9]+$/.test(s)) throw ApiError.badRequest(numError('ParseInt', s, 'invalid syntax'));
  const n = BigInt(s);
  if (n > INT64_MAX || n < INT64_MIN) throw ApiError.badRequest(numError('ParseInt', s, 'value out of range'));
  return n;
}

/**
 * Checks a resourceVersion parameter as etcd's versioner parses it ("" and "0" are any version;
 * otherwise an unsigned 64-bit decimal). Throws ApiError BadRequest with kube's message.
 */
export function checkResourceVersion(rv: string | undefined): void {
  if (rv === undefined || rv === '' || rv === '0') return;
  let detail: string | undefined;
  if (!/^[0-9]+$/.test(rv)) detail = numError('ParseUint', rv, 'invalid syntax');
  else if (BigInt(rv) > UINT64_MAX) detail = numError('ParseUint', rv, 'value out of range');
  if (detail !== undefined) throw ApiError.badRequest(`resourceVersion: Invalid value: ${goQuote(rv)}: ${detail}`);
}

/**
 * Reads and checks the ListOptions parameters every list, watch and deletecollection decodes:
 * limit and timeoutSeconds (int64), resourceVersion. Throws the 400 Kubernetes answers.
 */
export function checkListOptions(query: Query): void {
  queryInt64(query, 'limit');
  queryInt64(query, 'timeoutSeconds');
  checkResourceVersion(firstValue(query, 'resourceVersion'));
}

function numError(fn: 'ParseInt' | 'ParseUint', s: string, why: string): string {
  return `strconv.${fn}: parsing ${goQuote(s)}: ${why}`;
}

/** Go's strconv.Quote for the strings a query can hold (printable characters kept, others escaped). */
export function goQuote(s: string): string {
  let out = '"';
  for (const ch of s) {
    const cp = ch.codePointAt(0)!;
    if (ch === '"' || ch === '\\') out += `\\${ch}`;
    else if (cp === 0x07) out += '\\a';
    else if (cp === 0x08) out += '\\b';
    else if (cp === 0x0c) out += '\\f';
    else if (cp === 0x0a) out += '\\n';
    else if (cp === 0x0d) out += '\\r';
    else if (cp === 0x09) out += '\\t';
    else if (cp === 0x0b) out += '\\v';
    else if (cp < 0x20 || cp === 0x7f) out += `\\x${cp.toString(16).padStart(2, '0')}`;
    else if ((cp >= 0x80 && cp < 0xa0) || (cp >= 0xd800 && cp <= 0xdfff) || cp === 0xfeff) out += cp > 0xffff ? `\\U${cp.toString(16).padStart(8, '0')}` : `\\u${cp.toString(16).padStart(4, '0')}`;
    else out += ch;
  }
  return `${out}"`;
}
