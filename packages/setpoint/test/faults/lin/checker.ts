/**
 * A linearizability checker: is there one order of a history's operations, consistent with their
 * real-time order, in which a sequential model gives every completed operation the output it got?
 *
 * The search is Wing & Gong's, with Lowe's memoization (the approach Porcupine and Knossos' linear
 * checker take): walk the history's call and return entries in time order; at a call, try to
 * linearize that operation now (the model must accept its output in the current state), lift it out
 * of the history and start again from the front; at a return whose operation is not linearized
 * yet, undo the last choice. A configuration — the set of operations linearized and the model
 * state — is explored at most once. The history is first split by key (P-compositionality:
 * linearizability is local, so each object's sub-history is checked alone).
 *
 * Operations whose outcome is unknown (the request failed after it may have reached the server)
 * are open forever, as Knossos treats `:info` operations: they may take effect at any point after
 * their call, or never. Their output, if the model needs one, is `undefined`.
 *
 * Guarantees: `linearizable` and `illegal` are exact for the model given; `timeout` says nothing.
 * For an illegal partition the result names the longest linearizable prefix found and the
 * completed operation that no order could fit. Assumes: operations' ids are unique; a model's
 * step is pure and deterministic; stateKey is injective on the states it returns.
 */

/** One operation of a history. Times are in one clock's milliseconds (performance.now()). */
export interface Operation<I, O> {
  readonly id: number;
  /** Which client issued it (for messages only). */
  readonly client: number;
  /** The object it acts on: operations on different keys are checked independently. */
  readonly key: string;
  readonly input: I;
  /** The output it completed with; undefined when its outcome is unknown. */
  readonly output: O | undefined;
  /** When it was invoked. */
  readonly call: number;
  /** When it completed; undefined when its outcome is unknown (open forever). */
  readonly ret: number | undefined;
}

/** A sequential specification of one object. */
export interface Model<S, I, O> {
  /** The state every key starts in. */
  init(key: string): S;
  /**
   * The state after `input` completes with `output` in `state`, or undefined when that output is
   * impossible there. `output` is undefined for an operation of unknown outcome that takes effect.
   */
  step(state: S, input: I, output: O | undefined): S | undefined;
  /** A string that identifies a state (equal states, equal strings). */
  stateKey(state: S): string;
  /** An operation in words, for explanations. */
  describe(input: I, output: O | undefined): string;
}

export type Outcome = 'linearizable' | 'illegal' | 'timeout';

/** What the search found for one key. */
export interface PartitionResult {
  readonly key: string;
  readonly outcome: Outcome;
  readonly operations: number;
  /** Configurations explored (calls tried). */
  readonly steps: number;
  /** For `illegal`: what went wrong, in lines. */
  readonly explanation?: readonly string[];
}

export interface CheckResult {
  /** illegal if any key is; else timeout if any key timed out; else linearizable. */
  readonly outcome: Outcome;
  readonly partitions: readonly PartitionResult[];
}

export interface CheckOptions {
  /** Give up (outcome `timeout`) after this long. Default 60,000 ms. */
  readonly timeoutMs?: number;
}

/** Checks a history against a model, key by key (see the file comment). */
export function checkLinearizable<S, I, O>(model: Model<S, I, O>, history: readonly Operation<I, O>[], options: CheckOptions = {}): CheckResult {
  const deadline = Date.now() + (options.timeoutMs ?? 60_000);
  const byKey = new Map<string, Operation<I, O>[]>();
  for (const op of history) {
    const list = byKey.get(op.key);
    if (list === undefined) byKey.set(op.key, [op]);
    else list.push(op);
  }
  const partitions = [...byKey.entries()].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)).map(([key, ops]) => checkPartition(model, key, ops, deadline));
  const outcome: Outcome = partitions.some((p) => p.outcome === 'illegal') ? 'illegal' : partitions.some((p) => p.outcome === 'timeout') ? 'timeout' : 'linearizable';
  return { outcome, partitions };
}

/** A call or return entry in the doubly linked list of the search. */
interface Entry<I, O> {
  readonly op: Operation<I, O>;
  /** The operation's index in its partition (its bit). */
  readonly index: number;
  readonly isCall: boolean;
  readonly time: number;
  /** A call's return entry (a return's is itself). */
  match: Entry<I, O>;
  prev: Entry<I, O> | undefined;
  next: Entry<I, O> | undefined;
}

/** The list's entries sorted by time; at equal times calls come first (touching operations count as concurrent). */
function buildList<I, O>(ops: readonly Operation<I, O>[]): Entry<I, O> {
  const entries: Entry<I, O>[] = [];
  ops.forEach((op, index) => {
    const call = { op, index, isCall: true, time: op.call, prev: undefined, next: undefined } as unknown as Entry<I, O>;
    const ret = { op, index, isCall: false, time: op.ret ?? Infinity, prev: undefined, next: undefined } as unknown as Entry<I, O>;
    if (op.ret !== undefined && op.ret < op.call) throw new RangeError(`operation ${op.id} returns before it is called`);
    call.match = ret;
    ret.match = ret;
    entries.push(call, ret);
  });
  entries.sort((a, b) => a.time - b.time || (a.isCall === b.isCall ? a.op.id - b.op.id : a.isCall ? -1 : 1));
  const head = { isCall: false, time: -Infinity, prev: undefined, next: undefined } as unknown as Entry<I, O>;
  let last = head;
  for (const e of entries) {
    last.next = e;
    e.prev = last;
    last = e;
  }
  return head;
}

/** Takes a call entry and its return out of the list. */
function lift<I, O>(call: Entry<I, O>): void {
  call.prev!.next = call.next;
  if (call.next !== undefined) call.next.prev = call.prev;
  const ret = call.match;
  ret.prev!.next = ret.next;
  if (ret.next !== undefined) ret.next.prev = ret.prev;
}

/** Puts back what lift took out (in the reverse order of lifts). */
function unlift<I, O>(call: Entry<I, O>): void {
  const ret = call.match;
  ret.prev!.next = ret;
  if (ret.next !== undefined) ret.next.prev = ret;
  call.prev!.next = call;
  if (call.next !== undefined) call.next.prev = call;
}

/** A set of operation indexes with an incremental (Zobrist) hash, for the memo. */
class LinearizedSet {
  readonly words: Uint32Array;
  h1 = 0;
  h2 = 0;
  constructor(
    size: number,
    private readonly z1: Uint32Array,
    private readonly z2: Uint32Array,
  ) {
    this.words = new Uint32Array(Math.ceil(size / 32));
  }
  toggle(i: number): void {
    this.words[i >>> 5]! ^= 1 << (i & 31);
    this.h1 ^= this.z1[i]!;
    this.h2 ^= this.z2[i]!;
  }
  equals(words: Uint32Array): boolean {
    for (let i = 0; i < words.length; i++) if (words[i] !== this.words[i]) return false;
    return true;
  }
}

function randomWords(n: number): Uint32Array {
  const out = new Uint32Array(n);
  for (let i = 0; i < n; i++) out[i] = Math.floor(Math.random() * 0x1_0000_0000);
  return out;
}

function checkPartition<S, I, O>(model: Model<S, I, O>, key: string, ops: readonly Operation<I, O>[], deadline: number): PartitionResult {
  const head = buildList(ops);
  const linearized = new LinearizedSet(ops.length, randomWords(ops.length), randomWords(ops.length));
  const memo = new Map<string, Uint32Array[]>();
  const stack: { call: Entry<I, O>; state: S }[] = [];
  let state = model.init(key);
  let steps = 0;
  // The deepest point reached, for the explanation of an illegal history.
  let best: { depth: number; order: Operation<I, O>[]; state: S; blocked: Operation<I, O> | undefined; candidates: Operation<I, O>[] } = {
    depth: -1,
    order: [],
    state,
    blocked: undefined,
    candidates: [],
  };

  let entry = head.next;
  while (entry !== undefined) {
    if (entry.isCall) {
      if ((++steps & 1023) === 0 && Date.now() > deadline) return { key, outcome: 'timeout', operations: ops.length, steps };
      const next = model.step(state, entry.op.input, entry.op.output);
      if (next !== undefined) {
        linearized.toggle(entry.index);
        const memoKey = `${linearized.h1}:${linearized.h2}:${model.stateKey(next)}`;
        const seen = memo.get(memoKey);
        if (seen === undefined || !seen.some((w) => linearized.equals(w))) {
          if (seen === undefined) memo.set(memoKey, [linearized.words.slice()]);
          else seen.push(linearized.words.slice());
          stack.push({ call: entry, state });
          state = next;
          lift(entry);
          entry = head.next;
          continue;
        }
        linearized.toggle(entry.index);
      }
      entry = entry.next;
      continue;
    }
    // A return entry whose operation is not linearized. An open operation's return lies after every
    // completed one: reaching it means every completed operation is linearized.
    if (entry.op.ret === undefined) return { key, outcome: 'linearizable', operations: ops.length, steps };
    if (stack.length > best.depth) {
      const candidates: Operation<I, O>[] = [];
      for (let e = head.next; e !== undefined && e !== entry; e = e.next) if (e.isCall) candidates.push(e.op);
      best = { depth: stack.length, order: stack.map((s) => s.call.op), state, blocked: entry.op, candidates };
    }
    const top = stack.pop();
    if (top === undefined) return { key, outcome: 'illegal', operations: ops.length, steps, explanation: explain(model, key, ops.length, best) };
    state = top.state;
    linearized.toggle(top.call.index);
    unlift(top.call);
    entry = top.call.next;
  }
  return { key, outcome: 'linearizable', operations: ops.length, steps };
}

function describeOp<S, I, O>(model: Model<S, I, O>, op: Operation<I, O>): string {
  const ret = op.ret === undefined ? 'open' : op.ret.toFixed(1);
  return `#${op.id} client ${op.client} [${op.call.toFixed(1)}, ${ret}] ${model.describe(op.input, op.output)}`;
}

function explain<S, I, O>(
  model: Model<S, I, O>,
  key: string,
  total: number,
  best: { depth: number; order: Operation<I, O>[]; state: S; blocked: Operation<I, O> | undefined; candidates: Operation<I, O>[] },
): string[] {
  const lines = [`key ${key}: not linearizable; the longest linearizable prefix has ${best.depth} of ${total} operations, ending in state ${model.stateKey(best.state)}`];
  for (const op of best.order.slice(-5)) lines.push(`  … ${describeOp(model, op)}`);
  if (best.blocked !== undefined) lines.push(`then this completed operation cannot be placed: ${describeOp(model, best.blocked)}`);
  lines.push('operations that could have come next:');
  for (const op of best.candidates.slice(0, 20)) lines.push(`  ${describeOp(model, op)}`);
  return lines;
}
