/**
 * Example controller: every ConfigMap labelled `mirror.example.setpoint.dev/enabled=true` gets a
 * Secret `<name>-mirror` holding the same data. Edit the ConfigMap and the Secret follows; edit or
 * delete the Secret and it is put back; delete the ConfigMap and the finalizer removes the Secret
 * first. (Removing the label stops the mirroring but keeps the Secret until the ConfigMap goes.) Written against @setpoint/client's public API only; it works against Kubernetes too.
 */
import { isApiError, jsonEqual, type ConfigMap, type Secret } from '@setpoint/api';
import { builtin, predicate, withFinalizer, type Client, type Manager, type Request } from '@setpoint/client';

export const LABEL = 'mirror.example.setpoint.dev/enabled';
export const FINALIZER = 'mirror.example.setpoint.dev/cleanup';

/** The Secret a ConfigMap should have: same name + "-mirror", same data, owned by it. */
export function desiredSecret(cm: ConfigMap): Secret {
  const data: Record<string, string> = {};
  for (const [k, v] of Object.entries(cm.data ?? {})) data[k] = Buffer.from(v, 'utf8').toString('base64');
  return {
    apiVersion: 'v1',
    kind: 'Secret',
    metadata: {
      name: `${cm.metadata.name}-mirror`,
      namespace: cm.metadata.namespace,
      ownerReferences: [{ apiVersion: 'v1', kind: 'ConfigMap', name: cm.metadata.name!, uid: cm.metadata.uid!, controller: true }],
    },
    type: 'Opaque',
    data,
  };
}

/** Registers the mirror controller on `manager`. */
export function addMirrorController(manager: Manager, client: Client): void {
  const configMaps = manager.reader<ConfigMap>(builtin.configMaps);
  const secrets = manager.reader<Secret>(builtin.secrets);
  const events = manager.eventRecorder('mirror-controller'); // core/v1 Events, aggregated
  // Labelled ConfigMaps, and any that still carries our finalizer (it must be cleaned up).
  const ours = (cm: Readonly<ConfigMap>) => cm.metadata.labels?.[LABEL] === 'true' || (cm.metadata.finalizers ?? []).includes(FINALIZER);

  manager
    .controller('mirror')
    .for(builtin.configMaps, { predicates: [predicate<ConfigMap>(ours)] })
    .owns(builtin.secrets)
    .reconcile(async ({ namespace, name }: Request) => {
      const cm = configMaps.get(namespace, name) as ConfigMap | undefined; // the present, from the cache
      if (cm === undefined || !ours(cm)) return;
      return withFinalizer(client.configMaps(), FINALIZER, cm, async (event) => {
        const want = desiredSecret(event.object);
        const api = client.secrets();
        if (event.type === 'cleanup') {
          await api.delete(want.metadata.name!, { namespace }).catch((err) => {
            if (!isApiError(err, 'NotFound')) throw err;
          });
          return;
        }
        if (event.object.metadata.labels?.[LABEL] !== 'true') return; // mirroring switched off
        const have = secrets.get(namespace, want.metadata.name!);
        if (have === undefined) {
          await api.create(want).catch((err) => {
            if (!isApiError(err, 'AlreadyExists')) throw err; // our cache is behind: the next event fixes it
          });
          events.event(event.object, 'Normal', 'Mirrored', `created Secret ${want.metadata.name}`);
        } else if (!jsonEqual(have.data ?? {}, want.data)) {
          // Precondition: the resourceVersion we read. A 409 is retried with backoff.
          await api.update({ ...(have as Secret), data: want.data });
          events.event(event.object, 'Normal', 'Mirrored', `updated Secret ${want.metadata.name}`);
        }
        return undefined;
      });
    });
}
