/**
 * The admission chain of an API server, in kube-apiserver's order of the same plugins
 * (NamespaceLifecycle first; NodeRestriction; PodSecurity; DefaultTolerationSeconds), with RBAC's
 * escalation check, which kube-apiserver runs in the RBAC storages, as a plugin beside
 * NodeRestriction. The later plugins (LimitRanger, ResourceQuota, the admission webhooks and
 * policies) join this list; see chain.ts for the phases.
 */
import type { Authorization, RequestAdmission } from '../authz/index.js';
import type { UserInfo } from '../auth/index.js';
import type { ResourceRequestInfo } from '../http/requestinfo.js';
import type { ResourceStorage } from '../storage/rest.js';
import { AdmissionChain, type AdmissionPlugin } from './chain.js';
import { namespaceLifecycle } from './namespacelifecycle.js';
import type { PodSecurityAdmission } from './podsecurity/index.js';
import { podSecurityPlugin } from './podsecurity/wiring.js';
import { addDefaultTolerations } from './tolerations.js';

/** What the server's plugins read, each once it exists. */
export interface ServerAdmissionParts {
  readonly namespaces: () => ResourceStorage;
  /** The authorizer, once started; undefined while it is not (or never is: no authentication). */
  readonly authorization: () => Authorization | undefined;
  readonly podSecurity: () => PodSecurityAdmission | undefined;
}

/** The chain a server runs. */
export function serverAdmission(parts: ServerAdmissionParts): AdmissionChain {
  return new AdmissionChain([
    namespaceLifecycle(parts.namespaces),
    authorizerChecks('NodeRestriction', (user, info) => parts.authorization()?.nodeRestriction(user, info)),
    authorizerChecks('RBACEscalation', (user, info) => parts.authorization()?.escalationCheck(user, info)),
    podSecurityPlugin(parts.podSecurity),
    defaultTolerationSeconds,
  ]);
}

/** DefaultTolerationSeconds: pods tolerate not-ready and unreachable nodes for 300 s unless they say otherwise (tolerations.ts). */
export const defaultTolerationSeconds: AdmissionPlugin = {
  name: 'DefaultTolerationSeconds',
  mutate({ def, operation, obj }) {
    if (operation === 'CREATE' && def.group === '' && def.resource === 'pods') addDefaultTolerations(obj);
  },
};

/**
 * A plugin from the authorizer's checks of a request (authz/): `before` in the request phase,
 * `write` in the validate phase. Only requests with a user are checked.
 */
function authorizerChecks(name: string, checks: (user: UserInfo, info: ResourceRequestInfo) => RequestAdmission | undefined): AdmissionPlugin {
  return {
    name,
    async admitRequest(request) {
      if (request.user === undefined) return;
      await checks(request.user, request.info)?.before?.(() => request.body());
    },
    async validate({ obj, old, request }) {
      if (request?.user === undefined) return;
      await checks(request.user, request.info)?.write?.(obj, old);
    },
  };
}
