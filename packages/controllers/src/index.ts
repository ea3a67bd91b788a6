/** @setpoint/controllers: the built-in controllers, written with the public controller runtime. */
import type { Manager } from '@setpoint/client';
import { registerGarbageCollector } from './gc/index.js';
import { registerNamespaceController } from './namespace/index.js';
import { registerNodeLifecycleController, type NodeLifecycleOptions } from './nodelifecycle/index.js';
import { registerDeploymentController } from './deployment/index.js';
import { registerReplicaSetController } from './replicaset/index.js';
import { registerServiceAccountController } from './serviceaccount/index.js';

export * from './gc/index.js';
export * from './namespace/index.js';
export * from './nodelifecycle/index.js';
export * from './replicaset/index.js';
export * from './deployment/index.js';
export * from './scheduler/index.js';
export * from './serviceaccount/index.js';

/** Options of the built-in controllers, by controller; each has its controller's defaults. */
export interface BuiltinControllerOptions {
  readonly nodeLifecycle?: NodeLifecycleOptions;
}

/** Registers every built-in controller of the controller-manager on `manager`; returns their names. */
export function registerBuiltinControllers(manager: Manager, options: BuiltinControllerOptions = {}): string[] {
  registerGarbageCollector(manager);
  registerNamespaceController(manager);
  registerReplicaSetController(manager);
  registerDeploymentController(manager);
  registerNodeLifecycleController(manager, options.nodeLifecycle);
  registerServiceAccountController(manager);
  return ['garbage collector', 'namespaces', 'replicasets', 'deployments', 'node lifecycle', 'serviceaccounts'];
}
