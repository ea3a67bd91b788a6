/**
 * The schemas of the workload kinds: Pod and Binding (core/v1), ReplicaSet and Deployment
 * (apps/v1), and Scale (autoscaling/v1, the body of the scale subresource): Kubernetes 1.32's
 * published definitions as inline trees (published.ts). Read-only.
 */
import type { Schema } from '@setpoint/api';
import { publishedKindSchema, publishedSchema } from './published.js';

export const podSchema: Schema = publishedKindSchema('', 'v1', 'Pod');
export const bindingSchema: Schema = publishedKindSchema('', 'v1', 'Binding');
export const replicaSetSchema: Schema = publishedKindSchema('apps', 'v1', 'ReplicaSet');
export const deploymentSchema: Schema = publishedKindSchema('apps', 'v1', 'Deployment');
export const scaleSchema: Schema = publishedKindSchema('autoscaling', 'v1', 'Scale');

export const podSpecSchema: Schema = publishedSchema('io.k8s.api.core.v1.PodSpec');
export const podStatusSchema: Schema = publishedSchema('io.k8s.api.core.v1.PodStatus');
export const podTemplateSpecSchema: Schema = publishedSchema('io.k8s.api.core.v1.PodTemplateSpec');
