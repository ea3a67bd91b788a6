/**
 * The schemas of the core/v1 kinds Namespace, ConfigMap, Secret, Event, ServiceAccount and Node:
 * Kubernetes 1.32's published definitions as inline trees (published.ts). Read-only.
 */
import type { Schema } from '@setpoint/api';
import { publishedKindSchema } from './published.js';

export const namespaceSchema: Schema = publishedKindSchema('', 'v1', 'Namespace');
export const configMapSchema: Schema = publishedKindSchema('', 'v1', 'ConfigMap');
export const secretSchema: Schema = publishedKindSchema('', 'v1', 'Secret');
export const eventSchema: Schema = publishedKindSchema('', 'v1', 'Event');
export const serviceAccountSchema: Schema = publishedKindSchema('', 'v1', 'ServiceAccount');
export const nodeSchema: Schema = publishedKindSchema('', 'v1', 'Node');
