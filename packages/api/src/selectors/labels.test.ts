import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import {
  LABEL_OPERATORS,
  LabelsSelector,
  labelRequirement,
  labelSelectorAsSelector,
  labelSelectorFromSet,
  parseLabelSelector,
  type LabelOperator,
  type LabelRequirement,
  type LabelSelector,
  type Labels,
} from './labels.js';
import { LABEL_VALUE_MSG, NAME_PART_MSG, SUPPORTED, badRequest } from './labels.test-support.js';

describe('parseLabelSelector: parsing and canonical printing', () => {
  // [input, canonical string]
  const cases: [string, string][] = [
    ['', ''],
    ['   \t\n', ''],
    ['a=b', 'a=b'],
    ['a==b', 'a==b'],
    ['a!=b', 'a!=b'],
    ['a in (x,y)', 'a in (x,y)'],
    ['a notin (z)', 'a notin (z)'],
    ['a', 'a'],
    ['!a', '!a'],
    ['a>1', 'a>1'],
    ['a<10', 'a<10'],
    ['a=b,c==d,e!=f,g in (x,y),h notin (z),i,!j', 'a=b,c==d,e!=f,g in (x,y),h notin (z),i,!j'],
    // Kubernetes' own good strings (selector_test.go): String() is the input without spaces.
    ['x=a,y=b,z=c', 'x=a,y=b,z=c'],
    ['x!=a,y=b', 'x!=a,y=b'],
    ['x=', 'x='],
    ['x= ', 'x='],
    ['x=,z= ', 'x=,z='],
    ['x= ,z= ', 'x=,z='],
    ['x>1,z<5', 'x>1,z<5'],
    // Sorted by key; stable for requirements on one key.
    ['z=1,a=2,m', 'a=2,m,z=1'],
    ['b!=2,a=1,b=1', 'a=1,b!=2,b=1'],
    // Set values sorted and deduplicated; empty values as Kubernetes reads them.
    ['a in (z,y,x,y)', 'a in (x,y,z)'],
    ['x in (foo,,baz),y,z notin ()', 'x in (,baz,foo),y,z notin ()'],
    ['a in (,)', 'a in ()'],
    ['a in (,x)', 'a in (,x)'],
    ['a in (x,)', 'a in (,x)'],
    ['a in (x,,y)', 'a in (,x,y)'],
    // Whitespace between any tokens; none needed around symbols.
    ['  a  =  b  ,  c  in  (  x  ,  y  )  ', 'a=b,c in (x,y)'],
    ['a\tin\r\n(x)', 'a in (x)'],
    ['a in(x),b notin(y)', 'a in (x),b notin (y)'],
    ['a,!b', 'a,!b'],
    ['! a', '!a'],
    // "in" and "notin" are identifiers where a key or value is expected.
    ['in in (in)', 'in in (in)'],
    ['notin=in', 'notin=in'],
    ['in,!notin', 'in,!notin'],
    ['a=notin', 'a=notin'],
    // Qualified keys and full-width values.
    ['example.com/app=Web_1.x', 'example.com/app=Web_1.x'],
    [`k=${'v'.repeat(63)}`, `k=${'v'.repeat(63)}`],
    ['n>9223372036854775807', 'n>9223372036854775807'],
  ];
  for (const [input, canonical] of cases) {
    it(`${JSON.stringify(input)} → ${JSON.stringify(canonical)}`, () => {
      const s = parseLabelSelector(input);
      assert.equal(s.toString(), canonical);
      assert.equal(String(s), canonical);
      assert.ok(parseLabelSelector(canonical).equals(s), 'parse(print(s)) equals s');
      assert.equal(parseLabelSelector(canonical).toString(), canonical);
    });
  }

  it('gives the requirements, frozen and sorted', () => {
    const s = parseLabelSelector('b in (y,x),a,!c,d=1');
    assert.deepEqual(s.requirements(), [
      { key: 'a', operator: 'exists', values: [] },
      { key: 'b', operator: 'in', values: ['x', 'y'] },
      { key: 'c', operator: '!', values: [] },
      { key: 'd', operator: '=', values: ['1'] },
    ]);
    assert.equal(Object.isFrozen(s), true);
    assert.equal(Object.isFrozen(s.requirements()), true);
    assert.equal(s.requirements().every((r) => Object.isFrozen(r) && Object.isFrozen(r.values)), true);
  });

  it('is deterministic regardless of input order', () => {
    assert.equal(parseLabelSelector('x=a,a=x').equals(parseLabelSelector('a=x,x=a')), true);
  });

  it('gives everything() for an empty string', () => {
    const s = parseLabelSelector('');
    assert.equal(s.isEmpty(), true);
    assert.equal(s.equals(LabelsSelector.everything()), true);
  });
});

describe('parseLabelSelector: errors', () => {
  const cases: [string, string][] = [
    // Top level.
    [',a', "found ',', expected: !, identifier, or 'end of string'"],
    ['=a', "found '=', expected: !, identifier, or 'end of string'"],
    ['(', "found '(', expected: !, identifier, or 'end of string'"],
    ['a,', "found '', expected: identifier after ','"],
    ['a,,b', "found ',', expected: identifier after ','"],
    ['a=b c', "found 'c', expected: ',' or 'end of string'"],
    ['x==a==b', "found '==', expected: ',' or 'end of string'"],
    ['!x=a', "found '=', expected: ',' or 'end of string'"],
    ['a in (x))', "found ')', expected: ',' or 'end of string'"],
    // Keys.
    ['!', "unable to parse requirement: found '', expected: identifier"],
    ['!,a', "unable to parse requirement: found ',', expected: identifier"],
    ['a@b', `unable to parse requirement: <nil>: Invalid value: "a@b": ${NAME_PART_MSG}`],
    [
      '/a=b',
      'unable to parse requirement: <nil>: Invalid value: "/a": prefix part must be non-empty',
    ],
    [
      'a/=b',
      `unable to parse requirement: <nil>: Invalid value: "a/": name part must be non-empty; ${NAME_PART_MSG}`,
    ],
    // Operators.
    ['a b', 'unable to parse requirement: found \'b\', expected: in, notin, =, ==, !=, gt, lt'],
    ['a!', "unable to parse requirement: found '!', expected: in, notin, =, ==, !=, gt, lt"],
    ['a(', "unable to parse requirement: found '(', expected: in, notin, =, ==, !=, gt, lt"],
    ['a exists', "unable to parse requirement: found 'exists', expected: in, notin, =, ==, !=, gt, lt"],
    ['x=a||y=b', `unable to parse requirement: values[0][x]: Invalid value: "a||y": ${LABEL_VALUE_MSG}`],
    // Sets.
    ['a in b', "unable to parse requirement: found 'b' expected: '('"],
    ['a in', "unable to parse requirement: found '' expected: '('"],
    ['a in (', "unable to parse requirement: found '', expected: ',', ')' or identifier"],
    ['a in (=', "unable to parse requirement: found '=', expected: ',', ')' or identifier"],
    ['a in (x y)', "unable to parse requirement: found 'y', expected: ',' or ')'"],
    ['a in (x', "unable to parse requirement: found '', expected: ',' or ')'"],
    ['a in (x,', "unable to parse requirement: found '', expected: ',', or identifier"],
    ['a notin (x,=)', "unable to parse requirement: found '=', expected: ',', or identifier"],
    // Exact values.
    ['a=(', "unable to parse requirement: found '(', expected: identifier"],
    ['a!=!', "unable to parse requirement: found '!', expected: identifier"],
    ['a=-b', `unable to parse requirement: values[0][a]: Invalid value: "-b": ${LABEL_VALUE_MSG}`],
    [
      `a=${'v'.repeat(64)}`,
      `unable to parse requirement: values[0][a]: Invalid value: "${'v'.repeat(64)}": must be no more than 63 characters`,
    ],
    [
      'a in (b@,c@)',
      `unable to parse requirement: [values[0][a]: Invalid value: "b@": ${LABEL_VALUE_MSG}, values[1][a]: Invalid value: "c@": ${LABEL_VALUE_MSG}]`,
    ],
    // Integers.
    ['x<a', `unable to parse requirement: values[0]: Invalid value: "a": for 'Gt', 'Lt' operators, the value must be an integer`],
    [
      'x>9223372036854775808',
      `unable to parse requirement: values[0]: Invalid value: "9223372036854775808": for 'Gt', 'Lt' operators, the value must be an integer`,
    ],
    [
      'x>-1',
      `unable to parse requirement: values[0][x]: Invalid value: "-1": ${LABEL_VALUE_MSG}`,
    ],
  ];
  for (const [input, message] of cases) {
    it(JSON.stringify(input), () => {
      assert.throws(() => parseLabelSelector(input), badRequest(message));
    });
  }
});

describe('LabelsSelector.matches', () => {
  // [selector, labels, matches]
  const cases: [string, Labels, boolean][] = [
    ['', {}, true],
    ['', { x: 'y' }, true],
    ['x=y', { x: 'y' }, true],
    ['x==y', { x: 'y' }, true],
    ['x=y', { x: 'z' }, false],
    ['x=z', {}, false],
    ['x=', { x: '' }, true],
    ['x=', {}, false],
    ['x=y,z=w', { x: 'y', z: 'w' }, true],
    ['x=y,z=w', { x: 'w', z: 'w' }, false],
    ['x!=y', { x: 'z' }, true],
    ['x!=y', { x: 'y' }, false],
    ['x!=y', {}, true],
    ['x!=', {}, true],
    ['x!=', { x: '' }, false],
    ['x!=y,z!=w', { x: 'z', z: 'a' }, true],
    ['x!=y,z!=w', { x: 'z', z: 'w' }, false],
    ['x in (a,b)', { x: 'a' }, true],
    ['x in (a,b)', { x: 'b' }, true],
    ['x in (a,b)', { x: 'c' }, false],
    ['x in (a,b)', {}, false],
    ['x in ()', { x: '' }, true],
    ['x in ()', {}, false],
    ['x notin (a,b)', { x: 'c' }, true],
    ['x notin (a,b)', { x: 'a' }, false],
    ['x notin (a,b)', {}, true],
    ['x notin ()', { x: '' }, false],
    ['x', { x: '' }, true],
    ['x', { x: 'z' }, true],
    ['x', { y: 'z' }, false],
    ['!x', { y: 'z' }, true],
    ['!x', { x: '' }, false],
    ['x>1', { x: '2' }, true],
    ['x>1', { x: '1' }, false],
    ['x>1', { x: '0' }, false],
    ['x>1', { x: 'two' }, false],
    ['x>1', {}, false],
    ['x<1', { x: '0' }, true],
    ['x<1', { x: '-5' }, true],
    ['x<1', { x: '+0' }, true],
    ['x<1', { x: '2' }, false],
    ['x<1', {}, false],
    ['x>9223372036854775806', { x: '9223372036854775807' }, true],
    ['x<1', { x: '-9223372036854775809' }, false],
    ['notin=in', { notin: 'in' }, true],
    ['foo=bar,baz=blah', { foo: 'bar', baz: 'blah' }, true],
    ['foo=bar,baz!=blah', { foo: 'bar', baz: 'blah' }, false],
    ['foo in (bar,x),!qux,baz', { foo: 'bar', baz: '' }, true],
    // Only own properties are labels.
    ['constructor', {}, false],
    ['!toString', {}, true],
    ['hasOwnProperty!=x', {}, true],
  ];
  for (const [selector, labels, want] of cases) {
    it(`${JSON.stringify(selector)} on ${JSON.stringify(labels)} → ${want}`, () => {
      assert.equal(parseLabelSelector(selector).matches(labels), want);
    });
  }

  it('nothing() matches nothing, everything() everything', () => {
    assert.equal(LabelsSelector.nothing().matches({}), false);
    assert.equal(LabelsSelector.nothing().matches({ a: 'b' }), false);
    assert.equal(LabelsSelector.everything().matches({}), true);
    assert.equal(LabelsSelector.everything().matches({ a: 'b' }), true);
  });
});

describe('LabelsSelector: everything, nothing, exact matches', () => {
  it('everything() and nothing() differ though both print ""', () => {
    const all = LabelsSelector.everything();
    const none = LabelsSelector.nothing();
    assert.equal(all.toString(), '');
    assert.equal(none.toString(), '');
    assert.equal(all.isEmpty(), true);
    assert.equal(none.isEmpty(), false);
    assert.equal(all.matchesNothing(), false);
    assert.equal(none.matchesNothing(), true);
    assert.equal(all.equals(none), false);
    assert.deepEqual(none.requirements(), []);
    assert.equal(none.add(labelRequirement('a', 'exists')), none);
    assert.equal(parseLabelSelector('a').isEmpty(), false);
  });

  const exact: [string, string, string | undefined][] = [
    ['a=b', 'a', 'b'],
    ['a==b', 'a', 'b'],
    ['a in (b)', 'a', 'b'],
    ['a in (b,c)', 'a', undefined],
    ['a!=b', 'a', undefined],
    ['a', 'a', undefined],
    ['a=b', 'c', undefined],
    ['a=', 'a', ''],
    ['a in (b),a=c', 'a', 'b'],
  ];
  for (const [selector, key, want] of exact) {
    it(`requiresExactMatch(${key}) of ${JSON.stringify(selector)} is ${String(want)}`, () => {
      assert.equal(parseLabelSelector(selector).requiresExactMatch(key), want);
    });
  }

  it('equals() tells apart selectors that differ in a key, an operator, a value or a requirement', () => {
    const s = parseLabelSelector('a=b,c in (x,y)');
    assert.equal(s.equals(parseLabelSelector('c in (y,x),a=b')), true);
    const others = ['a=b', 'a=b,c in (x,y),d', 'a=b,z in (x,y)', 'a=b,c notin (x,y)', 'a=b,c in (x)', 'a=b,c in (x,y,z)', 'a=b,c in (x,z)', 'a==b,c in (x,y)', 'a!=b,c in (x,y)', 'a=x,c in (x,y)', 'z=b,c in (x,y)', ''];
    for (const other of others) {
      assert.equal(s.equals(parseLabelSelector(other)), false, other);
      assert.equal(parseLabelSelector(other).equals(s), false, `${other} (reversed)`);
    }
    assert.equal(parseLabelSelector('a>1').equals(parseLabelSelector('a<1')), false);
    assert.equal(parseLabelSelector('a').equals(parseLabelSelector('!a')), false);
    assert.equal(LabelsSelector.nothing().equals(LabelsSelector.everything()), false);
    assert.equal(LabelsSelector.nothing().equals(LabelsSelector.nothing()), true);
  });
});

describe('labelRequirement and add', () => {
  it('builds and sorts requirements', () => {
    const s = LabelsSelector.everything().add(labelRequirement('b', 'in', ['y', 'x', 'x']), labelRequirement('a', '!'));
    assert.equal(s.toString(), '!a,b in (x,y)');
    assert.equal(s.equals(parseLabelSelector('b in (x,y),!a')), true);
    // add keeps the receiver unchanged.
    const t = s.add(labelRequirement('a', '=', ['1']));
    assert.equal(s.toString(), '!a,b in (x,y)');
    assert.equal(t.toString(), '!a,a=1,b in (x,y)');
  });

  it('checks requirements it did not make', () => {
    const handMade: LabelRequirement = { key: 'a', operator: 'notin', values: ['z', 'y'] };
    assert.equal(LabelsSelector.everything().add(handMade).toString(), 'a notin (y,z)');
    assert.throws(
      () => LabelsSelector.everything().add({ key: 'a', operator: 'in', values: [] }),
      badRequest("values: Invalid value: []: for 'in', 'notin' operators, values set can't be empty"),
    );
  });

  const errors: [string, LabelOperator, string[], string][] = [
    ['a', 'in', [], "values: Invalid value: []: for 'in', 'notin' operators, values set can't be empty"],
    ['a', 'notin', [], "values: Invalid value: []: for 'in', 'notin' operators, values set can't be empty"],
    ['a', '=', [], 'values: Invalid value: []: exact-match compatibility requires one single value'],
    ['a', '==', ['x', 'y'], 'values: Invalid value: ["x","y"]: exact-match compatibility requires one single value'],
    ['a', '!=', ['x', 'y'], 'values: Invalid value: ["x","y"]: exact-match compatibility requires one single value'],
    ['a', 'exists', ['x'], 'values: Invalid value: ["x"]: values set must be empty for exists and does not exist'],
    ['a', '!', ['x'], 'values: Invalid value: ["x"]: values set must be empty for exists and does not exist'],
    ['a', 'gt', [], "values: Invalid value: []: for 'Gt', 'Lt' operators, exactly one value is required"],
    ['a', 'lt', ['x'], `values[0]: Invalid value: "x": for 'Gt', 'Lt' operators, the value must be an integer`],
    [
      'a',
      'gt',
      ['1', '2'],
      `values: Invalid value: ["1","2"]: for 'Gt', 'Lt' operators, exactly one value is required`,
    ],
    ['a', 'like' as LabelOperator, [], `operator: Unsupported value: "like": ${SUPPORTED}`],
    ['', 'exists', [], `key: Invalid value: "": name part must be non-empty; ${NAME_PART_MSG}`],
    ['a', '=', ['b c'], `values[0][a]: Invalid value: "b c": ${LABEL_VALUE_MSG}`],
    [
      'a b',
      'in',
      ['ok', '-'],
      `[key: Invalid value: "a b": ${NAME_PART_MSG}, values[1][a b]: Invalid value: "-": ${LABEL_VALUE_MSG}]`,
    ],
  ];
  for (const [key, op, values, message] of errors) {
    it(`rejects ${key} ${op} ${JSON.stringify(values)}`, () => {
      assert.throws(() => labelRequirement(key, op, values), badRequest(message));
    });
  }

  it('lists every operator', () => {
    assert.deepEqual(LABEL_OPERATORS, ['in', 'notin', '=', '==', '!=', 'gt', 'lt', 'exists', '!']);
  });
});

describe('structured selectors', () => {
  // [metav1.LabelSelector, canonical string]
  const cases: [LabelSelector, string][] = [
    [{}, ''],
    [{ matchLabels: {}, matchExpressions: [] }, ''],
    [{ matchLabels: { b: 'x', a: 'y' } }, 'a=y,b=x'],
    [{ matchLabels: { a: '' } }, 'a='],
    [{ matchExpressions: [{ key: 'a', operator: 'In', values: ['z', 'y'] }] }, 'a in (y,z)'],
    [{ matchExpressions: [{ key: 'a', operator: 'NotIn', values: [''] }] }, 'a notin ()'],
    [{ matchExpressions: [{ key: 'a', operator: 'Exists' }] }, 'a'],
    [{ matchExpressions: [{ key: 'a', operator: 'Exists', values: [] }] }, 'a'],
    [{ matchExpressions: [{ key: 'a', operator: 'DoesNotExist' }] }, '!a'],
    [
      {
        matchLabels: { app: 'web', tier: 'front' },
        matchExpressions: [
          { key: 'env', operator: 'NotIn', values: ['dev'] },
          { key: 'app', operator: 'Exists' },
        ],
      },
      'app=web,app,env notin (dev),tier=front',
    ],
  ];
  for (const [structured, canonical] of cases) {
    it(`${JSON.stringify(structured)} → ${JSON.stringify(canonical)}`, () => {
      const s = labelSelectorAsSelector(structured);
      assert.equal(s.toString(), canonical);
      assert.equal(s.equals(parseLabelSelector(canonical)), true);
      assert.ok(labelSelectorAsSelector(s.toLabelSelector()).equals(s), 'structured round trip');
    });
  }

  it('null and undefined match nothing; {} matches everything', () => {
    assert.equal(labelSelectorAsSelector(null).matchesNothing(), true);
    assert.equal(labelSelectorAsSelector(undefined).matchesNothing(), true);
    assert.equal(labelSelectorAsSelector(null).matches({}), false);
    assert.equal(labelSelectorAsSelector({}).isEmpty(), true);
    assert.equal(labelSelectorAsSelector({}).matches({ any: 'thing' }), true);
  });

  it('matches like its string form', () => {
    const s = labelSelectorAsSelector({
      matchLabels: { app: 'web' },
      matchExpressions: [
        { key: 'env', operator: 'NotIn', values: ['dev'] },
        { key: 'canary', operator: 'DoesNotExist' },
      ],
    });
    assert.equal(s.matches({ app: 'web' }), true);
    assert.equal(s.matches({ app: 'web', env: 'prod' }), true);
    assert.equal(s.matches({ app: 'web', env: 'dev' }), false);
    assert.equal(s.matches({ app: 'web', canary: 'true' }), false);
    assert.equal(s.matches({ env: 'prod' }), false);
  });

  const errors: [LabelSelector, string][] = [
    [{ matchExpressions: [{ key: 'a', operator: 'In' }] }, "values: Invalid value: null: for 'in', 'notin' operators, values set can't be empty"],
    [
      { matchExpressions: [{ key: 'a', operator: 'NotIn', values: [] }] },
      "values: Invalid value: null: for 'in', 'notin' operators, values set can't be empty",
    ],
    [
      { matchExpressions: [{ key: 'a', operator: 'Exists', values: ['x'] }] },
      'values: Invalid value: ["x"]: values set must be empty for exists and does not exist',
    ],
    [
      { matchExpressions: [{ key: 'a', operator: 'DoesNotExist', values: ['x', 'y'] }] },
      'values: Invalid value: ["x","y"]: values set must be empty for exists and does not exist',
    ],
    [{ matchExpressions: [{ key: 'a', operator: 'Foo' as 'In' }] }, '"Foo" is not a valid label selector operator'],
    [{ matchExpressions: [{ key: 'a', operator: 'in' as 'In', values: ['x'] }] }, '"in" is not a valid label selector operator'],
    [{ matchLabels: { 'a b': 'x' } }, `key: Invalid value: "a b": ${NAME_PART_MSG}`],
    [{ matchLabels: { a: 'x y' } }, `values[0][a]: Invalid value: "x y": ${LABEL_VALUE_MSG}`],
    [
      { matchExpressions: [{ key: 'a', operator: 'In', values: ['ok', 'not ok'] }] },
      `values[1][a]: Invalid value: "not ok": ${LABEL_VALUE_MSG}`,
    ],
  ];
  for (const [structured, message] of errors) {
    it(`rejects ${JSON.stringify(structured)}`, () => {
      assert.throws(() => labelSelectorAsSelector(structured), badRequest(message));
    });
  }

  // [string form, structured form]
  const back: [string, LabelSelector | null][] = [
    ['', {}],
    ['a=b,c==d', { matchLabels: { a: 'b', c: 'd' } }],
    ['a=1,a=2', { matchLabels: { a: '2' } }],
    [
      'a in (x,y),b notin (z),c,!d',
      {
        matchExpressions: [
          { key: 'a', operator: 'In', values: ['x', 'y'] },
          { key: 'b', operator: 'NotIn', values: ['z'] },
          { key: 'c', operator: 'Exists' },
          { key: 'd', operator: 'DoesNotExist' },
        ],
      },
    ],
  ];
  for (const [selector, structured] of back) {
    it(`${JSON.stringify(selector)}.toLabelSelector()`, () => {
      assert.deepEqual(parseLabelSelector(selector).toLabelSelector(), structured);
    });
  }
  it('toLabelSelector() of nothing() is null', () => {
    assert.equal(LabelsSelector.nothing().toLabelSelector(), null);
  });
  const unsayable: [string, string][] = [
    ['a!=b', '"!=" is not a valid label selector operator'],
    ['a>1', '"gt" isn\'t supported in label selectors'],
    ['a<1', '"lt" isn\'t supported in label selectors'],
  ];
  for (const [selector, message] of unsayable) {
    it(`${JSON.stringify(selector)}.toLabelSelector() throws`, () => {
      assert.throws(() => parseLabelSelector(selector).toLabelSelector(), badRequest(message));
    });
  }
});

describe('labelSelectorFromSet', () => {
  it('requires each label', () => {
    const s = labelSelectorFromSet({ tier: 'front', app: 'web' });
    assert.equal(s.toString(), 'app=web,tier=front');
    assert.equal(s.matches({ app: 'web', tier: 'front', extra: 'x' }), true);
    assert.equal(s.matches({ app: 'web' }), false);
    assert.equal(labelSelectorFromSet({}).isEmpty(), true);
  });
  it('validates', () => {
    assert.throws(() => labelSelectorFromSet({ a: 'b c' }), badRequest(`values[0][a]: Invalid value: "b c": ${LABEL_VALUE_MSG}`));
  });
});

// ---------------------------------------------------------------------------------------------
// Properties

const dnsLabel = fc.stringMatching(/^[a-z0-9]([-a-z0-9]{0,6}[a-z0-9])?$/);
const prefix = fc.array(dnsLabel, { minLength: 1, maxLength: 3 }).map((parts) => parts.join('.'));
const name = fc.stringMatching(/^[A-Za-z0-9]([-A-Za-z0-9_.]{0,10}[A-Za-z0-9])?$/);
const key = fc.oneof(
  name,
  fc.tuple(prefix, name).map(([p, n]) => `${p}/${n}`),
  fc.constantFrom('in', 'notin', 'exists', 'a'),
);
const value = fc.oneof(fc.constant(''), name, fc.constantFrom('in', 'notin'));
const integer = fc.bigInt({ min: 0n, max: 2n ** 63n - 1n }).map(String);

const requirement: fc.Arbitrary<LabelRequirement> = fc.oneof(
  fc.tuple(key, fc.constantFrom<LabelOperator>('=', '==', '!='), value).map(([k, op, v]) => labelRequirement(k, op, [v])),
  fc
    .tuple(key, fc.constantFrom<LabelOperator>('in', 'notin'), fc.array(value, { minLength: 1, maxLength: 4 }))
    .map(([k, op, vs]) => labelRequirement(k, op, vs)),
  fc.tuple(key, fc.constantFrom<LabelOperator>('exists', '!')).map(([k, op]) => labelRequirement(k, op)),
  fc.tuple(key, fc.constantFrom<LabelOperator>('gt', 'lt'), integer).map(([k, op, v]) => labelRequirement(k, op, [v])),
);
const selector = fc.array(requirement, { maxLength: 6 }).map((reqs) => LabelsSelector.everything().add(...reqs));
const labels = fc.dictionary(fc.oneof(key, fc.constantFrom('a', 'in')), fc.oneof(value, integer), { maxKeys: 5 });

describe('properties', () => {
  it('printing then parsing gives an equal selector', () => {
    fc.assert(
      fc.property(selector, (s) => {
        const printed = s.toString();
        const parsed = parseLabelSelector(printed);
        assert.ok(parsed.equals(s), `${printed} → ${parsed.toString()}`);
        assert.equal(parsed.toString(), printed);
      }),
      { numRuns: 500 },
    );
  });

  it('the parsed selector matches exactly what the original matches', () => {
    fc.assert(
      fc.property(selector, labels, (s, ls) => {
        assert.equal(parseLabelSelector(s.toString()).matches(ls), s.matches(ls));
      }),
      { numRuns: 300 },
    );
  });

  it('the structured form round-trips', () => {
    const structured = fc.record(
      {
        matchLabels: fc.dictionary(key, value, { maxKeys: 3 }),
        matchExpressions: fc.array(
          fc.oneof(
            fc.record({ key, operator: fc.constantFrom('In' as const, 'NotIn' as const), values: fc.array(value, { minLength: 1, maxLength: 3 }) }),
            fc.record({ key, operator: fc.constantFrom('Exists' as const, 'DoesNotExist' as const) }),
          ),
          { maxLength: 3 },
        ),
      },
      { requiredKeys: [] },
    );
    fc.assert(
      fc.property(structured, (ls) => {
        const s = labelSelectorAsSelector(ls);
        assert.equal(labelSelectorAsSelector(s.toLabelSelector()).equals(s), true);
        assert.equal(parseLabelSelector(s.toString()).equals(s), true);
      }),
      { numRuns: 300 },
    );
  });
});
