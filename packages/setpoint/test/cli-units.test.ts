/**
 * The client verbs' building blocks on their own: Go tabwriter alignment (what kubectl prints
 * through), kubectl's ages, argument forms, YAML/JSON output, manifest parsing.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { humanDuration } from '../src/cli/duration.js';
import { CliError } from '../src/cli/io.js';
import { parseManifests } from '../src/cli/manifests.js';
import { toJson, toYaml } from '../src/cli/output.js';
import { parseObjectArgs } from '../src/cli/resources.js';
import { alignColumns, DESCRIBE_LAYOUT, GET_LAYOUT, TabWriter } from '../src/cli/tabwriter.js';

describe('TabWriter (Go text/tabwriter semantics)', () => {
  it('pads each column to its widest cell plus padding, at least minWidth, never the last cell', () => {
    assert.equal(alignColumns('a\tb\tc\naaa\tbbbb\tc\n', GET_LAYOUT), 'a     b      c\naaa   bbbb   c\n');
    assert.equal(alignColumns('NAME\tAGE\nx\t1s\n', { minWidth: 0, padding: 2 }), 'NAME  AGE\nx     1s\n');
    assert.equal(alignColumns('a\t\n', GET_LAYOUT), 'a     \n', 'a trailing empty cell pads the one before it');
  });

  it('aligns column blocks: consecutive lines with a cell in the column; a line without one ends the block', () => {
    const text = 'Name:\tweb\nNamespace:\tdefault\nData:\n  key:\tvalue\n  longer-key:\tv\nKind:\tConfigMap\nEvents:\n';
    assert.equal(
      alignColumns(text, DESCRIBE_LAYOUT),
      'Name:       web\nNamespace:  default\nData:\n  key:         value\n  longer-key:  v\nKind:          ConfigMap\nEvents:\n',
    );
  });

  it('remembers widths across flushes, growing only, so watch rows stay aligned', () => {
    const w = new TabWriter(GET_LAYOUT);
    w.write('NAME\tAGE\nshort\t1s\n');
    assert.equal(w.flush(), 'NAME    AGE\nshort   1s\n');
    w.write('x\t2s\n');
    assert.equal(w.flush(), 'x       2s\n');
    w.write('much-longer-name\t3s\n');
    assert.equal(w.flush(), 'much-longer-name   3s\n');
    w.write('y\t4s\n');
    assert.equal(w.flush(), 'y                  4s\n');
  });
});

describe('humanDuration (kubectl ages)', () => {
  it('has two or three significant figures, as apimachinery words it', () => {
    const s = 1000;
    const cases: Array<[number, string]> = [
      [-500, '0s'],
      [-2 * s, '<invalid>'],
      [0, '0s'],
      [119 * s, '119s'],
      [125 * s, '2m5s'],
      [180 * s, '3m'],
      [600 * s, '10m'],
      [179 * 60 * s, '179m'],
      [3 * 3600 * s, '3h'],
      [(3 * 3600 + 300) * s, '3h5m'],
      [47 * 3600 * s, '47h'],
      [50 * 3600 * s, '2d2h'],
      [9 * 86400 * s, '9d'],
      [730 * 86400 * s, '2y'],
      [(3 * 365 + 10) * 86400 * s, '3y10d'],
      [9 * 365 * 86400 * s, '9y'],
    ];
    for (const [ms, text] of cases) assert.equal(humanDuration(ms), text, String(ms));
  });
});

describe('parseObjectArgs', () => {
  it('reads TYPE NAME… and TYPE/NAME…, and refuses a mix', () => {
    assert.deepEqual(parseObjectArgs(['pods,deploy', 'a', 'b'], 'get'), { form: 'types', types: 'pods,deploy', names: ['a', 'b'] });
    assert.deepEqual(parseObjectArgs(['pod/a', 'deploy/b'], 'get'), { form: 'pairs', pairs: [{ type: 'pod', name: 'a' }, { type: 'deploy', name: 'b' }] });
    assert.throws(() => parseObjectArgs(['pods', 'pod/a'], 'get'), (err) => err instanceof CliError && /resource\/name form/.test(err.message));
    assert.throws(() => parseObjectArgs([], 'describe'), /you must specify the type of resource to describe/);
  });
});

describe('output', () => {
  it('prints YAML as kubectl does: keys sorted, sequences flush, ambiguous strings quoted', () => {
    assert.equal(
      toYaml({ metadata: { name: 'x', creationTimestamp: '2024-01-02T03:04:05Z' }, apiVersion: 'v1', data: { on: 'yes', n: '0644', list: ['a'] } }),
      'apiVersion: v1\ndata:\n  list:\n  - a\n  "n": "0644"\n  "on": "yes"\nmetadata:\n  creationTimestamp: "2024-01-02T03:04:05Z"\n  name: x\n',
    );
  });

  it('prints JSON with sorted keys and four spaces', () => {
    assert.equal(toJson({ b: 1, a: { d: [], c: {} } }), '{\n    "a": {\n        "c": {},\n        "d": []\n    },\n    "b": 1\n}\n');
  });
});

describe('parseManifests', () => {
  it('expands Lists, skips empty documents, numbers documents in problems', () => {
    const problems: string[] = [];
    const out = parseManifests(
      '---\napiVersion: v1\nkind: List\nitems:\n- {apiVersion: v1, kind: ConfigMap, metadata: {name: a}}\n- {kind: ConfigMap}\n---\n---\napiVersion: v1\nkind: Secret\nmetadata: {name: s}\nstringData: {mode: 0600}\n',
      'f.yaml',
      problems,
    );
    assert.deepEqual(out.map((m) => [m.document, m.object.kind, m.object.metadata.name]), [[1, 'ConfigMap', 'a'], [3, 'Secret', 's']]);
    assert.deepEqual((out[1]!.object as unknown as { stringData: unknown }).stringData, { mode: 384 });
    assert.deepEqual(problems, ['f.yaml: document 1: items[1]: ConfigMap: apiVersion is required']);
  });
});
