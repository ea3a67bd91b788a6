import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { ApiError, type KubeObject } from '@setpoint/api';
import { WatchLine } from '../watchcache/cache.js';
import { defaultPrinter } from './printers.js';
import { objectTable, parseIncludeObject, toTable } from './table.js';
import { tableWatchEncoder } from './watch.js';

const NOW = Date.parse('2026-03-01T12:00:00Z');
const cm = (name: string, rv: string): KubeObject => ({
  apiVersion: 'v1',
  kind: 'ConfigMap',
  metadata: { name, namespace: 'default', resourceVersion: rv, creationTimestamp: '2026-03-01T11:00:00Z', labels: { app: 'a' } },
  data: { k: 'v' },
});

describe('toTable', () => {
  it('wraps rows with the list metadata, the columns, and PartialObjectMetadata objects', () => {
    const table = toTable(defaultPrinter, [cm('a', '5'), cm('b', '6')], { resourceVersion: '9', continue: 'tok' }, { version: 'v1', includeObject: 'Metadata', now: NOW });
    assert.equal(table.kind, 'Table');
    assert.equal(table.apiVersion, 'meta.k8s.io/v1');
    assert.deepEqual(table.metadata, { resourceVersion: '9', continue: 'tok' });
    assert.deepEqual(table.columnDefinitions, defaultPrinter.columns);
    assert.deepEqual(table.rows[0], {
      cells: ['a', '60m'],
      object: { kind: 'PartialObjectMetadata', apiVersion: 'meta.k8s.io/v1', metadata: cm('a', '5').metadata },
    });
    assert.equal(table.rows.length, 2);
  });

  it('includeObject=Object carries the object, None nothing; v1beta1 is named so', () => {
    const full = toTable(defaultPrinter, [cm('a', '5')], {}, { version: 'v1beta1', includeObject: 'Object', now: NOW });
    assert.equal(full.apiVersion, 'meta.k8s.io/v1beta1');
    assert.deepEqual(full.rows[0]?.object, cm('a', '5'));
    const none = toTable(defaultPrinter, [cm('a', '5')], {}, { version: 'v1', includeObject: 'None', now: NOW });
    assert.equal('object' in none.rows[0]!, false);
    const partial = toTable(defaultPrinter, [cm('a', '5')], {}, { version: 'v1beta1', includeObject: 'Metadata', now: NOW });
    assert.equal(partial.rows[0]?.object?.apiVersion, 'meta.k8s.io/v1beta1');
  });

  it('an empty list is an empty rows array; noHeaders leaves columnDefinitions null', () => {
    const table = toTable(defaultPrinter, [], { resourceVersion: '3' }, { version: 'v1', includeObject: 'Metadata', now: NOW, noHeaders: true });
    assert.deepEqual(table.rows, []);
    assert.equal(table.columnDefinitions, null);
  });

  it('a single object table carries its resourceVersion', () => {
    assert.deepEqual(objectTable(defaultPrinter, cm('a', '5'), { version: 'v1', includeObject: 'None', now: NOW }).metadata, { resourceVersion: '5' });
  });
});

describe('parseIncludeObject', () => {
  it('defaults to Metadata and refuses unknown values with 400', () => {
    assert.equal(parseIncludeObject(undefined), 'Metadata');
    assert.equal(parseIncludeObject(''), 'Metadata');
    assert.equal(parseIncludeObject('Object'), 'Object');
    assert.equal(parseIncludeObject('None'), 'None');
    assert.throws(
      () => parseIncludeObject('object'),
      (err: unknown) => err instanceof ApiError && err.code === 400 && err.message === 'unrecognized includeObject value: "object"',
    );
  });
});

describe('tableWatchEncoder', () => {
  it('sends the columns with the first event only, one row per event', () => {
    const encode = tableWatchEncoder(defaultPrinter, { version: 'v1', includeObject: 'Metadata', now: () => NOW });
    const first = JSON.parse(encode(new WatchLine('ADDED', cm('a', '5'))));
    assert.equal(first.type, 'ADDED');
    assert.equal(first.object.kind, 'Table');
    assert.deepEqual(first.object.metadata, { resourceVersion: '5' });
    assert.equal(first.object.columnDefinitions.length, 2);
    assert.deepEqual(first.object.rows[0].cells, ['a', '60m']);
    const second = JSON.parse(encode(new WatchLine('DELETED', cm('a', '7'))));
    assert.equal(second.type, 'DELETED');
    assert.equal(second.object.columnDefinitions, null);
    assert.deepEqual(second.object.rows[0].object.metadata.resourceVersion, '7');
  });

  it('a BOOKMARK becomes a Table without rows; an ERROR Status passes unchanged', () => {
    const encode = tableWatchEncoder(defaultPrinter, { version: 'v1', includeObject: 'Metadata', now: () => NOW });
    const bookmark = JSON.parse(encode(new WatchLine('BOOKMARK', { kind: 'ConfigMap', apiVersion: 'v1', metadata: { resourceVersion: '12' } })));
    assert.deepEqual(bookmark.object.metadata, { resourceVersion: '12' });
    assert.deepEqual(bookmark.object.rows, []);
    const status = { kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Failure', code: 410, reason: 'Expired' };
    assert.deepEqual(JSON.parse(encode(new WatchLine('ERROR', status))), { type: 'ERROR', object: status });
  });
});
