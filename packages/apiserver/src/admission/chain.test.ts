/** The admission chain: its phases and their order, and where a storage runs them in a create and an update. */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { ApiError, isApiError, type KubeObject } from '@setpoint/api';
import { MemoryStore } from '@setpoint/store';
import type { ResourceRequestInfo } from '../http/requestinfo.js';
import { configMapResource } from '../registry/kinds/configmap/configmap.js';
import { ResourceStorage } from '../storage/rest.js';
import { WatchCache } from '../watchcache/cache.js';
import { AdmissionChain, type AdmissionPlugin, type AdmissionRequest, type AdmittedWrite } from './chain.js';
import { serverAdmission } from './plugins.js';

const info: ResourceRequestInfo = {
  kind: 'resource',
  verb: 'create',
  group: '',
  version: 'v1',
  resource: 'configmaps',
  subresource: '',
  namespace: 'default',
  name: '',
  path: '/api/v1/namespaces/default/configmaps',
} as ResourceRequestInfo;

const request = (): AdmissionRequest => ({ info, user: { name: 'alice', groups: [] }, body: () => undefined, annotate: () => undefined });

/** A plugin that records each call as "NAME:PHASE" in `log`, and refuses in `refuse`'s phase. */
function recorder(name: string, log: string[], refuse?: 'request' | 'mutate' | 'validate'): AdmissionPlugin {
  const step = (phase: 'request' | 'mutate' | 'validate') => {
    log.push(`${name}:${phase}`);
    if (refuse === phase) throw ApiError.forbidden({ group: '', resource: 'configmaps' }, 'cm', `${name} says no`);
  };
  return { name, admitRequest: () => step('request'), mutate: () => step('mutate'), validate: () => step('validate') };
}

const configMap = (data: Record<string, string>): KubeObject => ({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'cm', namespace: 'default' }, data });

function storageWith(plugins: AdmissionPlugin[]) {
  const store = new MemoryStore();
  return new ResourceStorage(configMapResource, store, new WatchCache(store, configMapResource), new AdmissionChain(plugins));
}

describe('AdmissionChain', () => {
  it('runs each phase over every plugin in order, and stops at the first refusal', async () => {
    const log: string[] = [];
    const chain = new AdmissionChain([recorder('a', log), recorder('b', log, 'validate'), recorder('c', log)]);
    await chain.admitRequest(request());
    const write = { request: undefined } as unknown as AdmittedWrite;
    await chain.mutate(write);
    await assert.rejects(chain.validate(write), (err: unknown) => isApiError(err) && err.message === 'configmaps "cm" is forbidden: b says no');
    assert.deepEqual(log, ['a:request', 'b:request', 'c:request', 'a:mutate', 'b:mutate', 'c:mutate', 'a:validate', 'b:validate']);
  });

  it('skips plugins without a phase', async () => {
    const log: string[] = [];
    const chain = new AdmissionChain([{ name: 'only-mutate', mutate: () => void log.push('m') }, recorder('r', log)]);
    await chain.admitRequest(request());
    await chain.validate({} as AdmittedWrite);
    assert.deepEqual(log, ['r:request', 'r:validate']);
  });

  it("is kube-apiserver's order of the server's plugins: NamespaceLifecycle first", () => {
    const chain = serverAdmission({ namespaces: () => assert.fail('not read'), authorization: () => undefined, podSecurity: () => undefined });
    assert.deepEqual(chain.names, ['NamespaceLifecycle', 'NodeRestriction', 'RBACEscalation', 'PodSecurity', 'DefaultTolerationSeconds']);
  });
});

describe('a storage runs the chain', () => {
  it('on a create: mutate after defaulting and before validation, validate on the object as it will be stored', async () => {
    const seen: AdmittedWrite[] = [];
    const storage = storageWith([
      {
        name: 'labeler',
        mutate(write) {
          seen.push({ ...write });
          write.obj.metadata.labels = { admitted: 'yes' };
        },
        validate(write) {
          seen.push({ ...write });
          write.warn('looked at it');
          write.warn('looked at it');
        },
      },
    ]);
    const warnings: string[] = [];
    const created = await storage.create('default', configMap({ a: '1' }), { warnings, request: request() });
    assert.deepEqual(created.metadata.labels, { admitted: 'yes' }, 'the mutation is stored');
    assert.deepEqual(warnings, ['looked at it'], 'a warning is added once');
    assert.deepEqual(
      seen.map((w) => [w.operation, w.namespace, w.subresource, w.old, w.request?.user?.name]),
      [
        ['CREATE', 'default', '', undefined, 'alice'],
        ['CREATE', 'default', '', undefined, 'alice'],
      ],
    );
    assert.equal(seen[1]!.obj.metadata.uid, created.metadata.uid, 'validate sees the object with its uid, as stored');
  });

  it('refuses in mutate before validation errors are reported, and in validate after them', async () => {
    const invalid = configMap({ 'not a key!': '1' });
    const early = storageWith([{ name: 'early', mutate: () => assert.fail(new ApiError('Forbidden', 'early')) }]);
    await assert.rejects(early.create('default', invalid), (err: unknown) => isApiError(err) && err.message === 'early');
    let validated = false;
    const late = storageWith([{ name: 'late', validate: () => void (validated = true) }]);
    await assert.rejects(late.create('default', invalid), (err: unknown) => isApiError(err) && err.reason === 'Invalid');
    assert.equal(validated, false, 'an invalid object never reaches validate');
  });

  it('on an update: both phases with the stored object, validate even when nothing changes; in-process writes have no request', async () => {
    const seen: Array<[string, string, string | undefined, boolean]> = [];
    const storage = storageWith([
      {
        name: 'watcher',
        mutate: (w) => void seen.push(['mutate', w.operation, w.old?.metadata.resourceVersion, w.request === undefined]),
        validate: (w) => void seen.push(['validate', w.operation, w.old?.metadata.resourceVersion, w.request === undefined]),
      },
    ]);
    const created = await storage.create('default', configMap({ a: '1' }));
    seen.length = 0;
    const rv = created.metadata.resourceVersion;
    const same = await storage.update('default', 'cm', created, { request: request() });
    assert.equal(same.metadata.resourceVersion, rv, 'nothing was written');
    await storage.update('default', 'cm', { ...created, data: { a: '2' } });
    assert.deepEqual(seen, [
      ['mutate', 'UPDATE', rv, false],
      ['validate', 'UPDATE', rv, false],
      ['mutate', 'UPDATE', rv, true],
      ['validate', 'UPDATE', rv, true],
    ]);
  });

  it('a refusal in validate leaves nothing written', async () => {
    const storage = storageWith([{ name: 'no', validate: (w) => { if (w.operation === 'UPDATE') throw ApiError.forbidden(w.gr, 'cm', 'no'); } }]);
    const created = await storage.create('default', configMap({ a: '1' }));
    await assert.rejects(storage.update('default', 'cm', { ...created, data: { a: '2' } }), (err: unknown) => isApiError(err) && err.reason === 'Forbidden');
    assert.deepEqual((await storage.get('default', 'cm')).data, { a: '1' });
  });
});
