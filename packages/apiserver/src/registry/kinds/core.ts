/**
 * The core/v1 kinds served besides pods and services: namespaces, configmaps, secrets, events,
 * serviceaccounts and nodes.
 */
import type { ResourceDef } from '../types.js';
import { configMapResource } from './configmap.js';
import { eventResource } from './event.js';
import { namespaceResource } from './namespace.js';
import { nodeResource } from './node.js';
import { secretResource } from './secret.js';
import { serviceAccountResource } from './serviceaccount.js';

/** namespaces, configmaps, secrets, events, serviceaccounts and nodes (group "", version v1). */
export const coreResources: ResourceDef[] = [
  namespaceResource,
  configMapResource,
  secretResource,
  eventResource,
  serviceAccountResource,
  nodeResource,
];
