/** The built-in kinds Setpoint serves. */
import { crdResource } from '../crd/definition.js';
import { authenticationResources } from './kinds/authentication/authentication.js';
import { authorizationResources } from './kinds/authorization/authorization.js';
import { coordinationResources } from './kinds/coordination.js';
import { coreResources } from './kinds/core.js';
import { rbacResources } from './kinds/rbac/rbac.js';
import { workloadResources } from './kinds/workloads.js';
import type { ResourceDef } from './types.js';

export const builtinResources: readonly ResourceDef[] = [
  ...coreResources,
  ...workloadResources,
  ...coordinationResources,
  crdResource,
  ...rbacResources,
  ...authorizationResources,
  ...authenticationResources,
];
