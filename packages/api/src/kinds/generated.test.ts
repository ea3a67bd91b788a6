/**
 * The objects declared in kinds/ (KubeObjects whose parts are the generated types) against the
 * types generated from Kubernetes 1.32's published definitions (`k8s`, packages/api/src/generated
 * by `npm run gen:api`): each must be assignable to the generated type of the same kind, with no
 * field looser than Kubernetes', so that it says nothing Kubernetes' shape does not. The check is the type checker's (`npm run typecheck` compiles this file); the test
 * below passes one object of each through both types.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { k8s } from '../index.js';
import type { Binding, ConfigMap, CustomResourceDefinition, Deployment, Event, Lease, Namespace, Node, Pod, PodTemplate, ReplicaSet, Scale, Secret, ServiceAccount } from './index.js';

/** `Handwritten` if it is assignable to `Generated`; a type error here otherwise. */
type Fits<Generated, Handwritten extends Generated> = Handwritten;

export type Checked = [
  Fits<k8s.coreV1.Namespace, Namespace>,
  Fits<k8s.coreV1.ConfigMap, ConfigMap>,
  Fits<k8s.coreV1.Secret, Secret>,
  Fits<k8s.coreV1.Event, Event>,
  Fits<k8s.coreV1.ServiceAccount, ServiceAccount>,
  Fits<k8s.coreV1.Node, Node>,
  Fits<k8s.coreV1.Pod, Pod>,
  Fits<k8s.coreV1.PodTemplate, PodTemplate>,
  Fits<k8s.coreV1.Binding, Binding>,
  Fits<k8s.appsV1.Deployment, Deployment>,
  Fits<k8s.appsV1.ReplicaSet, ReplicaSet>,
  Fits<k8s.autoscalingV1.Scale, Scale>,
  Fits<k8s.coordinationV1.Lease, Lease>,
  Fits<k8s.apiextensionsV1.CustomResourceDefinition, CustomResourceDefinition>,
];

test('a hand-written Pod with its containers is a generated k8s.coreV1.Pod, and a Service has the generated type', () => {
  const pod = { apiVersion: 'v1', kind: 'Pod', metadata: { name: 'web' }, spec: { containers: [{ name: 'app', image: 'nginx', ports: [{ containerPort: 80 }] }] } } satisfies Pod;
  const generated: k8s.coreV1.Pod = pod;
  assert.equal(generated.spec?.containers[0]?.ports?.[0]?.containerPort, 80);
  const service: k8s.coreV1.Service = { apiVersion: 'v1', kind: 'Service', metadata: { name: 'web' }, spec: { selector: { app: 'web' }, ports: [{ port: 80, targetPort: 'http' }] } };
  assert.equal(service.spec?.ports?.[0]?.targetPort, 'http');
});
