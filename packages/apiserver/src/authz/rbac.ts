/**
 * The RBAC authorizer (--authorization-mode=RBAC): a request is allowed when a rule of a role
 * bound to the user (or one of their groups, or their service account) allows it — bound
 * everywhere by a ClusterRoleBinding, or in the request's namespace by a RoleBinding. It never
 * denies: no matching rule is no opinion, with the errors met (a binding whose role is missing) as
 * the reason.
 */
import type { UserInfo } from '../auth/index.js';
import { ALLOW, NO_OPINION, type Attributes, type AuthorizationResult, type Authorizer, type RuleResolver, type RuleSet } from './authorizer.js';
import { describeBinding, type RbacPolicy } from './policy.js';
import { ruleAllows } from './rules.js';

/** Options of the RBAC authorizer. */
export interface RbacAuthorizerOptions {
  /** Give the reason of each Allow (`RBAC: allowed by …`); reviews want it, requests do not. Default false. */
  readonly explain?: boolean;
}

export class RbacAuthorizer implements Authorizer, RuleResolver {
  constructor(
    readonly policy: RbacPolicy,
    private readonly options: RbacAuthorizerOptions = {},
  ) {}

  authorize(attributes: Attributes): AuthorizationResult {
    let allowed: AuthorizationResult | undefined;
    const errors = this.policy.visitRulesFor(attributes.user, attributes.namespace, (rule, source, subject) => {
      if (!ruleAllows(attributes, rule)) return true;
      allowed = this.options.explain ? { decision: 'Allow', reason: `RBAC: allowed by ${describeBinding(source, subject)}` } : ALLOW;
      return false;
    });
    if (allowed !== undefined) return allowed;
    if (errors.length === 0) return NO_OPINION;
    const unique = [...new Set(errors)];
    return { decision: 'NoOpinion', reason: `RBAC: ${unique.length === 1 ? unique[0]! : `[${unique.join(', ')}]`}` };
  }

  /** The same authorizer giving reasons for its Allows (for reviews). */
  explaining(): RbacAuthorizer {
    return new RbacAuthorizer(this.policy, { explain: true });
  }

  rulesFor(user: UserInfo, namespace: string): RuleSet {
    const { rules, errors } = this.policy.rulesFor(user, namespace);
    return { rules, incomplete: false, errors };
  }
}
