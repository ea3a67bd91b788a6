import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { FastifyReply } from 'fastify';
import { send, sendError } from './respond.js';

/** The parts of a reply send and sendError use, recording what they were given. */
function fakeReply() {
  const sent: { code?: number; type?: string; headers: Record<string, unknown>; payload?: unknown } = { headers: {} };
  const reply = {
    code(c: number) {
      sent.code = c;
      return reply;
    },
    type(t: string) {
      sent.type = t;
      return reply;
    },
    header(name: string, value: unknown) {
      sent.headers[name] = value;
      return reply;
    },
    send(payload: unknown) {
      sent.payload = payload;
      return reply;
    },
  };
  return { reply: reply as unknown as FastifyReply, sent };
}

const text = (payload: unknown) => (Buffer.isBuffer(payload) ? payload.toString('utf8') : String(payload));

describe('send', () => {
  it('answers JSON when protobuf cannot encode the body, a Status when JSON cannot either, and never throws', () => {
    const cyclic: Record<string, unknown> = { kind: 'ConfigMap', apiVersion: 'v1', metadata: { name: 'c' } };
    for (const encoding of ['yaml', 'protobuf', 'json'] as const) {
      const { reply, sent } = fakeReply();
      const body = { kind: 'ConfigMap', apiVersion: 'v1', metadata: { name: 'c' }, data: { n: 10n } };
      assert.doesNotThrow(() => send(reply, 201, body, encoding));
      assert.equal(sent.code, 201, encoding);
      if (encoding === 'yaml') continue; // YAML carries a bigint
      assert.equal(sent.type, 'application/json', encoding);
      const answered = JSON.parse(text(sent.payload)) as { kind: string; status: string; code: number };
      assert.deepEqual([answered.kind, answered.status, answered.code], ['Status', 'Success', 201], encoding);
    }
    cyclic.self = cyclic;
    const { reply, sent } = fakeReply();
    assert.doesNotThrow(() => send(reply, 200, cyclic, 'yaml'));
    assert.equal(sent.code, 200);
  });

  it('sets Warning values Node accepts whatever the texts hold', () => {
    const { reply, sent } = fakeReply();
    send(reply, 201, { kind: 'ConfigMap' }, 'json', ['unknown field "😀\uffff"', 'a\nb']);
    const values = sent.headers.Warning as string[];
    assert.equal(values.length, 1);
    assert.doesNotMatch(values[0]!, /[^\t\x20-\x7e\x80-\xff]/, 'only chars Node takes in a header');
  });

  it('sets no Warning header when every text is left out', () => {
    const { reply, sent } = fakeReply();
    send(reply, 200, {}, 'json', ['\u0000']);
    assert.equal(sent.headers.Warning, undefined);
  });
});

describe('sendError', () => {
  it('answers an InternalError Status for anything thrown, null and undefined included', () => {
    for (const err of [null, undefined, 42, 'x', Object.create(null) as object]) {
      const { reply, sent } = fakeReply();
      assert.doesNotThrow(() => sendError(reply, err));
      assert.equal(sent.code, 500);
      const status = JSON.parse(text(sent.payload)) as { kind: string; reason: string; code: number };
      assert.deepEqual([status.kind, status.reason, status.code], ['Status', 'InternalError', 500]);
    }
  });
});
