/**
 * PodSecurity admission's metrics, named and labelled as kube-apiserver's:
 * `pod_security_evaluations_total{decision,policy_level,policy_version,mode,request_operation,resource,subresource}`
 * (enforce: every decision; audit and warn: denials), `pod_security_exemptions_total` and
 * `pod_security_errors_total{fatal,…}`. `resource` is `pod` for pods, `controller` for objects with a pod template.
 */
import { Counter, type Registry } from 'prom-client';
import { versionString, type LevelVersion } from './levels.js';

/** What one evaluation is about. */
export interface MetricsRequest {
  readonly operation: 'create' | 'update';
  readonly resource: 'pod' | 'controller';
  readonly subresource: string;
}

export class PodSecurityMetrics {
  private readonly evaluations: Counter<'decision' | 'policy_level' | 'policy_version' | 'mode' | 'request_operation' | 'resource' | 'subresource'>;
  private readonly exemptions: Counter<'request_operation' | 'resource' | 'subresource'>;
  private readonly errors: Counter<'fatal' | 'request_operation' | 'resource' | 'subresource'>;

  /** Registers the counters in `registry` (none: counted but not served). */
  constructor(registry?: Registry) {
    const registers = registry === undefined ? [] : [registry];
    const request = ['request_operation', 'resource', 'subresource'] as const;
    this.evaluations = new Counter({
      name: 'pod_security_evaluations_total',
      help: 'Number of policy evaluations that occurred, not counting ignored or exempt requests.',
      labelNames: ['decision', 'policy_level', 'policy_version', 'mode', ...request] as const,
      registers,
    });
    this.exemptions = new Counter({ name: 'pod_security_exemptions_total', help: 'Number of exempt requests, not counting ignored or out of scope requests.', labelNames: request, registers });
    this.errors = new Counter({ name: 'pod_security_errors_total', help: 'Number of errors preventing normal evaluation. Non-fatal errors may result in the latest restricted profile being used for evaluation.', labelNames: ['fatal', ...request] as const, registers });
  }

  evaluation(decision: 'allow' | 'deny', lv: LevelVersion, mode: 'enforce' | 'audit' | 'warn', req: MetricsRequest): void {
    this.evaluations.inc({ decision, policy_level: lv.level, policy_version: versionString(lv.version), mode, ...labels(req) });
  }

  exemption(req: MetricsRequest): void {
    this.exemptions.inc(labels(req));
  }

  error(fatal: boolean, req: MetricsRequest): void {
    this.errors.inc({ fatal: String(fatal), ...labels(req) });
  }
}

function labels(req: MetricsRequest) {
  return { request_operation: req.operation, resource: req.resource, subresource: req.subresource };
}
