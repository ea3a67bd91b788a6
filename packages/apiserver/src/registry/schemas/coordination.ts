/** The schema of coordination.k8s.io/v1 Lease: Kubernetes 1.32's published definition (published.ts). */
import type { Schema } from '@setpoint/api';
import { publishedKindSchema } from './published.js';

export const leaseSchema: Schema = publishedKindSchema('coordination.k8s.io', 'v1', 'Lease');
