import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { FakeClock } from '@setpoint/api';
import { DashboardSessions, SESSION_TOKEN_PREFIX } from './sessions.js';

const alice = { name: 'alice', uid: 'u-1', groups: ['dev', 'system:authenticated'], extra: { scope: ['a'] } };
const bearer = (token: string) => ({ authorization: `Bearer ${token}` });

describe('DashboardSessions', () => {
  it('exchanges a code once for a session token of the same user', () => {
    const sessions = new DashboardSessions({ clock: new FakeClock() });
    const link = sessions.issueLink(alice);
    const session = sessions.exchange(link.code);
    assert.ok(session);
    assert.ok(session.token.startsWith(SESSION_TOKEN_PREFIX));
    assert.deepEqual(session.user, alice);
    assert.deepEqual(sessions.authenticate(bearer(session.token)), alice);
    assert.equal(sessions.exchange(link.code), undefined, 'a code works once');
    assert.equal(sessions.exchange('made-up'), undefined);
  });

  it('lets codes and sessions expire, and ends a session on revoke', async () => {
    const clock = new FakeClock();
    const sessions = new DashboardSessions({ clock, linkTtlMs: 60_000, sessionTtlMs: 3_600_000 });
    const late = sessions.issueLink(alice);
    await clock.advance(60_000);
    assert.equal(sessions.exchange(late.code), undefined, 'an expired code is refused');
    const session = sessions.exchange(sessions.issueLink(alice).code)!;
    await clock.advance(3_599_000);
    assert.ok(sessions.authenticate(bearer(session.token)));
    await clock.advance(1000);
    assert.equal(sessions.authenticate(bearer(session.token)), undefined, 'an expired session is refused');
    const other = sessions.exchange(sessions.issueLink(alice).code)!;
    assert.equal(sessions.revoke(other.token), true);
    assert.equal(sessions.authenticate(bearer(other.token)), undefined);
    assert.equal(sessions.revoke(other.token), false);
  });

  it('declines other tokens and keeps no more than its bounds', () => {
    const sessions = new DashboardSessions({ clock: new FakeClock(), maxLinks: 3 });
    assert.equal(sessions.authenticate({}), undefined);
    assert.equal(sessions.authenticate(bearer('some-admin-token')), undefined);
    assert.equal(sessions.authenticate(bearer(`${SESSION_TOKEN_PREFIX}unknown`)), undefined);
    const codes = [0, 1, 2, 3].map(() => sessions.issueLink(alice).code);
    assert.equal(sessions.exchange(codes[0]!), undefined, 'the oldest unused link was dropped');
    assert.ok(sessions.exchange(codes[3]!));
  });

  it('gives the caller copies: changing a returned user changes nothing kept', () => {
    const sessions = new DashboardSessions({ clock: new FakeClock() });
    const session = sessions.exchange(sessions.issueLink(alice).code)!;
    session.user.groups.push('system:masters');
    assert.deepEqual(sessions.authenticate(bearer(session.token))?.groups, alice.groups);
  });
});
