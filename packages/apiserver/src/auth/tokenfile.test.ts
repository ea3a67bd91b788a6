import assert from 'node:assert/strict';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { CredentialsError } from './errors.js';
import { loadTokenFile, parseTokenFile } from './tokenfile.js';

const parse = (text: string) => parseTokenFile(text, 'tokens.csv');

function rejects(text: string, pattern: RegExp): void {
  assert.throws(
    () => parse(text),
    (err: unknown) => err instanceof CredentialsError && err.code === 'Malformed' && pattern.test(err.message),
    `${JSON.stringify(text)} should fail with ${String(pattern)}`,
  );
}

describe('parseTokenFile', () => {
  it("reads Kubernetes' format: token,user,uid and an optional quoted groups column", () => {
    const entries = parse('t1,alice,u-1,"dev,ops"\nt2,bob,,viewers\nt3,carol,u-3\n');
    assert.deepEqual(
      entries.map((e) => [e.token, e.user, e.line]),
      [
        ['t1', { name: 'alice', uid: 'u-1', groups: ['dev', 'ops'] }, 1],
        ['t2', { name: 'bob', groups: ['viewers'] }, 2],
        ['t3', { name: 'carol', uid: 'u-3', groups: [] }, 3],
      ],
    );
  });

  it('handles CRLF, a byte order mark, blank lines, comments, "" escapes and no final newline', () => {
    const entries = parse('\uFEFF# tokens for the team\r\n\r\nt1,"ali""ce",u1,"a,b"\r\n   \n# more\nt2,bob,u2');
    assert.deepEqual(
      entries.map((e) => [e.token, e.user.name, e.user.groups, e.line]),
      [
        ['t1', 'ali"ce', ['a', 'b'], 3],
        ['t2', 'bob', [], 6],
      ],
    );
    assert.deepEqual(parse(''), []);
  });

  it('counts lines inside a quoted field that spans lines', () => {
    const entries = parse('t1,alice,u1,"dev,\nops"\nt2,bob,u2\n');
    assert.deepEqual(entries[0]?.user.groups, ['dev', '\nops']);
    assert.equal(entries[1]?.line, 3);
  });

  it('names the file and line of every mistake', () => {
    rejects('t1,alice,u1\nt2,bob\n', /^tokens\.csv:2: expected token,user,uid\[,"group1,group2"\], found 2 columns$/);
    rejects('just-a-token\n', /^tokens\.csv:1: .*found 1 column$/);
    rejects('t1,alice,u1,dev,ops\n', /^tokens\.csv:1: expected at most 4 columns .*found 5: put the groups in one quoted column$/);
    rejects('ok,a,1\n,alice,u1\n', /^tokens\.csv:2: the token is empty$/);
    rejects('has space,alice,u1\n', /^tokens\.csv:1: the token has characters a bearer token cannot carry/);
    rejects('t1,,u1\n', /^tokens\.csv:1: the user name is empty$/);
    rejects('t1,alice,u1\n\nt1,bob,u2\n', /^tokens\.csv:3: the same token as line 1$/);
    rejects('t1,al"ice,u1\n', /^tokens\.csv:1: a " inside a field/);
    rejects('t1,"alice"x,u1\n', /^tokens\.csv:1: text after the closing "/);
    rejects('t1,alice,u1,"dev\n', /^tokens\.csv:1: a quoted field is not closed/);
  });

  it('never puts a token into an error message', () => {
    try {
      parse('secret-token-1,alice,u1\nsecret-token-1,bob,u2\n');
      assert.fail('expected an error');
    } catch (err) {
      assert.ok(err instanceof CredentialsError);
      assert.doesNotMatch(err.message, /secret-token-1/);
    }
  });
});

describe('loadTokenFile', () => {
  it('reads a file, and names it when it cannot', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'setpoint-tokenfile-'));
    try {
      const path = join(dir, 'tokens.csv');
      await writeFile(path, 'tok,alice,1,"a,b"\n');
      assert.deepEqual((await loadTokenFile(path)).map((e) => e.user), [{ name: 'alice', uid: '1', groups: ['a', 'b'] }]);
      await assert.rejects(loadTokenFile(join(dir, 'missing.csv')), (err: unknown) => err instanceof CredentialsError && err.message.includes('missing.csv'));
      await writeFile(path, 'tok,alice\n');
      await assert.rejects(loadTokenFile(path), new RegExp(`^CredentialsError: ${path.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&')}:1: `));
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});
