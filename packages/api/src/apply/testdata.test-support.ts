/** Test data shared by the apply tests: a small Deployment-like schema with the list kinds apply tells apart. */
import type { Schema } from '../schema.js';

const str: Schema = { type: 'string' };
const int: Schema = { type: 'integer' };

export const deploymentSchema: Schema = {
  type: 'object',
  properties: {
    apiVersion: str,
    kind: str,
    metadata: {
      type: 'object',
      properties: {
        name: str,
        namespace: str,
        labels: { type: 'object', additionalProperties: str },
        annotations: { type: 'object', additionalProperties: str },
        finalizers: { type: 'array', items: str, 'x-kubernetes-list-type': 'set', 'x-kubernetes-patch-strategy': 'merge' },
      },
    },
    spec: {
      type: 'object',
      properties: {
        replicas: int,
        paused: { type: 'boolean' },
        selector: { type: 'object', properties: { matchLabels: { type: 'object', additionalProperties: str } }, 'x-kubernetes-map-type': 'atomic' },
        template: {
          type: 'object',
          properties: {
            metadata: { type: 'object', properties: { labels: { type: 'object', additionalProperties: str } } },
            spec: {
              type: 'object',
              properties: {
                nodeSelector: { type: 'object', additionalProperties: str, 'x-kubernetes-map-type': 'atomic' },
                containers: {
                  type: 'array',
                  'x-kubernetes-list-type': 'map',
                  'x-kubernetes-list-map-keys': ['name'],
                  'x-kubernetes-patch-merge-key': 'name',
                  'x-kubernetes-patch-strategy': 'merge',
                  items: {
                    type: 'object',
                    properties: {
                      name: str,
                      image: str,
                      args: { type: 'array', items: str },
                      env: { type: 'array', items: { type: 'object', properties: { name: str, value: str } }, 'x-kubernetes-patch-merge-key': 'name', 'x-kubernetes-patch-strategy': 'merge' },
                      ports: {
                        type: 'array',
                        'x-kubernetes-list-type': 'map',
                        'x-kubernetes-list-map-keys': ['containerPort', 'protocol'],
                        items: { type: 'object', properties: { containerPort: int, protocol: { type: 'string', default: 'TCP' }, name: str } },
                      },
                    },
                  },
                },
              },
            },
          },
        },
      },
    },
    status: { type: 'object', properties: { replicas: int } },
  },
};

