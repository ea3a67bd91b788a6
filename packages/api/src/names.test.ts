import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import {
  GENERATED_NAME_ALPHABET,
  MAX_GENERATED_NAME_LENGTH,
  TOTAL_ANNOTATION_SIZE_LIMIT_BYTES,
  generateNameSuffix,
  isDNS1035Label,
  isDNS1123Label,
  isDNS1123Subdomain,
  isQualifiedName,
  isValidLabelValue,
  isValidPathSegmentName,
  isValidPathSegmentPrefix,
  nameFromGenerateName,
  nameIsDNS1035Label,
  nameIsDNSLabel,
  nameIsDNSSubdomain,
  objectKey,
  parseObjectKey,
  validateAnnotations,
  validateLabels,
  validateObjectName,
  validatePathSegmentName,
} from './names.js';

// Kubernetes' messages, written out in full so that any drift in names.ts shows up here.
const SUBDOMAIN_MSG =
  "a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character (e.g. 'example.com', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')";
const LABEL_MSG =
  "a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', and must start and end with an alphanumeric character (e.g. 'my-name',  or '123-abc', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?')";
const DNS1035_MSG =
  "a DNS-1035 label must consist of lower case alphanumeric characters or '-', start with an alphabetic character, and end with an alphanumeric character (e.g. 'my-name',  or 'abc-123', regex used for validation is '[a-z]([-a-z0-9]*[a-z0-9])?')";
const NAME_PART_MSG =
  "name part must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')";
const QUALIFIED_NAME_MSG =
  "a qualified name must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]') with an optional DNS subdomain prefix and '/' (e.g. 'example.com/MyName')";
const LABEL_VALUE_MSG =
  "a valid label must be an empty string or consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyValue',  or 'my_value',  or '12345', regex used for validation is '(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?')";

describe('isDNS1123Subdomain', () => {
  const cases: [string, string[]][] = [
    ['a', []],
    ['example.com', []],
    ['1-2.a-b.c', []],
    ['0', []],
    ['a'.repeat(253), []],
    ['', [SUBDOMAIN_MSG]],
    ['A', [SUBDOMAIN_MSG]],
    ['-a', [SUBDOMAIN_MSG]],
    ['a-', [SUBDOMAIN_MSG]],
    ['a..b', [SUBDOMAIN_MSG]],
    ['.a', [SUBDOMAIN_MSG]],
    ['a_b', [SUBDOMAIN_MSG]],
    ['a'.repeat(254), ['must be no more than 253 characters']],
    ['A'.repeat(254), ['must be no more than 253 characters', SUBDOMAIN_MSG]],
  ];
  for (const [value, want] of cases) {
    it(`${JSON.stringify(value.length > 20 ? `${value.slice(0, 10)}…(${value.length})` : value)}`, () => {
      assert.deepEqual(isDNS1123Subdomain(value), want);
    });
  }
});

describe('isDNS1123Label', () => {
  const cases: [string, string[]][] = [
    ['a', []],
    ['my-name', []],
    ['123-abc', []],
    ['a'.repeat(63), []],
    ['a.b', ['must not contain dots']],
    ['', [LABEL_MSG]],
    ['-a', [LABEL_MSG]],
    ['My', [LABEL_MSG]],
    ['a'.repeat(64), ['must be no more than 63 characters']],
    ['a.'.repeat(40), ['must be no more than 63 characters', LABEL_MSG]],
  ];
  for (const [value, want] of cases) {
    it(JSON.stringify(value), () => assert.deepEqual(isDNS1123Label(value), want));
  }
});

describe('isDNS1035Label', () => {
  const cases: [string, string[]][] = [
    ['a', []],
    ['abc-123', []],
    ['1a', [DNS1035_MSG]],
    ['a-', [DNS1035_MSG]],
    ['a.b', [DNS1035_MSG]],
    ['a'.repeat(64), ['must be no more than 63 characters']],
  ];
  for (const [value, want] of cases) {
    it(JSON.stringify(value), () => assert.deepEqual(isDNS1035Label(value), want));
  }
});

describe('isQualifiedName', () => {
  const cases: [string, string[]][] = [
    ['a', []],
    ['MyName', []],
    ['my.name', []],
    ['123-abc', []],
    ['a_b', []],
    ['example.com/MyName', []],
    ['k8s.io/app', []],
    [`x/${'a'.repeat(63)}`, []],
    ['', ['name part must be non-empty', NAME_PART_MSG]],
    ['-a', [NAME_PART_MSG]],
    ['a b', [NAME_PART_MSG]],
    ['a/b/c', [QUALIFIED_NAME_MSG]],
    ['/a', ['prefix part must be non-empty']],
    ['a/', ['name part must be non-empty', NAME_PART_MSG]],
    ['Example.com/a', [`prefix part ${SUBDOMAIN_MSG}`]],
    [`${'a'.repeat(254)}/b`, ['prefix part must be no more than 253 characters']],
    ['a'.repeat(64), ['name part must be no more than 63 characters']],
  ];
  for (const [value, want] of cases) {
    it(JSON.stringify(value), () => assert.deepEqual(isQualifiedName(value), want));
  }
});

describe('isValidLabelValue', () => {
  const cases: [string, string[]][] = [
    ['', []],
    ['a', []],
    ['MyValue', []],
    ['my_value', []],
    ['12345', []],
    ['a'.repeat(63), []],
    ['-a', [LABEL_VALUE_MSG]],
    ['a b', [LABEL_VALUE_MSG]],
    ['a/b', [LABEL_VALUE_MSG]],
    ['a'.repeat(64), ['must be no more than 63 characters']],
    // 32 two-byte characters are 64 bytes: lengths count UTF-8 bytes, as Go's len does.
    ['é'.repeat(32), ['must be no more than 63 characters', LABEL_VALUE_MSG]],
  ];
  for (const [value, want] of cases) {
    it(JSON.stringify(value), () => assert.deepEqual(isValidLabelValue(value), want));
  }
});

describe('path segment names', () => {
  const names: [string, string[]][] = [
    ['a', []],
    ['A_b:c', []],
    ['...', []],
    ['.', ["may not be '.'"]],
    ['..', ["may not be '..'"]],
    ['a/b', ["may not contain '/'"]],
    ['a%b', ["may not contain '%'"]],
    ['/%', ["may not contain '/'", "may not contain '%'"]],
  ];
  for (const [name, want] of names) {
    it(`name ${JSON.stringify(name)}`, () => {
      assert.deepEqual(isValidPathSegmentName(name), want);
      assert.deepEqual(validatePathSegmentName(name, false), want);
    });
  }
  it('a prefix may be "." or ".." but not contain "/" or "%"', () => {
    assert.deepEqual(isValidPathSegmentPrefix('.'), []);
    assert.deepEqual(validatePathSegmentName('..', true), []);
    assert.deepEqual(validatePathSegmentName('a/', true), ["may not contain '/'"]);
  });
});

describe('name validators', () => {
  it('allow a trailing dash in a generateName only', () => {
    assert.deepEqual(nameIsDNSSubdomain('foo-', true), []);
    assert.deepEqual(nameIsDNSSubdomain('foo-', false), [SUBDOMAIN_MSG]);
    assert.deepEqual(nameIsDNSLabel('foo-', true), []);
    assert.deepEqual(nameIsDNSLabel('foo-', false), [LABEL_MSG]);
    assert.deepEqual(nameIsDNS1035Label('foo-', true), []);
    assert.deepEqual(nameIsDNS1035Label('1foo-', true), [DNS1035_MSG]);
    // A single '-' is not masked.
    assert.deepEqual(nameIsDNSSubdomain('-', true), [SUBDOMAIN_MSG]);
  });
});

describe('validateObjectName', () => {
  const cases: { name: string; options?: Parameters<typeof validateObjectName>[1]; want: string[] }[] = [
    { name: 'web-0', want: [] },
    { name: 'Any_Thing:ok', want: [] },
    { name: '', want: ['metadata.name: Required value: name or generateName is required'] },
    { name: '..', want: [`metadata.name: Invalid value: "..": may not be '..'`] },
    { name: 'a/b%', want: [`metadata.name: Invalid value: "a/b%": may not contain '/'`, `metadata.name: Invalid value: "a/b%": may not contain '%'`] },
    { name: 'Web', options: { nameFn: nameIsDNSSubdomain }, want: [`metadata.name: Invalid value: "Web": ${SUBDOMAIN_MSG}`] },
    { name: 'web-abcde', options: { nameFn: nameIsDNSSubdomain, generateName: 'web-' }, want: [] },
    {
      name: '',
      options: { nameFn: nameIsDNSSubdomain, generateName: 'Web-' },
      want: [`metadata.generateName: Invalid value: "Web-": ${SUBDOMAIN_MSG}`, 'metadata.name: Required value: name or generateName is required'],
    },
    { name: 'a.b', options: { nameFn: nameIsDNSLabel, fieldPath: 'meta' }, want: ['meta.name: Invalid value: "a.b": must not contain dots'] },
  ];
  for (const { name, options, want } of cases) {
    it(`${JSON.stringify(name)} ${JSON.stringify(options ?? {})}`, () => {
      assert.deepEqual(
        validateObjectName(name, options).map((e) => e.toString()),
        want,
      );
    });
  }
  it('gives FieldErrors with Kubernetes cause types', () => {
    const [err] = validateObjectName('.');
    assert.equal(err?.type, 'FieldValueInvalid');
    assert.equal(err?.field, 'metadata.name');
    assert.equal(validateObjectName('')[0]?.type, 'FieldValueRequired');
  });
});

describe('validateLabels', () => {
  it('accepts valid labels and none', () => {
    assert.deepEqual(validateLabels({ app: 'web', 'example.com/tier': '', 'a.b_c-d': 'X.y_Z-1' }, 'metadata.labels'), []);
    assert.deepEqual(validateLabels(undefined, 'metadata.labels'), []);
    assert.deepEqual(validateLabels({}, 'metadata.labels'), []);
  });
  it('reports each bad key and value against the labels path', () => {
    const errs = validateLabels({ 'bad key': 'ok', good: 'bad value', 'a/b/c': '-x' }, 'metadata.labels');
    assert.deepEqual(
      errs.map((e) => e.toString()),
      [
        `metadata.labels: Invalid value: "bad key": ${NAME_PART_MSG}`,
        `metadata.labels: Invalid value: "bad value": ${LABEL_VALUE_MSG}`,
        `metadata.labels: Invalid value: "a/b/c": ${QUALIFIED_NAME_MSG}`,
        `metadata.labels: Invalid value: "-x": ${LABEL_VALUE_MSG}`,
      ],
    );
  });
  it('does not accept uppercase prefixes (unlike annotations)', () => {
    assert.deepEqual(
      validateLabels({ 'Example.com/a': 'b' }, 'l').map((e) => e.toString()),
      [`l: Invalid value: "Example.com/a": prefix part ${SUBDOMAIN_MSG}`],
    );
  });
});

describe('validateAnnotations', () => {
  it('checks keys case-insensitively and reports the original key', () => {
    assert.deepEqual(validateAnnotations({ 'Example.COM/Some-Key': 'any value at all: {"json": true}' }, 'metadata.annotations'), []);
    assert.deepEqual(
      validateAnnotations({ 'Bad Key': 'v' }, 'metadata.annotations').map((e) => e.toString()),
      [`metadata.annotations: Invalid value: "Bad Key": ${NAME_PART_MSG}`],
    );
    assert.deepEqual(validateAnnotations(undefined, 'metadata.annotations'), []);
  });
  it('limits the total size of keys and values to 262144 bytes', () => {
    assert.equal(TOTAL_ANNOTATION_SIZE_LIMIT_BYTES, 262144);
    const fits = { a: 'x'.repeat(262144 - 1) };
    assert.deepEqual(validateAnnotations(fits, 'metadata.annotations'), []);
    const over = { a: 'x'.repeat(262144 - 2), b: 'y' };
    const errs = validateAnnotations(over, 'metadata.annotations');
    assert.deepEqual(
      errs.map((e) => e.toString()),
      ['metadata.annotations: Too long: may not be more than 262144 bytes'],
    );
    assert.equal(errs[0]?.type, 'FieldValueTooLong');
  });
  it('counts UTF-8 bytes, not UTF-16 code units', () => {
    // 'é' is 2 bytes; 131072 of them plus the 1-byte key is 262145 bytes.
    const errs = validateAnnotations({ a: 'é'.repeat(131072) }, 'metadata.annotations');
    assert.equal(errs.length, 1);
    // '😀' is 4 bytes (two UTF-16 units): 65535 of them plus the key is 262141 bytes.
    assert.deepEqual(validateAnnotations({ a: '😀'.repeat(65535) }, 'metadata.annotations'), []);
  });
});

describe('object keys', () => {
  const cases: [string | undefined, string, string][] = [
    ['default', 'web', 'default/web'],
    ['', 'node-1', 'node-1'],
    [undefined, 'node-1', 'node-1'],
    ['kube-system', 'a.b', 'kube-system/a.b'],
  ];
  for (const [namespace, name, key] of cases) {
    it(`${String(namespace)}/${name} ⇄ ${key}`, () => {
      assert.equal(objectKey(namespace, name), key);
      assert.deepEqual(parseObjectKey(key), { namespace: namespace ?? '', name });
    });
  }
  it('splits keys as client-go does', () => {
    assert.deepEqual(parseObjectKey('/a'), { namespace: '', name: 'a' });
    assert.deepEqual(parseObjectKey('ns/'), { namespace: 'ns', name: '' });
    assert.deepEqual(parseObjectKey(''), { namespace: '', name: '' });
  });
  for (const key of ['a/b/c', '//', 'a/b/']) {
    it(`rejects ${JSON.stringify(key)}`, () => {
      assert.throws(() => parseObjectKey(key), {
        name: 'ApiError',
        reason: 'BadRequest',
        code: 400,
        message: `unexpected key format: ${JSON.stringify(key)}`,
      });
    });
  }
});

describe('generated names', () => {
  it('uses five characters of the Kubernetes alphabet', () => {
    assert.equal(GENERATED_NAME_ALPHABET, 'bcdfghjklmnpqrstvwxz2456789');
    for (let i = 0; i < 200; i++) {
      const s = generateNameSuffix();
      assert.match(s, /^[bcdfghjklmnpqrstvwxz2456789]{5}$/);
    }
  });
  it('draws from the injected random source', () => {
    assert.equal(generateNameSuffix(() => 0), 'bbbbb');
    assert.equal(generateNameSuffix(() => 0.9999999), '99999');
    const seq = [0.5 / 27, 1.5 / 27, 2.5 / 27, 26.5 / 27, 0.5];
    let i = 0;
    assert.equal(generateNameSuffix(() => seq[i++]!), 'bcd9r');
  });
  it('clamps a random source that strays out of [0, 1)', () => {
    assert.equal(generateNameSuffix(() => 1), '99999');
    assert.equal(generateNameSuffix(() => -3), 'bbbbb');
    assert.equal(generateNameSuffix(() => Number.NaN), 'bbbbb');
  });
  it('keeps at most 58 characters of the base', () => {
    assert.equal(MAX_GENERATED_NAME_LENGTH, 58);
    const zero = (): number => 0;
    assert.equal(nameFromGenerateName('web-', zero), 'web-bbbbb');
    assert.equal(nameFromGenerateName('', zero), 'bbbbb');
    const long = `${'a'.repeat(57)}-xyz`;
    const name = nameFromGenerateName(long, zero);
    assert.equal(name, `${'a'.repeat(57)}-bbbbb`);
    assert.equal(name.length, 63);
    assert.deepEqual(isDNS1123Label(nameFromGenerateName('a'.repeat(300))), []);
  });
});
