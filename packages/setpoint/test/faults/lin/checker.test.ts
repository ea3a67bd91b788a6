/**
 * The linearizability checker on histories whose answer is known: hand-made classics, open
 * (unknown-outcome) operations, partitions by key, and random histories — generated from an atomic
 * register (linearizable by construction), then corrupted — against a brute-force search over every
 * order.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { checkLinearizable, type Operation } from './checker.js';
import { HistoryRecorder } from './history.js';
import { registerModel, type RegisterInput, type RegisterOutput } from './register.js';

type Op = Operation<RegisterInput, RegisterOutput>;
const model = registerModel('0');

let nextId = 0;
function op(client: number, call: number, ret: number | undefined, input: RegisterInput, output: RegisterOutput | undefined, key = 'k'): Op {
  return { id: nextId++, client, key, input, output, call, ret };
}
const get = (value: string | null): [RegisterInput, RegisterOutput] => [{ f: 'get' }, value];
const put = (value: string): [RegisterInput, RegisterOutput] => [{ f: 'put', value }, true];
const cas = (from: string, to: string, ok: boolean): [RegisterInput, RegisterOutput] => [{ f: 'cas', from, to }, ok];
const at = (client: number, call: number, ret: number | undefined, [input, output]: [RegisterInput, RegisterOutput], key?: string): Op =>
  op(client, call, ret, input, ret === undefined ? undefined : output, key);

const outcome = (history: Op[]) => checkLinearizable(model, history).outcome;

describe('linearizability checker: known histories', () => {
  it('a sequential history is linearizable exactly when each read sees the last write', () => {
    assert.equal(outcome([at(0, 0, 1, put('a')), at(0, 2, 3, get('a'))]), 'linearizable');
    assert.equal(outcome([at(0, 0, 1, put('a')), at(1, 2, 3, get('0'))]), 'illegal', 'a stale read after the write completed');
    assert.equal(outcome([at(0, 0, 1, get('0'))]), 'linearizable', 'the initial value');
    assert.equal(outcome([at(0, 0, 1, get('x'))]), 'illegal', 'a value nobody wrote');
  });

  it('a read concurrent with a write may see either value', () => {
    assert.equal(outcome([at(0, 0, 10, put('a')), at(1, 2, 3, get('0'))]), 'linearizable');
    assert.equal(outcome([at(0, 0, 10, put('a')), at(1, 2, 3, get('a'))]), 'linearizable');
  });

  it('two readers after two concurrent writes cannot disagree on which came last', () => {
    const writes = [at(0, 0, 10, put('a')), at(1, 0, 10, put('b'))];
    assert.equal(outcome([...writes, at(2, 11, 12, get('a')), at(2, 13, 14, get('a'))]), 'linearizable');
    assert.equal(outcome([...writes, at(2, 11, 12, get('a')), at(3, 13, 14, get('b'))]), 'illegal');
  });

  it('reads may not go back in time: once a reader saw the new value, a later reader must too', () => {
    const history = [at(0, 0, 100, put('a')), at(1, 10, 20, get('a')), at(2, 30, 40, get('0'))];
    assert.equal(outcome(history), 'illegal');
  });

  it('compare-and-set: of two concurrent swaps from the same value only one can win', () => {
    assert.equal(outcome([at(0, 0, 10, cas('0', 'a', true)), at(1, 0, 10, cas('0', 'b', false))]), 'linearizable');
    assert.equal(outcome([at(0, 0, 10, cas('0', 'a', true)), at(1, 0, 10, cas('0', 'b', true))]), 'illegal');
    assert.equal(outcome([at(0, 0, 10, cas('0', 'a', true)), at(1, 0, 10, cas('a', 'b', true)), at(2, 11, 12, get('b'))]), 'linearizable');
    assert.equal(outcome([at(0, 0, 1, cas('0', 'a', false))]), 'illegal', 'a failed swap although the value matched');
    assert.equal(outcome([at(0, 0, 1, cas('x', 'a', false)), at(0, 2, 3, get('0'))]), 'linearizable');
  });

  it('an open write may take effect any time after its call, or never', () => {
    const open = at(0, 5, undefined, put('a'));
    assert.equal(outcome([open, at(1, 10, 11, get('a')), at(1, 12, 13, get('a'))]), 'linearizable', 'took effect');
    assert.equal(outcome([at(0, 5, undefined, put('a')), at(1, 10, 11, get('0'))]), 'linearizable', 'never took effect');
    assert.equal(outcome([at(0, 5, undefined, put('a')), at(1, 1, 2, get('a'))]), 'illegal', 'seen before it was called');
    assert.equal(outcome([at(0, 5, undefined, put('a')), at(1, 10, 11, get('a')), at(1, 12, 13, get('0'))]), 'illegal', 'took effect, then undone');
  });

  it('an open compare-and-set may have swapped or not', () => {
    assert.equal(outcome([at(0, 0, undefined, cas('0', 'a', true)), at(1, 5, 6, get('a'))]), 'linearizable');
    assert.equal(outcome([at(0, 0, undefined, cas('0', 'a', true)), at(1, 5, 6, get('0'))]), 'linearizable');
    assert.equal(outcome([at(0, 0, 1, put('b')), at(0, 2, undefined, cas('0', 'a', true)), at(1, 5, 6, get('a'))]), 'illegal');
  });

  it('keys are checked apart, and the illegal one is named with an explanation', () => {
    const result = checkLinearizable(model, [at(0, 0, 1, put('a'), 'x'), at(1, 2, 3, get('0'), 'y'), at(1, 4, 5, get('0'), 'x')]);
    assert.equal(result.outcome, 'illegal');
    assert.deepEqual(result.partitions.map((p) => [p.key, p.outcome]), [['x', 'illegal'], ['y', 'linearizable']]);
    const text = result.partitions[0]!.explanation!.join('\n');
    assert.match(text, /key x: not linearizable/);
    assert.match(text, /cannot be placed: #\d+ client 1 .*get → "0"/);
  });

  it('gives up with timeout when the search exceeds its time', () => {
    // Many concurrent writes and reads that cannot all fit: exponential without the memo, and
    // more than 0 ms with it.
    const history: Op[] = [];
    for (let i = 0; i < 10; i++) history.push(at(i, 0, 100, put(`v${i}`)));
    history.push(at(20, 101, 102, get('nope')));
    assert.equal(checkLinearizable(model, history, { timeoutMs: -1 }).outcome, 'timeout');
    assert.equal(checkLinearizable(model, history).outcome, 'illegal');
  });
});

describe('HistoryRecorder', () => {
  it('keeps completed and open operations and leaves out failed ones', () => {
    const rec = new HistoryRecorder<RegisterInput, RegisterOutput>();
    rec.invoke(0, 'k', { f: 'put', value: 'a' }).ok(true);
    rec.invoke(1, 'k', { f: 'put', value: 'b' }).failed();
    rec.invoke(2, 'k', { f: 'put', value: 'c' }).unknown();
    const read = rec.invoke(3, 'k', { f: 'get' });
    read.ok('a');
    assert.throws(() => read.ok('a'), /ended twice/);
    const ops = rec.operations();
    assert.deepEqual(ops.map((o) => [o.client, o.output, o.ret === undefined]), [[0, true, false], [2, undefined, true], [3, 'a', false]]);
    assert.deepEqual(rec.counts(), { ok: 2, unknown: 1, failed: 1 });
    assert.equal(checkLinearizable(registerModel(null), ops).outcome, 'linearizable');
  });
});

/** A seeded random source (mulberry32), so a failing case can be replayed. */
function rng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/**
 * A history of `clients` sequential clients on an atomic register: each operation takes effect at
 * a random instant inside its interval; some become open (and then take effect or not).
 */
function atomicHistory(random: () => number, clients: number, perClient: number, values: string[], openRate = 0.1): Op[] {
  const planned: { op: Omit<Op, 'output'>; at: number; applies: boolean }[] = [];
  let id = 0;
  for (let c = 0; c < clients; c++) {
    let t = random() * 5;
    for (let i = 0; i < perClient; i++) {
      const call = t + random() * 3;
      const ret = call + 0.5 + random() * 6;
      const pick = random();
      const input: RegisterInput =
        pick < 0.4 ? { f: 'get' } : pick < 0.7 ? { f: 'put', value: values[Math.floor(random() * values.length)]! } : { f: 'cas', from: values[Math.floor(random() * values.length)]!, to: values[Math.floor(random() * values.length)]! };
      const open = input.f !== 'get' && random() < openRate;
      planned.push({ op: { id: id++, client: c, key: 'k', input, call, ret: open ? undefined : ret }, at: call + random() * (ret - call), applies: !open || random() < 0.5 });
      t = ret;
    }
  }
  let state: string | null = '0';
  const outputs = new Map<number, RegisterOutput>();
  for (const p of [...planned].sort((a, b) => a.at - b.at)) {
    if (!p.applies) continue;
    const input = p.op.input;
    if (input.f === 'get') outputs.set(p.op.id, state);
    else if (input.f === 'put') {
      state = input.value;
      outputs.set(p.op.id, true);
    } else {
      const ok = state === input.from;
      if (ok) state = input.to;
      outputs.set(p.op.id, ok);
    }
  }
  return planned.map((p) => ({ ...p.op, output: p.op.ret === undefined ? undefined : outputs.get(p.op.id) }));
}

/** Every order consistent with real time, every subset of the open operations: linearizable? */
function bruteForce(history: readonly Op[]): boolean {
  const search = (state: string | null, remaining: readonly Op[]): boolean => {
    if (remaining.every((o) => o.ret === undefined)) return true;
    for (const candidate of remaining) {
      const rest = remaining.filter((o) => o !== candidate);
      // An open operation may never take effect.
      if (candidate.ret === undefined && search(state, rest)) return true;
      // It may go next only if no other remaining operation returned before it was called.
      if (rest.some((o) => o.ret !== undefined && o.ret < candidate.call)) continue;
      const next = model.step(state, candidate.input, candidate.output);
      if (next !== undefined && search(next, rest)) return true;
    }
    return false;
  };
  return search('0', history);
}

describe('linearizability checker: random histories', () => {
  it('accepts every history of an atomic register', () => {
    const random = rng(1);
    for (let i = 0; i < 300; i++) {
      const history = atomicHistory(random, 2 + Math.floor(random() * 5), 3 + Math.floor(random() * 30), ['a', 'b', 'c', '0']);
      const result = checkLinearizable(model, history);
      assert.equal(result.outcome, 'linearizable', `case ${i}: ${result.partitions[0]?.explanation?.join('\n')}`);
    }
  });

  it('agrees with a brute-force search on small corrupted histories', () => {
    const random = rng(2);
    let illegal = 0;
    for (let i = 0; i < 400; i++) {
      const history = atomicHistory(random, 2 + Math.floor(random() * 2), 1 + Math.floor(random() * 3), ['a', 'b', '0']);
      // Corrupt one completed operation's output.
      const done = history.filter((o) => o.ret !== undefined);
      const victim = done[Math.floor(random() * done.length)];
      const corrupted = history.map((o) => {
        if (o !== victim) return o;
        if (o.input.f === 'get') return { ...o, output: ['a', 'b', '0', null][Math.floor(random() * 4)]! };
        if (o.input.f === 'cas') return { ...o, output: !o.output };
        return o;
      });
      const expected = bruteForce(corrupted);
      if (!expected) illegal++;
      assert.equal(checkLinearizable(model, corrupted).outcome, expected ? 'linearizable' : 'illegal', `case ${i}: ${JSON.stringify(corrupted)}`);
    }
    assert.ok(illegal > 50, `enough illegal cases (${illegal})`);
  });

  it('checks a long history of concurrent clients with open operations', () => {
    // About the shape of a fault test's key: 8 clients, thousands of operations, a few open ones.
    // (The search is exponential in how many operations overlap: 16 clients on one key take seconds.)
    const random = rng(3);
    const history = atomicHistory(random, 8, 500, ['a', 'b', 'c', 'd', 'e', '0'], 0.005);
    assert.equal(history.length, 4000);
    const result = checkLinearizable(model, history, { timeoutMs: 20_000 });
    assert.equal(result.outcome, 'linearizable');
  });
});
