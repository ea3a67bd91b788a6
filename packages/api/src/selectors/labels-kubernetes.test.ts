/**
 * The label selector of labels.ts in the corners labels.test.ts leaves open, each case as
 * Kubernetes' k8s.io/apimachinery/pkg/labels has it: integer comparison as strconv.ParseInt(s, 10,
 * 64) reads a label value (sign, leading zeros, the int64 range, anything else not an integer);
 * the lexer's longest-match operators; empty values in a set (",," consumes its second comma, so
 * `(x,,)` is an error as in Go); the order of the errors NewRequirement aggregates; the structured
 * form's errors (matchLabels before matchExpressions, keys in order) and its output as a fresh
 * object.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import {
  LabelsSelector,
  labelRequirement,
  labelSelectorAsSelector,
  labelSelectorFromSet,
  parseLabelSelector,
  type LabelOperator,
  type LabelSelector,
  type Labels,
} from './labels.js';
import { LABEL_VALUE_MSG, NAME_PART_MSG, SUPPORTED, badRequest } from './labels.test-support.js';

const NOT_INTEGER = "for 'Gt', 'Lt' operators, the value must be an integer";

describe('gt and lt read label values as Go int64', () => {
  // [selector, labels, matches]
  const cases: [string, Labels, boolean][] = [
    // Strict comparison both ways.
    ['x<1', { x: '1' }, false],
    ['x>1', { x: '1' }, false],
    ['x<2', { x: '1' }, true],
    // Several digits, leading zeros and a '+' sign are integers to ParseInt.
    ['x>5', { x: '10' }, true],
    ['x<10', { x: '9' }, true],
    ['x>6', { x: '007' }, true],
    ['x>007', { x: '8' }, true],
    ['x>007', { x: '7' }, false],
    ['x>4', { x: '+5' }, true],
    ['x<1', { x: '-0' }, true],
    // The int64 range, both ends.
    ['x<0', { x: '-9223372036854775808' }, true],
    ['x<0', { x: '-9223372036854775809' }, false],
    ['x>0', { x: '9223372036854775807' }, true],
    ['x>0', { x: '9223372036854775808' }, false],
    ['x<9223372036854775807', { x: '9223372036854775806' }, true],
    ['x<9223372036854775807', { x: '9223372036854775807' }, false],
  ];
  for (const [selector, labels, want] of cases) {
    it(`${JSON.stringify(selector)} on ${JSON.stringify(labels)} → ${want}`, () => {
      assert.equal(parseLabelSelector(selector).matches(labels), want);
    });
  }

  // Values ParseInt(s, 10, 64) refuses match neither 'gt' nor 'lt', whatever the bound.
  const notIntegers = ['', '+', '-', 'a5', '5a', ' 5', '5 ', '0x10', '1e3', '1.5', '1_000', '5-', '٣', '--5', '+-5'];
  for (const value of notIntegers) {
    it(`${JSON.stringify(value)} is no integer`, () => {
      for (const selector of ['x>0', 'x<1000', 'x<0', 'x>1000']) {
        assert.equal(parseLabelSelector(selector).matches({ x: value }), false, `${selector} on ${JSON.stringify(value)}`);
      }
    });
  }

  it('an inherited label is not there', () => {
    const labels = Object.create({ x: '5' }) as Labels;
    assert.equal(parseLabelSelector('x>1').matches(labels), false);
    assert.equal(parseLabelSelector('x<9').matches(labels), false);
    assert.equal(parseLabelSelector('x notin (5)').matches(labels), true);
    assert.equal(parseLabelSelector('x in (5)').matches(labels), false);
    assert.equal(parseLabelSelector('!x').matches(labels), true);
  });

  it('prints its bound as written and reads it back', () => {
    const s = parseLabelSelector('x>007,y<0');
    assert.equal(s.toString(), 'x>007,y<0');
    assert.equal(parseLabelSelector(s.toString()).equals(s), true);
  });
});

describe('parseLabelSelector: the lexer takes the longest operator', () => {
  // [input, message]
  const errors: [string, string][] = [
    ['a!==b', "unable to parse requirement: found '=', expected: identifier"],
    ['a===b', "unable to parse requirement: found '=', expected: identifier"],
    ['a=!b', "unable to parse requirement: found '!', expected: identifier"],
    ['a<=1', "unable to parse requirement: found '=', expected: identifier"],
    ['a>=1', "unable to parse requirement: found '=', expected: identifier"],
    ['a=>1', "unable to parse requirement: found '>', expected: identifier"],
    ['!!a', "unable to parse requirement: found '!', expected: identifier"],
    ['a=b)', "found ')', expected: ',' or 'end of string'"],
    ['a=b,)', "found ')', expected: identifier after ','"],
    ['a,(', "found '(', expected: identifier after ','"],
    ['!a,', "found '', expected: identifier after ','"],
    ['a in in', "unable to parse requirement: found 'in' expected: '('"],
    ['a in ()x', "found 'x', expected: ',' or 'end of string'"],
    ['x>', `unable to parse requirement: values[0]: Invalid value: "": ${NOT_INTEGER}`],
    ['x<,y', `unable to parse requirement: values[0]: Invalid value: "": ${NOT_INTEGER}`],
    // Values are sorted before they are checked, so the messages number them in sorted order.
    [
      'a in (c@,b@)',
      `unable to parse requirement: [values[0][a]: Invalid value: "b@": ${LABEL_VALUE_MSG}, values[1][a]: Invalid value: "c@": ${LABEL_VALUE_MSG}]`,
    ],
    [
      'a notin (z,c@,y,b@)',
      `unable to parse requirement: [values[0][a]: Invalid value: "b@": ${LABEL_VALUE_MSG}, values[1][a]: Invalid value: "c@": ${LABEL_VALUE_MSG}]`,
    ],
  ];
  for (const [input, message] of errors) {
    it(JSON.stringify(input), () => {
      assert.throws(() => parseLabelSelector(input), badRequest(message));
    });
  }

  const good: [string, string][] = [
    ['a!=b', 'a!=b'],
    ['a==b', 'a==b'],
    ['a != b , c == d', 'a!=b,c==d'],
    ['a=b,!c,d', 'a=b,!c,d'],
    ['x>1 , y<2', 'x>1,y<2'],
    ['a notin (in,notin)', 'a notin (in,notin)'],
  ];
  for (const [input, canonical] of good) {
    it(`${JSON.stringify(input)} → ${JSON.stringify(canonical)}`, () => {
      assert.equal(parseLabelSelector(input).toString(), canonical);
    });
  }
});

describe('parseLabelSelector: empty values in a set', () => {
  // As Kubernetes' parseIdentifiersList reads them: a "," right after "(" or before ")" is an
  // empty value, and ",," is one too, its second comma consumed with it.
  const good: [string, string][] = [
    ['a in (,,,)', 'a in ()'],
    ['a in (x,,,)', 'a in (,x)'],
    ['a in (,,x)', 'a in (,x)'],
    ['a in (x,,,y)', 'a in (,x,y)'],
    ['a notin (x,,y,,z)', 'a notin (,x,y,z)'],
  ];
  for (const [input, canonical] of good) {
    it(`${JSON.stringify(input)} → ${JSON.stringify(canonical)}`, () => {
      assert.equal(parseLabelSelector(input).toString(), canonical);
    });
  }
  const bad = ['a in (,,)', 'a in (x,,)', 'a notin (x,y,,)'];
  for (const input of bad) {
    it(`${JSON.stringify(input)} is an error`, () => {
      assert.throws(() => parseLabelSelector(input), badRequest("unable to parse requirement: found ')', expected: ',', or identifier"));
    });
  }
});

describe('labelRequirement: every error, in NewRequirement order', () => {
  const errors: [string, LabelOperator, string[], string][] = [
    [
      'a',
      'lt',
      ['1', 'x'],
      `[values: Invalid value: ["1","x"]: for 'Gt', 'Lt' operators, exactly one value is required, values[1]: Invalid value: "x": ${NOT_INTEGER}]`,
    ],
    ['a', 'gt', ['x y'], `[values[0]: Invalid value: "x y": ${NOT_INTEGER}, values[0][a]: Invalid value: "x y": ${LABEL_VALUE_MSG}]`],
    ['a', 'gt', ['9223372036854775808'], `values[0]: Invalid value: "9223372036854775808": ${NOT_INTEGER}`],
    ['a', 'gt', ['1.0'], `values[0]: Invalid value: "1.0": ${NOT_INTEGER}`],
    ['a', 'lt', ['0x1'], `values[0]: Invalid value: "0x1": ${NOT_INTEGER}`],
    ['a', 'lt', ['1a'], `values[0]: Invalid value: "1a": ${NOT_INTEGER}`],
    ['a', 'lt', ['a1'], `values[0]: Invalid value: "a1": ${NOT_INTEGER}`],
    ['a', '!=', [], 'values: Invalid value: []: exact-match compatibility requires one single value'],
    ['a', 'exists', ['', ''], 'values: Invalid value: ["",""]: values set must be empty for exists and does not exist'],
    ['a b', 'like' as LabelOperator, [], `[key: Invalid value: "a b": ${NAME_PART_MSG}, operator: Unsupported value: "like": ${SUPPORTED}]`],
    [
      'a/b/c',
      '=',
      ['x'],
      "key: Invalid value: \"a/b/c\": a qualified name must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]') with an optional DNS subdomain prefix and '/' (e.g. 'example.com/MyName')",
    ],
    ['a', 'in', ['ok', 'b c', 'ok'], `values[1][a]: Invalid value: "b c": ${LABEL_VALUE_MSG}`],
  ];
  for (const [key, op, values, message] of errors) {
    it(`rejects ${key} ${op} ${JSON.stringify(values)}`, () => {
      assert.throws(() => labelRequirement(key, op, values), badRequest(message));
    });
  }

  it('accepts the int64 range for gt and lt, leading zeros included', () => {
    assert.deepEqual(labelRequirement('a', 'gt', ['9223372036854775807']).values, ['9223372036854775807']);
    assert.deepEqual(labelRequirement('a', 'lt', ['007']).values, ['007']);
    assert.deepEqual(labelRequirement('a', 'lt', ['0']).values, ['0']);
  });

  it('keeps the values of exact matches as given', () => {
    assert.deepEqual(labelRequirement('a', '!=', ['b']), { key: 'a', operator: '!=', values: ['b'] });
    assert.deepEqual(labelRequirement('a', 'notin', ['b', 'a', 'b']).values, ['a', 'b']);
  });
});

describe('LabelsSelector: nothing(), everything() and add', () => {
  it('nothing() requires no exact match and stays nothing', () => {
    const none = LabelsSelector.nothing();
    assert.equal(none.requiresExactMatch('a'), undefined);
    assert.equal(LabelsSelector.everything().requiresExactMatch('a'), undefined);
    assert.equal(none.add(), none);
    assert.equal(none.add(labelRequirement('a', '=', ['b'])).matchesNothing(), true);
    assert.equal(none.add(labelRequirement('a', '=', ['b'])).toString(), '');
  });

  it('add() of nothing keeps the selector', () => {
    const s = parseLabelSelector('a=b');
    assert.equal(s.add().equals(s), true);
    assert.equal(s.add().toString(), 'a=b');
    assert.equal(LabelsSelector.everything().add().isEmpty(), true);
  });

  it('add() checks every requirement it did not make, and keeps each one', () => {
    assert.throws(
      () => LabelsSelector.everything().add(labelRequirement('a', 'exists'), { key: 'b', operator: '=', values: ['x', 'y'] }),
      badRequest('values: Invalid value: ["x","y"]: exact-match compatibility requires one single value'),
    );
    const s = LabelsSelector.everything().add({ key: 'c', operator: 'in', values: ['y', 'x'] }, labelRequirement('b', 'gt', ['1']));
    assert.equal(s.toString(), 'b>1,c in (x,y)');
    assert.deepEqual(s.requirements()[1], { key: 'c', operator: 'in', values: ['x', 'y'] });
  });
});

describe('labelSelectorFromSet and labelSelectorAsSelector: errors in order', () => {
  it('labelSelectorFromSet reports the first invalid label in key order', () => {
    assert.throws(
      () => labelSelectorFromSet({ b: 'x y', a: '-' }),
      badRequest(`values[0][a]: Invalid value: "-": ${LABEL_VALUE_MSG}`),
    );
    assert.throws(() => labelSelectorFromSet({ 'a b': 'x' }), badRequest(`key: Invalid value: "a b": ${NAME_PART_MSG}`));
  });

  const errors: [LabelSelector, string][] = [
    // matchLabels in key order, then matchExpressions in their order.
    [{ matchLabels: { b: 'x y', a: '-' } }, `values[0][a]: Invalid value: "-": ${LABEL_VALUE_MSG}`],
    [
      { matchLabels: { a: 'x y' }, matchExpressions: [{ key: 'b', operator: 'Foo' as 'In' }] },
      `values[0][a]: Invalid value: "x y": ${LABEL_VALUE_MSG}`,
    ],
    [
      {
        matchExpressions: [
          { key: 'b', operator: 'In' },
          { key: 'a', operator: 'Exists', values: ['x'] },
        ],
      },
      "values: Invalid value: null: for 'in', 'notin' operators, values set can't be empty",
    ],
    // Operators are metav1's own spellings: nothing inherited by an object counts as one.
    [{ matchExpressions: [{ key: 'a', operator: 'toString' as 'In' }] }, '"toString" is not a valid label selector operator'],
    [{ matchExpressions: [{ key: 'a', operator: 'constructor' as 'In', values: ['x'] }] }, '"constructor" is not a valid label selector operator'],
    [{ matchExpressions: [{ key: 'a', operator: 'Gt' as 'In', values: ['1'] }] }, '"Gt" is not a valid label selector operator'],
    // A missing key is the empty key.
    [
      { matchExpressions: [{ operator: 'Exists' } as unknown as { key: string; operator: 'Exists' }] },
      `key: Invalid value: "": name part must be non-empty; ${NAME_PART_MSG}`,
    ],
  ];
  for (const [structured, message] of errors) {
    it(`rejects ${JSON.stringify(structured)}`, () => {
      assert.throws(() => labelSelectorAsSelector(structured), badRequest(message));
    });
  }

  it('only matchLabels, only matchExpressions, or both', () => {
    assert.equal(labelSelectorAsSelector({ matchLabels: { a: 'b' }, matchExpressions: [] }).toString(), 'a=b');
    assert.equal(labelSelectorAsSelector({ matchLabels: {}, matchExpressions: [{ key: 'a', operator: 'Exists' }] }).toString(), 'a');
    assert.equal(labelSelectorAsSelector({ matchLabels: { b: 'x' }, matchExpressions: [{ key: 'a', operator: 'Exists' }] }).toString(), 'a,b=x');
  });
});

describe('toLabelSelector', () => {
  it('gives both parts, fresh each time', () => {
    const s = parseLabelSelector('a==1,b in (y,x),c');
    const first = s.toLabelSelector();
    assert.deepEqual(first, {
      matchLabels: { a: '1' },
      matchExpressions: [
        { key: 'b', operator: 'In', values: ['x', 'y'] },
        { key: 'c', operator: 'Exists' },
      ],
    });
    first!.matchExpressions![0]!.values!.push('z');
    first!.matchLabels!.a = '2';
    assert.equal(s.toString(), 'a==1,b in (x,y),c');
    assert.deepEqual(s.toLabelSelector()!.matchExpressions![0], { key: 'b', operator: 'In', values: ['x', 'y'] });
    assert.deepEqual(parseLabelSelector('a notin (x)').toLabelSelector()!.matchExpressions![0]!.values, ['x']);
    assert.equal(Object.isFrozen(parseLabelSelector('a notin (x)').toLabelSelector()!.matchExpressions![0]!.values), false);
  });

  it('an expression-only selector has no matchLabels, a label-only one no matchExpressions', () => {
    assert.deepEqual(parseLabelSelector('!a').toLabelSelector(), { matchExpressions: [{ key: 'a', operator: 'DoesNotExist' }] });
    assert.deepEqual(parseLabelSelector('a=b').toLabelSelector(), { matchLabels: { a: 'b' } });
  });
});
