/** Keys and values: code-point order, unicode round-trips, the value size limit, and the InvalidKey / InvalidValue checks. */
import assert from 'node:assert/strict';
import { DEFAULT_MAX_VALUE_BYTES } from '../store.js';
import { describeValue, eventKey, expectStoreError, getKv, plainKv, type Register, shuffled } from './fixture.js';

export function keyValueTests(test: Register): void {
  test('keys are ordered by code point (U+FFFD before 😀), in lists and in pages', async ({ store }) => {
    // Code-point order; JavaScript's UTF-16 order would put 𝄞 and 😀 before U+E000 and U+FFFD.
    const ordered = ['/u/z', '/u/é', '/u/日本', '/u/\uE000', '/u/\uFFFD', '/u/𝄞', '/u/😀', '/u/😀/x'];
    for (const key of shuffled(ordered)) await store.create(key, key);
    const listed = (await store.list('/u/')).items.map((kv) => kv.key);
    assert.deepEqual(listed, ordered, 'list order');
    assert.ok(listed.indexOf('/u/\uFFFD') < listed.indexOf('/u/😀'), 'U+FFFD sorts before 😀');
    const paged: string[] = [];
    let after: string | undefined;
    for (let more = true; more; ) {
      const page = await store.list('/u/', { limit: 1, ...(after === undefined ? {} : { after }) });
      paged.push(...page.items.map((kv) => kv.key));
      after = page.items.at(-1)?.key;
      more = page.more;
      assert.ok(paged.length <= ordered.length, 'paging ends');
    }
    assert.deepEqual(paged, ordered, 'pages of one follow code-point order');
    assert.deepEqual((await store.list('/u/', { after: '/u/\uFFFD', limit: 1 })).items.map((kv) => kv.key), ['/u/𝄞'], 'after U+FFFD comes 𝄞');
    assert.deepEqual((await store.list('/u/', { after: '/u/\uE000', limit: 1 })).items.map((kv) => kv.key), ['/u/\uFFFD'], 'after U+E000 comes U+FFFD');
  });

  test('keys with unicode and slashes round-trip through create, get, list, update, watch and delete', async (fx) => {
    const { store } = fx;
    const keys = ['/x/ü/ñ', '/x/😀/🎉', '/x/a/b/c/', '/x//double//slash', '/x/\uFFFD', '/x/日本語/キー', '/x/with space', '/x/\u{10FFFF}'];
    const from = await store.currentRevision();
    const reader = fx.watch('/x/', from);
    for (const key of keys) {
      const created = await store.create(key, `v1 ${key}`);
      assert.equal(created.key, key);
      assert.deepEqual(plainKv(await store.get(key)), plainKv(created), `get(${JSON.stringify(key)})`);
      const listed = await store.list(key);
      assert.ok(listed.items.some((kv) => kv.key === key), `list(${JSON.stringify(key)}) holds the key`);
      const updated = await store.update(key, `v2 ${key}`, created.modRevision);
      const deleted = await store.delete(key, updated.modRevision);
      assert.equal(deleted.prev.key, key);
    }
    const events = await reader.take(keys.length * 3, 'the events of every key');
    assert.deepEqual(events.map((e) => [e.type, eventKey(e)]), keys.flatMap((key) => [['create', key], ['update', key], ['delete', key]]));
  });

  test('values round-trip exactly: empty, unicode, astral, U+FFFD, NUL, newlines', async (fx) => {
    const { store } = fx;
    const values = ['', '😀', '\uFFFD', '\u{10FFFF}', 'nul\u0000inside', 'line\nbreak\r\n', '{"name":"é","emoji":"🎉"}', ' leading and trailing '];
    const reader = fx.watch('/v/', await store.currentRevision());
    for (const [i, value] of values.entries()) {
      const kv = await store.create(`/v/${i}`, value);
      assert.equal(kv.value, value, `create returns value ${i}`);
      assert.equal((await getKv(store, `/v/${i}`)).value, value, `get returns value ${i}`);
    }
    assert.deepEqual((await store.list('/v/')).items.map((kv) => kv.value), values, 'list returns every value');
    const events = await reader.take(values.length, 'the create events');
    assert.deepEqual(events.map((e) => (e.type === 'create' ? e.kv.value : undefined)), values, 'watch returns every value');
  });

  test('a value of exactly maxValueBytes UTF-8 bytes (1.5 MiB by default) is accepted; one byte more throws ValueTooLarge and writes nothing', async ({ store }) => {
    const max = DEFAULT_MAX_VALUE_BYTES;
    assert.equal(max, 1.5 * 1024 * 1024);
    const ascii = 'a'.repeat(max);
    const created = await store.create('/big', ascii);
    assert.ok((await getKv(store, '/big')).value === ascii, 'the 1.5 MiB ASCII value round-trips');
    const twoByte = 'é'.repeat(max / 2);
    const updated = await store.update('/big', twoByte, created.modRevision);
    assert.ok((await getKv(store, '/big')).value === twoByte, 'the 1.5 MiB two-byte value round-trips');
    const fourByte = '😀'.repeat(max / 4);
    const last = await store.update('/big', fourByte, updated.modRevision);
    assert.ok((await getKv(store, '/big')).value === fourByte, 'the 1.5 MiB four-byte value round-trips');
    const revision = await store.currentRevision();
    await expectStoreError(() => store.update('/big', twoByte + 'a', last.modRevision), 'ValueTooLarge', 'update one byte over');
    await expectStoreError(() => store.create('/big2', ascii + 'a'), 'ValueTooLarge', 'create one byte over');
    await expectStoreError(() => store.create('/big3', '😀'.repeat(max / 4) + 'a'), 'ValueTooLarge', 'create one byte over, in emoji');
    assert.equal(await store.currentRevision(), revision, 'the refused writes created no revision');
    assert.ok((await getKv(store, '/big')).value === fourByte, 'the refused update changed nothing');
    assert.equal(await store.get('/big2'), undefined, 'the refused create wrote nothing');
    assert.equal(await store.get('/big3'), undefined, 'the refused create wrote nothing');
  });

  test('maxValueBytes counts UTF-8 bytes, not UTF-16 code units', async ({ store }) => {
    await store.create('/a', 'a'.repeat(16));
    await store.create('/b', 'é'.repeat(8));
    await store.create('/c', '😀'.repeat(4));
    await expectStoreError(() => store.create('/d', 'a'.repeat(17)), 'ValueTooLarge', '17 ASCII bytes');
    await expectStoreError(() => store.create('/d', 'é'.repeat(8) + 'a'), 'ValueTooLarge', '9 characters, 17 bytes');
    await expectStoreError(() => store.create('/d', '😀'.repeat(4) + 'a'), 'ValueTooLarge', '9 code units, 17 bytes');
    await expectStoreError(() => store.create('/d', '日'.repeat(6)), 'ValueTooLarge', '6 characters, 18 bytes');
    assert.equal(await store.get('/d'), undefined);
  }, { maxValueBytes: 16 });

  test('an empty, prefix-less, ill-formed or non-string key throws InvalidKey and writes nothing', async ({ store }) => {
    const kv = await store.create('/ok', '1');
    const revision = await store.currentRevision();
    const bad: unknown[] = ['', 'x', 'registry/x', '/\uD800', '/a\uDC00b', 42, undefined, null];
    for (const key of bad) {
      await expectStoreError(() => store.create(key as string, 'v'), 'InvalidKey', `create(${describeValue(key)})`);
    }
    await expectStoreError(() => store.update('', 'v', kv.modRevision), 'InvalidKey', 'update of the empty key');
    await expectStoreError(() => store.delete(''), 'InvalidKey', 'delete of the empty key');
    assert.equal(await store.currentRevision(), revision, 'no revision was created');
    assert.deepEqual((await store.list('/')).items.map(plainKv), [plainKv(kv)], 'nothing was written');
  });

  test('with prefix /registry/, a key outside it throws InvalidKey and writes nothing', async ({ store }) => {
    const kv = await store.create('/registry/x', '1');
    const revision = await store.currentRevision();
    for (const key of ['/other/x', '/registry', '/registryx', 'registry/x', '/', '']) {
      await expectStoreError(() => store.create(key, 'v'), 'InvalidKey', `create(${JSON.stringify(key)})`);
    }
    await expectStoreError(() => store.update('/other/x', 'v', kv.modRevision), 'InvalidKey', 'update outside the prefix');
    await expectStoreError(() => store.delete('/other/x'), 'InvalidKey', 'delete outside the prefix');
    assert.equal(await store.currentRevision(), revision, 'no revision was created');
    assert.deepEqual((await store.list('/registry/')).items.map(plainKv), [plainKv(kv)], 'nothing was written');
  }, { prefix: '/registry/' });

  test('a value that is not a well-formed string (lone surrogate, non-string) throws InvalidValue and writes nothing', async ({ store }) => {
    const kv = await store.create('/a', 'ok');
    const revision = await store.currentRevision();
    const bad: unknown[] = ['\uD800', 'a\uDC00b', 'x\uDE00\uD83D', 42, null, undefined, { a: 1 }, Buffer.from('x')];
    for (const value of bad) {
      await expectStoreError(() => store.create('/b', value as string), 'InvalidValue', `create with ${describeValue(value)}`);
      await expectStoreError(() => store.update('/a', value as string, kv.modRevision), 'InvalidValue', `update with ${describeValue(value)}`);
    }
    assert.equal(await store.currentRevision(), revision, 'no revision was created');
    assert.deepEqual((await store.list('/')).items.map(plainKv), [plainKv(kv)], 'nothing was written');
    assert.equal((await store.create('/b', '\uD83D\uDE00')).value, '😀', 'a surrogate pair is well-formed');
  });
}
