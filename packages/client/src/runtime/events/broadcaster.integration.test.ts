import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { ApiError, type Event, type KubeList, type KubeObject } from '@setpoint/api';
import { startControlPlane } from '@setpoint/testing';
import { EventBroadcaster, type EventClient } from './broadcaster.js';

async function request<T>(method: string, url: string, body?: unknown, contentType = 'application/json'): Promise<T> {
  const res = await fetch(url, {
    method,
    headers: { accept: 'application/json', 'content-type': contentType },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  const json: unknown = await res.json();
  if (!res.ok) throw ApiError.fromStatus(json as Parameters<typeof ApiError.fromStatus>[0], res.status);
  return json as T;
}

/** An EventClient over fetch: create and merge-patch of core/v1 events. */
function eventClient(server: string): EventClient {
  return {
    create: (obj) => request<Event>('POST', `${server}/api/v1/namespaces/${obj.metadata.namespace}/events`, obj),
    patch: (name, patch, { namespace }) =>
      request<Event>('PATCH', `${server}/api/v1/namespaces/${namespace}/events/${name}`, patch, 'application/merge-patch+json'),
  };
}

describe('EventBroadcaster against the API server', () => {
  it('three identical events make one Event with count 3', async () => {
    await using cp = await startControlPlane();
    const server = cp.config.server;
    const cm = await request<KubeObject>('POST', `${server}/api/v1/namespaces/default/configmaps`, {
      apiVersion: 'v1',
      kind: 'ConfigMap',
      metadata: { name: 'settings' },
      data: { a: '1' },
    });
    await using broadcaster = new EventBroadcaster({ client: eventClient(server) });
    const recorder = broadcaster.newRecorder({ component: 'settings-controller' });
    for (let i = 0; i < 3; i++) {
      recorder.event(cm, 'Normal', 'Synced', 'settings synced');
      await broadcaster.flush();
    }

    const list = await request<KubeList<Event>>(
      'GET',
      `${server}/api/v1/namespaces/default/events?fieldSelector=${encodeURIComponent('involvedObject.name=settings,reason=Synced')}`,
    );
    assert.equal(list.items.length, 1);
    const event = list.items[0] as Event;
    assert.equal(event.count, 3);
    assert.equal(event.type, 'Normal');
    assert.equal(event.message, 'settings synced');
    assert.equal(event.source?.component, 'settings-controller');
    assert.equal(event.reportingComponent, 'settings-controller');
    assert.deepEqual(event.involvedObject, {
      kind: 'ConfigMap',
      namespace: 'default',
      name: 'settings',
      uid: cm.metadata.uid,
      apiVersion: 'v1',
      resourceVersion: cm.metadata.resourceVersion,
    });
    assert.match(event.firstTimestamp ?? '', /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/);
    assert.ok((event.lastTimestamp ?? '') >= (event.firstTimestamp ?? ''));
  });
});
