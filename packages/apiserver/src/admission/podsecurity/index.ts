/** PodSecurity admission (Kubernetes' Pod Security Standards and namespace labels). */
export { PodSecurityAdmission, NAMESPACE_MAX_PODS_TO_CHECK, type PodSecurityConfig, type PodSecurityDeps, type PodSecurityExemptions, type PodSecurityRequest, type PodSecuritySink } from './admission.js';
export { loadAdmissionControlConfig, parsePodSecurityConfiguration, parsePodSecurityDefaults } from './config.js';
export { evaluatePod, violationsText } from './evaluator.js';
export { LATEST, LEVELS, MODES, PRIVILEGED_POLICY, levelVersionString, parseLevel, parseVersion, policyToEvaluate, type Level, type LevelVersion, type Mode, type Policy, type PolicyVersion } from './levels.js';
export type { Violation } from './check.js';
