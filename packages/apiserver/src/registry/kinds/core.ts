/**
 * The core/v1 kinds served besides pods and services: namespaces, configmaps, secrets, events,
 * serviceaccounts, nodes and podtemplates.
 */
import type { ResourceDef } from '../types.js';
import { configMapResource } from './configmap/configmap.js';
import { eventResource } from './event/event.js';
import { namespaceResource } from './namespace/namespace.js';
import { nodeResource } from './node/node.js';
import { podTemplateResource } from './podtemplate/podtemplate.js';
import { secretResource } from './secret/secret.js';
import { serviceAccountResource } from './serviceaccount/serviceaccount.js';

/** namespaces, configmaps, secrets, events, serviceaccounts, nodes and podtemplates (group "", version v1). */
export const coreResources: ResourceDef[] = [
  namespaceResource,
  configMapResource,
  secretResource,
  eventResource,
  serviceAccountResource,
  nodeResource,
  podTemplateResource,
];
