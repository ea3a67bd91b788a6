/** Audit logging: Kubernetes' audit.k8s.io/v1 events and policies, to a rotated file. */
export { addAuditAnnotation, Auditor, type AuditOptions } from './auditor.js';
export { bodiesAllowed, type AuditEvent, type AuditObjectRef, type AuditResponseStatus, type AuditUserInfo } from './event.js';
export {
  AUDIT_LEVELS,
  AUDIT_STAGES,
  AuditPolicyChecker,
  METADATA_POLICY,
  parseAuditPolicy,
  type AuditAttributes,
  type AuditDecision,
  type AuditLevel,
  type AuditPolicy,
  type AuditPolicyRule,
  type AuditStage,
  type GroupResources,
} from './policy.js';
export { AuditLogWriter, backupPath, listBackups, type AuditLogWriterOptions } from './writer.js';
