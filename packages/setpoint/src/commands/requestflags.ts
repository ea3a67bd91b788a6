/**
 * The flags of `setpoint server` and `setpoint up` for request limits and the audit log, named and
 * defaulted as kube-apiserver's: --max-requests-inflight, --max-mutating-requests-inflight,
 * --request-timeout, --min-request-timeout, --audit-log-path, --audit-policy-file,
 * --audit-log-maxsize, --audit-log-maxbackup, --audit-log-maxage; and Setpoint's own
 * --max-watches-per-user and --max-request-body-bytes.
 */
import { readFile } from 'node:fs/promises';
import { resolve } from 'node:path';
import type { Command } from 'commander';
import { DEFAULT_MAX_REQUEST_BODY_BYTES, parseAuditPolicy, type AuditOptions, type RequestLimitsOptions } from '@setpoint/apiserver';
import { parseDuration } from '../flags.js';

/** The flags as commander gives them (absent ones take the defaults below: callers in tests pass few). */
export interface RequestFlags {
  maxRequestsInflight?: string;
  maxMutatingRequestsInflight?: string;
  maxWatchesPerUser?: string;
  maxRequestBodyBytes?: string;
  requestTimeout?: string;
  minRequestTimeout?: string;
  auditLogPath?: string;
  auditPolicyFile?: string;
  auditLogMaxsize?: string;
  auditLogMaxbackup?: string;
  auditLogMaxage?: string;
}

const DEFAULTS = {
  maxRequestsInflight: '400',
  maxMutatingRequestsInflight: '200',
  maxWatchesPerUser: '1000',
  maxRequestBodyBytes: String(DEFAULT_MAX_REQUEST_BODY_BYTES),
  requestTimeout: '1m',
  minRequestTimeout: '1800',
  auditLogMaxsize: '100',
  auditLogMaxbackup: '0',
  auditLogMaxage: '0',
} as const;

export function addRequestFlags(cmd: Command): Command {
  return cmd
    .option('--max-requests-inflight <n>', 'read-only requests served at once; more get 429 (0: no limit)', DEFAULTS.maxRequestsInflight)
    .option('--max-mutating-requests-inflight <n>', 'mutating requests served at once; more get 429 (0: no limit)', DEFAULTS.maxMutatingRequestsInflight)
    .option('--max-watches-per-user <n>', 'open watches per user; more get 429 (0: no limit; system:masters has none)', DEFAULTS.maxWatchesPerUser)
    .option('--max-request-body-bytes <n>', 'larger request bodies get 413', DEFAULTS.maxRequestBodyBytes)
    .option('--request-timeout <duration>', 'requests (not watches or logs) unanswered after this get 504', DEFAULTS.requestTimeout)
    .option('--min-request-timeout <seconds>', 'a watch without timeoutSeconds lasts between this and twice this', DEFAULTS.minRequestTimeout)
    .option('--audit-log-path <file>', 'write an audit event per request to this file ("-": standard output); off by default')
    .option('--audit-policy-file <file>', 'the audit policy (audit.k8s.io/v1 Policy); default: every request at Metadata level')
    .option('--audit-log-maxsize <MB>', 'rotate the audit log when it would pass this size', DEFAULTS.auditLogMaxsize)
    .option('--audit-log-maxbackup <n>', 'rotated audit logs to keep (0: all)', DEFAULTS.auditLogMaxbackup)
    .option('--audit-log-maxage <days>', 'delete rotated audit logs older than this (0: never)', DEFAULTS.auditLogMaxage);
}

function wholeNumber(text: string, flag: string): number {
  if (!/^\d+$/.test(text)) throw new Error(`${flag} must be a whole number, not "${text}"`);
  return Number(text);
}

/**
 * The ApiServer options the flags ask for. Reads and checks the policy file; throws an Error with a
 * one-line message for a bad value, a policy kube-apiserver would refuse, or a policy without a
 * log to write to.
 */
export async function requestOptions(given: RequestFlags): Promise<{ limits: RequestLimitsOptions; audit?: AuditOptions }> {
  const flags = { ...DEFAULTS, ...Object.fromEntries(Object.entries(given).filter(([, v]) => v !== undefined)) } as typeof DEFAULTS & RequestFlags;
  const bodyBytes = wholeNumber(flags.maxRequestBodyBytes, '--max-request-body-bytes');
  if (bodyBytes === 0) throw new Error('--max-request-body-bytes must be more than 0');
  const limits: RequestLimitsOptions = {
    maxRequestsInflight: wholeNumber(flags.maxRequestsInflight, '--max-requests-inflight'),
    maxMutatingRequestsInflight: wholeNumber(flags.maxMutatingRequestsInflight, '--max-mutating-requests-inflight'),
    maxWatchesPerUser: wholeNumber(flags.maxWatchesPerUser, '--max-watches-per-user'),
    maxRequestBodyBytes: bodyBytes,
    requestTimeoutMs: parseDuration(flags.requestTimeout, '--request-timeout'),
    minRequestTimeoutSeconds: wholeNumber(flags.minRequestTimeout, '--min-request-timeout'),
  };
  const maxSizeMB = wholeNumber(flags.auditLogMaxsize, '--audit-log-maxsize');
  const maxBackups = wholeNumber(flags.auditLogMaxbackup, '--audit-log-maxbackup');
  const maxAgeDays = wholeNumber(flags.auditLogMaxage, '--audit-log-maxage');
  if (flags.auditLogPath === undefined || flags.auditLogPath === '') {
    if (flags.auditPolicyFile !== undefined) throw new Error('--audit-policy-file needs --audit-log-path: where the audit events go');
    return { limits };
  }
  let policy: AuditOptions['policy'];
  if (flags.auditPolicyFile !== undefined) {
    const file = resolve(flags.auditPolicyFile);
    let text: string;
    try {
      text = await readFile(file, 'utf8');
    } catch (err) {
      throw new Error(`--audit-policy-file: cannot read ${file}: ${(err as Error).message}`);
    }
    policy = parseAuditPolicy(text, file);
  }
  const path = flags.auditLogPath === '-' ? '-' : resolve(flags.auditLogPath);
  return { limits, audit: { path, maxSizeBytes: (maxSizeMB === 0 ? 100 : maxSizeMB) * 1024 * 1024, maxBackups, maxAgeDays, ...(policy ? { policy } : {}) } };
}
