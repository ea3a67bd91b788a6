import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { FieldError, KubeObject } from '@setpoint/api';
import { eventResource, normalizeEventTimes, validateEvent } from './event.js';

const QUALIFIED_NAME_PART_MSG =
  "name part must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')";

const messages = (errs: FieldError[]) => errs.map((e) => e.toString());
const event = (namespace: string, fields: Record<string, unknown>): KubeObject => ({ metadata: { name: 'e.1', namespace }, ...fields });
const involved = (namespace?: string) => ({ involvedObject: { kind: 'Pod', name: 'p', ...(namespace === undefined ? {} : { namespace }) } });
const newStyle = { eventTime: '2026-01-01T00:00:00.000000Z', reportingComponent: 'setpoint/scheduler', reportingInstance: 'sched-1', action: 'Binding', reason: 'Scheduled' };

describe('validateEvent', () => {
  const cases: Array<{ name: string; obj: KubeObject; want: string[] }> = [
    { name: 'old style, same namespace', obj: event('default', involved('default')), want: [] },
    { name: 'old style, cluster-scoped object in default', obj: event('default', involved()), want: [] },
    {
      name: 'old style, cluster-scoped object elsewhere',
      obj: event('team-a', involved()),
      want: ['involvedObject.namespace: Invalid value: "": does not match event.namespace'],
    },
    {
      name: 'old style, other namespace',
      obj: event('team-a', involved('team-b')),
      want: ['involvedObject.namespace: Invalid value: "team-b": does not match event.namespace'],
    },
    { name: 'new style, complete', obj: event('team-a', { ...involved('team-a'), ...newStyle }), want: [] },
    { name: 'new style, cluster-scoped object in kube-system', obj: event('kube-system', { ...involved(), ...newStyle }), want: [] },
    {
      name: 'new style, cluster-scoped object elsewhere',
      obj: event('team-a', { ...involved(), ...newStyle }),
      want: ['involvedObject.namespace: Invalid value: "": does not match event.namespace'],
    },
    {
      name: 'new style, reporting fields required',
      obj: event('default', { ...involved('default'), eventTime: newStyle.eventTime }),
      want: [
        'reportingController: Required value',
        'reportingController: Invalid value: "": name part must be non-empty',
        `reportingController: Invalid value: "": ${QUALIFIED_NAME_PART_MSG}`,
        'reportingInstance: Required value',
        'action: Required value',
        'reason: Required value',
      ],
    },
    {
      name: 'new style, length limits',
      obj: event('default', { ...involved('default'), ...newStyle, reportingInstance: 'i'.repeat(129), action: 'a'.repeat(129), reason: 'r'.repeat(129), message: 'm'.repeat(1025) }),
      want: [
        'reportingInstance: Invalid value: "": can have at most 128 characters',
        'action: Invalid value: "": can have at most 128 characters',
        'reason: Invalid value: "": can have at most 128 characters',
        'message: Invalid value: "": can have at most 1024 characters',
      ],
    },
  ];
  for (const c of cases) it(c.name, () => assert.deepEqual(messages(validateEvent(c.obj)), c.want));
});

describe('eventResource', () => {
  const obj = event('default', {
    involvedObject: { apiVersion: 'v1', kind: 'Pod', namespace: 'default', name: 'p', uid: 'u1', resourceVersion: '7', fieldPath: 'spec.containers{c}' },
    reason: 'Pulled',
    reportingComponent: 'kubelet',
    source: { component: 'kubelet', host: 'n1' },
    type: 'Normal',
  });
  const select = (label: string, o: KubeObject = obj) => eventResource.fieldSelectors![label]!(o);

  it('supports the field selectors kubectl describe uses', () => {
    assert.equal(select('involvedObject.kind'), 'Pod');
    assert.equal(select('involvedObject.namespace'), 'default');
    assert.equal(select('involvedObject.name'), 'p');
    assert.equal(select('involvedObject.uid'), 'u1');
    assert.equal(select('involvedObject.apiVersion'), 'v1');
    assert.equal(select('involvedObject.resourceVersion'), '7');
    assert.equal(select('involvedObject.fieldPath'), 'spec.containers{c}');
    assert.equal(select('reason'), 'Pulled');
    assert.equal(select('reportingComponent'), 'kubelet');
    assert.equal(select('source'), 'kubelet');
    assert.equal(select('type'), 'Normal');
  });

  it('falls back to reportingComponent for source', () => {
    assert.equal(select('source', event('default', { involvedObject: {}, reportingComponent: 'setpoint/scheduler' })), 'setpoint/scheduler');
    assert.equal(select('involvedObject.kind', event('default', {})), '');
  });

  it('writes MicroTime with six fractional digits and defaults nothing else', () => {
    const e = event('default', { involvedObject: {}, eventTime: '2026-01-01T00:00:00Z', series: { count: 2, lastObservedTime: '2026-01-01T00:00:01.1234567Z' } });
    normalizeEventTimes(e);
    assert.deepEqual(e, event('default', { involvedObject: {}, eventTime: '2026-01-01T00:00:00.000000Z', series: { count: 2, lastObservedTime: '2026-01-01T00:00:01.123456Z' } }));
    const old = event('default', { involvedObject: {}, firstTimestamp: '2026-01-01T00:00:00Z' });
    normalizeEventTimes(old);
    assert.deepEqual(old, event('default', { involvedObject: {}, firstTimestamp: '2026-01-01T00:00:00Z' }));
  });

  it('names are path segments', () => {
    assert.deepEqual(eventResource.nameValidator!('p.17a2b3c4d5e6f7', false), []);
    assert.deepEqual(eventResource.nameValidator!('a/b', false), ["may not contain '/'"]);
    assert.deepEqual(eventResource.shortNames, ['ev']);
  });
});
