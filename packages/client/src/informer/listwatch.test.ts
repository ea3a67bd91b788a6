/**
 * The ListWatch conformance suite against every ListWatch: the client's ResourceClient and the
 * tests' fetchListWatch, both against one in-process control plane (a namespace per test; a small
 * watch cache window, so a compacted resourceVersion is served from the store and answered 410),
 * and the scripted FakeListWatch the informer tests use, its writes played as a server would send
 * them, so that the fake cannot drift from the real thing.
 */
import { after, before } from 'node:test';
import type { ConfigMap } from '@setpoint/api';
import { startControlPlane, type ControlPlane } from '@setpoint/testing';
import type { ListWatch } from '../types.js';
import { listWatchConformance, type OpenedListWatch } from './conformance.js';
import { FakeListWatch } from './fake-listwatch.test.js';
import { fetchListWatch } from './testing-listwatch.js';

let cp: ControlPlane;
before(async () => {
  cp = await startControlPlane({ watchCache: { windowSize: 2 } });
});
after(async () => {
  await cp.stop();
});

let namespaces = 0;

/** A ListWatch of `cp` in a namespace of its own, written through cp.client. */
async function overHttp(lw: (cp: ControlPlane) => ListWatch<ConfigMap>): Promise<OpenedListWatch> {
  const namespace = `lw-${++namespaces}`;
  await cp.client.namespaces().create({ metadata: { name: namespace } });
  const cms = cp.client.configMaps();
  const update = async (name: string, data: Record<string, string>) => cms.update({ ...(await cms.get(name, { namespace })), data });
  return {
    lw: lw(cp),
    namespace,
    create: (name, labels) => cms.create({ metadata: { name, namespace, ...(labels === undefined ? {} : { labels }) } }),
    update,
    remove: async (name) => {
      await cms.delete(name, { namespace });
    },
    async expiredResourceVersion() {
      const old = await cms.create({ metadata: { name: 'old', namespace } });
      for (let i = 0; i < 4; i++) await update('old', { i: String(i) });
      await cp.store.compact(await cp.store.currentRevision());
      return old.metadata.resourceVersion ?? '';
    },
    dispose: async () => {
      await cp.client.namespaces().delete(namespace);
    },
  };
}

listWatchConformance({ name: 'ResourceClient', capabilities: { server: true }, open: () => overHttp((cp) => cp.client.configMaps()) });

listWatchConformance({ name: 'fetchListWatch', capabilities: { server: true }, open: () => overHttp((cp) => fetchListWatch<ConfigMap>(cp.url, cp.client.configMaps().ref)) });

listWatchConformance({
  name: 'FakeListWatch',
  capabilities: { server: false },
  async open() {
    const namespace = 'default';
    const lw = new FakeListWatch<ConfigMap>();
    let rv = Number(lw.resourceVersion);
    /** Stores `obj` at the next resourceVersion and sends `type` to every open watch, as a server would. */
    const write = (type: 'ADDED' | 'MODIFIED' | 'DELETED', obj: ConfigMap): ConfigMap => {
      const stored: ConfigMap = { ...obj, metadata: { ...obj.metadata, resourceVersion: String(++rv) } };
      lw.resourceVersion = String(rv);
      const rest = lw.objects.filter((o) => o.metadata.name !== obj.metadata.name);
      lw.objects = type === 'DELETED' ? rest : [...rest, stored];
      for (const w of lw.watches) if (!w.closed) w.send(type, stored);
      return stored;
    };
    const get = (name: string) => {
      const found = lw.objects.find((o) => o.metadata.name === name);
      if (found === undefined) throw new Error(`no ConfigMap ${name} in the fake`);
      return found;
    };
    return {
      lw,
      namespace,
      create: async (name, labels) => write('ADDED', { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name, namespace, ...(labels === undefined ? {} : { labels }) } }),
      update: async (name, data) => write('MODIFIED', { ...get(name), data }),
      remove: async (name) => {
        write('DELETED', get(name));
      },
      async expiredResourceVersion() {
        const old = write('ADDED', { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'old', namespace } });
        for (let i = 0; i < 4; i++) write('MODIFIED', { ...get('old'), data: { i: String(i) } });
        lw.compactedResourceVersion = rv;
        return old.metadata.resourceVersion ?? '';
      },
      dispose: async () => {
        for (const w of lw.watches) await w.return();
      },
    };
  },
});
