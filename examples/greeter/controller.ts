/**
 * Example: a custom resource and its controller, on @setpoint/client only (it works against
 * Kubernetes too). A Greeter (crd.yaml) asks for `replicas` processes that print `message`; the
 * controller keeps a Deployment that runs them, owned by the Greeter (delete the Greeter and the
 * garbage collector deletes the Deployment), and reports what it observes in the Greeter's status:
 * replicas, readyReplicas, the selector (for `kubectl scale`) and a Ready condition.
 *
 * The decisions are plain functions (desiredDeployment, observedStatus) that tests call directly;
 * the reconcile function reads the present from the cache, acts, and then records.
 */
import { isApiError, jsonEqual, rfc3339, type Condition, type Deployment, type KubeObject } from '@setpoint/api';
import { builtin, setCondition, updateStatusIfChanged, type Client, type Manager, type Request, type ResourceRef } from '@setpoint/client';

export const greeters: ResourceRef = { group: 'example.setpoint.dev', version: 'v1', resource: 'greeters', kind: 'Greeter', namespaced: true };
export const NAME_LABEL = 'greeter.example.setpoint.dev/name';

export interface Greeter extends KubeObject {
  spec: { message: string; replicas?: number };
  status?: { replicas?: number; readyReplicas?: number; selector?: string; observedGeneration?: number; conditions?: Condition[] };
}

/** The Deployment a Greeter should have: `greeter-<name>`, its replicas, a shell loop saying the message. */
export function desiredDeployment(g: Greeter): Deployment {
  const name = g.metadata.name!;
  const labels = { [NAME_LABEL]: name };
  return {
    apiVersion: 'apps/v1',
    kind: 'Deployment',
    metadata: {
      name: `greeter-${name}`,
      namespace: g.metadata.namespace,
      labels,
      ownerReferences: [{ apiVersion: 'example.setpoint.dev/v1', kind: 'Greeter', name, uid: g.metadata.uid!, controller: true, blockOwnerDeletion: true }],
    },
    spec: {
      replicas: g.spec.replicas ?? 1,
      selector: { matchLabels: labels },
      template: {
        metadata: { labels },
        spec: {
          terminationGracePeriodSeconds: 5,
          containers: [
            {
              name: 'say',
              image: 'busybox',
              command: ['sh', '-c', 'while true; do echo "$MESSAGE"; sleep 5; done'],
              env: [{ name: 'MESSAGE', value: g.spec.message }],
            },
          ],
        },
      },
    },
  };
}

/** What the Greeter's status should say, given the Deployment observed (if any). */
export function observedStatus(g: Greeter, d: Deployment | undefined, now: string): NonNullable<Greeter['status']> {
  const wanted = g.spec.replicas ?? 1;
  const ready = d?.status?.readyReplicas ?? 0;
  const condition =
    ready >= wanted
      ? { type: 'Ready', status: 'True' as const, reason: 'AllReplicasReady', message: `${ready}/${wanted} replicas ready` }
      : { type: 'Ready', status: 'False' as const, reason: d === undefined ? 'Creating' : 'Progressing', message: `${ready}/${wanted} replicas ready` };
  return {
    replicas: d?.status?.replicas ?? 0,
    readyReplicas: ready,
    selector: `${NAME_LABEL}=${g.metadata.name}`,
    observedGeneration: g.metadata.generation ?? 0,
    conditions: setCondition(g.status?.conditions, condition, now),
  };
}

/** Whether the Deployment's fields the controller owns differ from what it wants. */
function drifted(have: Deployment, want: Deployment): boolean {
  const container = (d: Deployment) => d.spec?.template?.spec?.containers?.[0];
  return have.spec?.replicas !== want.spec?.replicas || !jsonEqual(container(have)?.env, container(want)?.env) || !jsonEqual(container(have)?.command, container(want)?.command);
}

/** Registers the greeter controller on `manager`. */
export function addGreeterController(manager: Manager, client: Client): void {
  const cachedGreeters = manager.reader<Greeter>(greeters);
  const cachedDeployments = manager.reader<Deployment>(builtin.deployments);
  const greeterApi = client.resource<Greeter>(greeters);
  const deploymentApi = client.deployments();
  const events = manager.eventRecorder('greeter-controller');

  manager
    .controller('greeter')
    .for(greeters)
    .owns(builtin.deployments)
    .reconcile(async ({ namespace, name }: Request) => {
      const g = cachedGreeters.get(namespace, name) as Greeter | undefined;
      if (g === undefined || g.metadata.deletionTimestamp !== undefined) return; // the GC removes the Deployment
      const want = desiredDeployment(g);
      let have = cachedDeployments.get(namespace, want.metadata.name!) as Deployment | undefined;
      // Act first...
      if (have === undefined) {
        await deploymentApi.create(want).catch((err: unknown) => {
          if (!isApiError(err, 'AlreadyExists')) throw err; // the cache is behind: the next event brings it
        });
        events.event(g, 'Normal', 'Created', `created Deployment ${want.metadata.name}`);
      } else if (drifted(have, want)) {
        // The precondition is the resourceVersion read: a 409 is retried with backoff.
        have = await deploymentApi.update({ ...have, spec: { ...have.spec!, replicas: want.spec!.replicas, template: want.spec!.template } });
        events.event(g, 'Normal', 'Updated', `updated Deployment ${want.metadata.name}`);
      }
      // ...then record what is observed, only when it changed.
      await updateStatusIfChanged(greeterApi, g, observedStatus(g, have, rfc3339(Date.now())));
    });
}
