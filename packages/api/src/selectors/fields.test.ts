import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import {
  FieldsSelector,
  escapeFieldValue,
  fieldSelectorFromSet,
  parseFieldSelector,
  unescapeFieldValue,
  type FieldOperator,
  type FieldRequirement,
  type Fields,
} from './fields.js';

function badRequest(message: string): { name: string; reason: string; code: number; message: string } {
  return { name: 'ApiError', reason: 'BadRequest', code: 400, message };
}

describe('escaping', () => {
  // [literal, escaped]
  const cases: [string, string][] = [
    ['', ''],
    ['plain', 'plain'],
    ['a,b', 'a\\,b'],
    ['a=b', 'a\\=b'],
    ['a\\b', 'a\\\\b'],
    ['\\,=', '\\\\\\,\\='],
    ['!= x ==', '!\\= x \\=\\='],
    ['ü😀', 'ü😀'],
  ];
  for (const [literal, escaped] of cases) {
    it(`${JSON.stringify(literal)} ⇄ ${JSON.stringify(escaped)}`, () => {
      assert.equal(escapeFieldValue(literal), escaped);
      assert.equal(unescapeFieldValue(escaped), literal);
    });
  }

  const errors: [string, string][] = [
    ['a\\x', 'invalid field selector: invalid escape sequence: \\x'],
    ['a\\😀', 'invalid field selector: invalid escape sequence: \\😀'],
    ['a\\', 'invalid field selector: invalid escape sequence: \\'],
    ['a\\\\\\', 'invalid field selector: invalid escape sequence: \\'],
    ['a=b', 'invalid field selector: unescaped character in value: 61'],
    ['a,b', 'invalid field selector: unescaped character in value: 44'],
  ];
  for (const [escaped, message] of errors) {
    it(`rejects ${JSON.stringify(escaped)}`, () => {
      assert.throws(() => unescapeFieldValue(escaped), badRequest(message));
    });
  }
});

describe('parseFieldSelector: parsing and canonical printing', () => {
  // [input, canonical string]
  const cases: [string, string][] = [
    ['', ''],
    [',', ''],
    [',,', ''],
    ['=', ''],
    ['!=', ''],
    ['==,=', ''],
    ['a=b', 'a=b'],
    ['a==b', 'a=b'],
    ['a!=b', 'a!=b'],
    ['a=', 'a='],
    ['a!=', 'a!='],
    ['=b', '=b'],
    ['a=b,c==d,e!=f', 'a=b,c=d,e!=f'],
    ['metadata.name=web-0,metadata.namespace=default', 'metadata.name=web-0,metadata.namespace=default'],
    // Sorted by printed term.
    ['z=1,a=2', 'a=2,z=1'],
    ['a==b,a=a', 'a=a,a=b'],
    ['a=b,,c=d,', 'a=b,c=d'],
    // The first operator splits the term; the rest is the value.
    ['a!b=c', 'a!b=c'],
    ['a=!b', 'a=!b'],
    // Nothing is trimmed.
    [' a = b ', ' a = b '],
    // Escapes in values.
    ['a=b\\,c', 'a=b\\,c'],
    ['a=b\\=c', 'a=b\\=c'],
    ['a=b\\\\', 'a=b\\\\'],
    ['a=\\,,b=\\=', 'a=\\,,b=\\='],
    ['spec.nodeName=', 'spec.nodeName='],
  ];
  for (const [input, canonical] of cases) {
    it(`${JSON.stringify(input)} → ${JSON.stringify(canonical)}`, () => {
      const s = parseFieldSelector(input);
      assert.equal(s.toString(), canonical);
      assert.equal(String(s), canonical);
      assert.ok(parseFieldSelector(canonical).equals(s), 'parse(print(s)) equals s');
    });
  }

  it('gives the requirements, frozen', () => {
    const s = parseFieldSelector('status.phase!=Failed,metadata.name==web-0,spec.x=a\\,b');
    assert.deepEqual(s.requirements(), [
      { field: 'metadata.name', operator: '=', value: 'web-0' },
      { field: 'spec.x', operator: '=', value: 'a,b' },
      { field: 'status.phase', operator: '!=', value: 'Failed' },
    ]);
    assert.equal(Object.isFrozen(s), true);
    assert.equal(Object.isFrozen(s.requirements()), true);
    assert.equal(s.requirements().every((r) => Object.isFrozen(r)), true);
  });

  it('gives everything() for "" and for empty terms', () => {
    assert.equal(parseFieldSelector('').isEmpty(), true);
    assert.equal(parseFieldSelector('').equals(FieldsSelector.everything()), true);
    assert.equal(parseFieldSelector(',=,').equals(FieldsSelector.everything()), true);
  });
});

describe('parseFieldSelector: errors', () => {
  const cases: [string, string][] = [
    ['x', "invalid selector: 'x'; can't understand 'x'"],
    ['a=b,x', "invalid selector: 'a=b,x'; can't understand 'x'"],
    ['a!b', "invalid selector: 'a!b'; can't understand 'a!b'"],
    ['a\\,b', "invalid selector: 'a\\,b'; can't understand 'a\\,b'"],
    // Terms are read in sorted order: "a=b=c" < "x".
    ['x,a=b=c', 'invalid field selector: unescaped character in value: 61'],
    ['a===b', 'invalid field selector: unescaped character in value: 61'],
    ['a=b\\', 'invalid field selector: invalid escape sequence: \\'],
    ['a=b\\x', 'invalid field selector: invalid escape sequence: \\x'],
    ['a!=\\n', 'invalid field selector: invalid escape sequence: \\n'],
  ];
  for (const [input, message] of cases) {
    it(JSON.stringify(input), () => {
      assert.throws(() => parseFieldSelector(input), badRequest(message));
    });
  }
});

describe('FieldsSelector.matches', () => {
  const pod: Fields = { 'metadata.name': 'web-0', 'metadata.namespace': 'default', 'status.phase': 'Running', 'spec.nodeName': '' };
  // [selector, fields, matches]
  const cases: [string, Fields, boolean][] = [
    ['', pod, true],
    ['', {}, true],
    ['metadata.name=web-0', pod, true],
    ['metadata.name==web-0', pod, true],
    ['metadata.name=web-1', pod, false],
    ['metadata.name!=web-1', pod, true],
    ['metadata.name!=web-0', pod, false],
    ['metadata.name=web-0,status.phase!=Failed', pod, true],
    ['metadata.name=web-0,status.phase=Failed', pod, false],
    // A missing field counts as "".
    ['spec.missing=', pod, true],
    ['spec.missing!=', pod, false],
    ['spec.missing=x', pod, false],
    ['spec.missing!=x', pod, true],
    ['spec.nodeName=', pod, true],
    ['spec.nodeName!=', pod, false],
    // Only own properties are fields.
    ['constructor=', {}, true],
    ['toString!=', {}, false],
    // Escaped values match their literal.
    ['a=x\\,y\\=z\\\\', { a: 'x,y=z\\' }, true],
    ['a=x\\,y', { a: 'x\\,y' }, false],
  ];
  for (const [selector, fields, want] of cases) {
    it(`${JSON.stringify(selector)} on ${JSON.stringify(fields)} → ${want}`, () => {
      assert.equal(parseFieldSelector(selector).matches(fields), want);
    });
  }

  it('nothing() matches nothing, everything() everything', () => {
    assert.equal(FieldsSelector.nothing().matches({}), false);
    assert.equal(FieldsSelector.nothing().matches(pod), false);
    assert.equal(FieldsSelector.everything().matches({}), true);
    assert.equal(FieldsSelector.everything().matches(pod), true);
  });
});

describe('FieldsSelector: everything, nothing, exact matches, add', () => {
  it('everything() and nothing() differ though both print ""', () => {
    const all = FieldsSelector.everything();
    const none = FieldsSelector.nothing();
    assert.equal(all.toString(), '');
    assert.equal(none.toString(), '');
    assert.equal(all.isEmpty(), true);
    assert.equal(none.isEmpty(), false);
    assert.equal(all.matchesNothing(), false);
    assert.equal(none.matchesNothing(), true);
    assert.equal(all.equals(none), false);
    assert.deepEqual(none.requirements(), []);
    assert.equal(none.add({ field: 'a', operator: '=', value: 'b' }), none);
  });

  const exact: [string, string, string | undefined][] = [
    ['metadata.name=web-0', 'metadata.name', 'web-0'],
    ['metadata.name==web-0', 'metadata.name', 'web-0'],
    ['metadata.name!=web-0', 'metadata.name', undefined],
    ['metadata.name=web-0', 'metadata.namespace', undefined],
    ['spec.nodeName=', 'spec.nodeName', ''],
    ['a!=x,a=y', 'a', 'y'],
    ['a=\\,', 'a', ','],
  ];
  for (const [selector, field, want] of exact) {
    it(`exactMatch(${field}) of ${JSON.stringify(selector)} is ${String(want)}`, () => {
      assert.equal(parseFieldSelector(selector).exactMatch(field), want);
    });
  }

  it('add builds a sorted selector and leaves the receiver alone', () => {
    const s = FieldsSelector.everything().add({ field: 'b', operator: '!=', value: 'x,y' }, { field: 'a', operator: '=', value: '' });
    assert.equal(s.toString(), 'a=,b!=x\\,y');
    const t = s.add({ field: '', operator: '=', value: '' });
    assert.equal(t, s);
    assert.equal(s.add({ field: 'c', operator: '=', value: '1' }).equals(parseFieldSelector('c=1,b!=x\\,y,a=')), true);
    assert.equal(s.toString(), 'a=,b!=x\\,y');
  });

  it('add rejects an unknown operator', () => {
    assert.throws(
      () => FieldsSelector.everything().add({ field: 'a', operator: '==' as FieldOperator, value: 'b' }),
      badRequest('operator: Unsupported value: "==": supported values: "=", "!="'),
    );
  });

  it('fieldSelectorFromSet requires each field', () => {
    const s = fieldSelectorFromSet({ 'metadata.namespace': 'default', 'metadata.name': 'a=b' });
    assert.equal(s.toString(), 'metadata.name=a\\=b,metadata.namespace=default');
    assert.equal(s.matches({ 'metadata.name': 'a=b', 'metadata.namespace': 'default' }), true);
    assert.equal(s.matches({ 'metadata.name': 'a=b' }), false);
    assert.equal(fieldSelectorFromSet({}).isEmpty(), true);
  });

  it('isEmpty() only for a selector without requirements', () => {
    assert.equal(parseFieldSelector('a=b').isEmpty(), false);
    assert.equal(parseFieldSelector('a!=').isEmpty(), false);
    assert.equal(FieldsSelector.everything().add({ field: 'a', operator: '=', value: '' }).isEmpty(), false);
  });

  it('equals() tells apart selectors that differ in a field, an operator, a value or a requirement', () => {
    const s = parseFieldSelector('a=b,c=d');
    assert.equal(s.equals(parseFieldSelector('c==d,a==b')), true);
    for (const other of ['a=b', 'a=b,c=d,e=f', 'a=b,x=d', 'a=b,c!=d', 'a=b,c=x', 'x=b,c=d', 'a!=b,c=d', 'a=x,c=d', '']) {
      assert.equal(s.equals(parseFieldSelector(other)), false, other);
      assert.equal(parseFieldSelector(other).equals(s), false, `${other} (reversed)`);
    }
    assert.equal(parseFieldSelector('a=b').equals(parseFieldSelector('a=b,a=c')), false);
    assert.equal(parseFieldSelector('a=b,a=c').equals(parseFieldSelector('a=b')), false);
  });

  it('lists requirements so a server can refuse unsupported fields', () => {
    const supported = new Set(['metadata.name', 'metadata.namespace']);
    const unsupported = parseFieldSelector('metadata.name=a,spec.host!=b')
      .requirements()
      .filter((r) => !supported.has(r.field))
      .map((r) => r.field);
    assert.deepEqual(unsupported, ['spec.host']);
  });
});

// ---------------------------------------------------------------------------------------------
// Properties

const fieldName = fc.stringMatching(/^[a-z]([a-zA-Z0-9.]{0,12}[a-z0-9])?$/);
const fieldValue = fc
  .array(fc.constantFrom('a', 'Z', '0', '-', '.', ' ', '\\', ',', '=', '!', 'é', '😀', '(', ')'), { maxLength: 8 })
  .map((chars) => chars.join(''));
const requirement: fc.Arbitrary<FieldRequirement> = fc.record({
  field: fieldName,
  operator: fc.constantFrom<FieldOperator>('=', '!='),
  value: fieldValue,
});
const selector = fc.array(requirement, { maxLength: 6 }).map((reqs) => FieldsSelector.everything().add(...reqs));

describe('properties', () => {
  it('printing then parsing gives an equal selector', () => {
    fc.assert(
      fc.property(selector, (s) => {
        const printed = s.toString();
        const parsed = parseFieldSelector(printed);
        assert.ok(parsed.equals(s), `${printed} → ${parsed.toString()}`);
        assert.equal(parsed.toString(), printed);
      }),
      { numRuns: 500 },
    );
  });

  it('escaping then unescaping gives the value back', () => {
    fc.assert(
      fc.property(fc.oneof(fieldValue, fc.string()), (v) => {
        assert.equal(unescapeFieldValue(escapeFieldValue(v)), v);
      }),
    );
  });

  it('the parsed selector matches exactly what the original matches', () => {
    const fields = fc.dictionary(fc.oneof(fieldName, fc.constantFrom('a', 'b')), fieldValue, { maxKeys: 4 });
    fc.assert(
      fc.property(selector, fields, (s, f) => {
        assert.equal(parseFieldSelector(s.toString()).matches(f), s.matches(f));
      }),
      { numRuns: 300 },
    );
  });
});
