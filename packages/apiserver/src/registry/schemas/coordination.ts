/**
 * OpenAPI v3 schema of coordination.k8s.io/v1 Lease, with every field Kubernetes publishes
 * (api/openapi-spec/v3/apis__coordination.k8s.io__v1_openapi.json); inline tree, no $ref.
 */
import type { Schema } from '@setpoint/api';
import { int32Field, kindSchema, microTimeField, objectField, stringField } from './meta.js';

/** coordination.k8s.io/v1 Lease. */
export const leaseSchema: Schema = kindSchema({
  group: 'coordination.k8s.io',
  version: 'v1',
  kind: 'Lease',
  description: 'A lease: a named lock with a holder, used for leader election and node heartbeats.',
  properties: {
    spec: objectField('The specification of the lease.', {
      acquireTime: microTimeField('When the current lease was acquired.'),
      holderIdentity: stringField('The identity of the current holder.'),
      leaseDurationSeconds: int32Field('How long candidates wait, after the last renewTime, before they may take the lease.'),
      leaseTransitions: int32Field('How many times the lease changed holders.'),
      preferredHolder: stringField('The candidate the strategy would like to hold the lease; only with strategy.'),
      renewTime: microTimeField('When the current holder last renewed the lease.'),
      strategy: stringField('The coordinated leader election strategy, e.g. OldestEmulationVersion.'),
    }),
  },
});
