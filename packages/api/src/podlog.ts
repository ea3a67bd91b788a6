/**
 * PodLogOptions: the query of `GET /api/v1/namespaces/{ns}/pods/{name}/log` and of the node agent's
 * `/containerLogs/{ns}/{pod}/{container}`, read and validated as Kubernetes reads and validates them
 * (its query parameter conversion, then ValidatePodLogOptions with its messages). Shared by the API
 * server, which checks the request before proxying it, and the agent, which serves it.
 */
import { ApiError, FieldError } from './meta/index.js';

/** The options of a pod log request (core/v1 PodLogOptions, minus `stream`). */
export interface PodLogOptions {
  /** The container to read; may be omitted when the pod has exactly one. */
  readonly container?: string;
  /** Keep the stream open and send lines as they are written. */
  readonly follow?: boolean;
  /** The previous terminated run of the container instead of the current one. */
  readonly previous?: boolean;
  /** Only lines written in the last N seconds (> 0). */
  readonly sinceSeconds?: number;
  /** Only lines written at or after this RFC 3339 time (epoch ms here). */
  readonly sinceTime?: number;
  /** Prefix each line with its RFC 3339 time and a space. */
  readonly timestamps?: boolean;
  /** Only the last N lines (>= 0). */
  readonly tailLines?: number;
  /** Stop after this many bytes of output (> 0); the last line may be cut. */
  readonly limitBytes?: number;
  /** Accepted and ignored (the API server talks to agents as it is configured to). */
  readonly insecureSkipTLSVerifyBackend?: boolean;
}

type Query = Readonly<Record<string, string | readonly string[] | undefined>>;

function first(query: Query, name: string): string | undefined {
  const v = query[name];
  return typeof v === 'string' ? v : v?.[0];
}

const TRUE = new Set(['1', 't', 'T', 'TRUE', 'true', 'True']);
const FALSE = new Set(['0', 'f', 'F', 'FALSE', 'false', 'False']);

function bool(query: Query, name: string): boolean | undefined {
  const v = first(query, name);
  if (v === undefined || v === '') return undefined;
  if (TRUE.has(v)) return true;
  if (FALSE.has(v)) return false;
  throw ApiError.badRequest(`invalid ${name} value: ${JSON.stringify(v)}: strconv.ParseBool: parsing ${JSON.stringify(v)}: invalid syntax`);
}

function int(query: Query, name: string): number | undefined {
  const v = first(query, name);
  if (v === undefined || v === '') return undefined;
  if (!/^[-+]?\d{1,18}$/.test(v)) throw ApiError.badRequest(`invalid ${name} value: ${JSON.stringify(v)}: strconv.ParseInt: parsing ${JSON.stringify(v)}: invalid syntax`);
  return Number(v);
}

const RFC3339 = /^\d{4}-\d{2}-\d{2}[Tt]\d{2}:\d{2}:\d{2}(?:\.\d+)?(?:[Zz]|[+-]\d{2}:\d{2})$/;

/**
 * Reads PodLogOptions from a query. Booleans parse as Go's strconv.ParseBool, numbers as integers,
 * sinceTime as RFC 3339. Throws ApiError BadRequest for a value that does not parse; does not
 * validate ranges (validatePodLogOptions does).
 */
export function parsePodLogOptions(query: Query): PodLogOptions {
  const sinceTimeText = first(query, 'sinceTime');
  let sinceTime: number | undefined;
  if (sinceTimeText !== undefined && sinceTimeText !== '') {
    sinceTime = RFC3339.test(sinceTimeText) ? Date.parse(sinceTimeText) : NaN;
    if (Number.isNaN(sinceTime)) throw ApiError.badRequest(`invalid sinceTime value: ${JSON.stringify(sinceTimeText)}: not an RFC 3339 time`);
  }
  const container = first(query, 'container');
  const out: Record<string, unknown> = {
    container: container === '' ? undefined : container,
    follow: bool(query, 'follow'),
    previous: bool(query, 'previous'),
    sinceSeconds: int(query, 'sinceSeconds'),
    sinceTime,
    timestamps: bool(query, 'timestamps'),
    tailLines: int(query, 'tailLines'),
    limitBytes: int(query, 'limitBytes'),
    insecureSkipTLSVerifyBackend: bool(query, 'insecureSkipTLSVerifyBackend'),
  };
  for (const key of Object.keys(out)) if (out[key] === undefined) delete out[key];
  return out as PodLogOptions;
}

/** Kubernetes' ValidatePodLogOptions: the field errors of `options` (empty when valid). */
export function validatePodLogOptions(options: PodLogOptions): FieldError[] {
  const errs: FieldError[] = [];
  if (options.tailLines !== undefined && options.tailLines < 0) errs.push(FieldError.invalid('tailLines', options.tailLines, 'must be greater than or equal to 0'));
  if (options.limitBytes !== undefined && options.limitBytes < 1) errs.push(FieldError.invalid('limitBytes', options.limitBytes, 'must be greater than 0'));
  if (options.sinceSeconds !== undefined && options.sinceTime !== undefined) {
    errs.push(FieldError.forbidden('', 'at most one of `sinceTime` or `sinceSeconds` may be specified'));
  } else if (options.sinceSeconds !== undefined && options.sinceSeconds < 1) {
    errs.push(FieldError.invalid('sinceSeconds', options.sinceSeconds, 'must be greater than 0'));
  }
  return errs;
}

/**
 * The query that asks for `options` (without the container, which is part of the agent's path), as
 * kube-apiserver writes it for the kubelet: only what is set, sinceTime in RFC 3339 seconds.
 */
export function podLogQuery(options: PodLogOptions): URLSearchParams {
  const params = new URLSearchParams();
  if (options.follow) params.set('follow', 'true');
  if (options.previous) params.set('previous', 'true');
  if (options.timestamps) params.set('timestamps', 'true');
  if (options.sinceSeconds !== undefined) params.set('sinceSeconds', String(options.sinceSeconds));
  if (options.sinceTime !== undefined) params.set('sinceTime', new Date(Math.floor(options.sinceTime / 1000) * 1000).toISOString().replace('.000Z', 'Z'));
  if (options.tailLines !== undefined) params.set('tailLines', String(options.tailLines));
  if (options.limitBytes !== undefined) params.set('limitBytes', String(options.limitBytes));
  return params;
}
