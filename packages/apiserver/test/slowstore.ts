/**
 * A Store whose reads and writes of some keys are held back: until a gate opens, or by a delay.
 * For tests of what the server does when its store is slow (limits, timeouts, overload).
 */
import type { Store } from '@setpoint/store';

const HELD = new Set(['get', 'list', 'count', 'create', 'update', 'delete']);

export interface SlowStore {
  readonly store: Store;
  /** Holds every matching operation until `open()`. */
  close(): void;
  /** Lets held operations (and later ones) through. */
  open(): void;
  /** Delays each matching operation by this many ms (0: none). */
  delayMs: number;
  /** Matching operations waiting at the gate now. */
  readonly waiting: number;
}

/** Wraps `inner`; operations whose key (or prefix) `matches` are slowed. Watches pass through. */
export function slowStore(inner: Store, matches: (key: string) => boolean): SlowStore {
  let gate: Promise<void> | undefined;
  let release: (() => void) | undefined;
  let waiting = 0;
  const control = {
    delayMs: 0,
    close() {
      if (gate !== undefined) return;
      gate = new Promise((resolve) => (release = resolve));
    },
    open() {
      release?.();
      gate = undefined;
      release = undefined;
    },
    get waiting() {
      return waiting;
    },
  };
  const store = new Proxy(inner, {
    get(target, prop, receiver) {
      const value: unknown = Reflect.get(target, prop, receiver);
      if (typeof value !== 'function') return value;
      if (typeof prop !== 'string' || !HELD.has(prop)) return (value as (...a: unknown[]) => unknown).bind(target);
      return async (...args: unknown[]) => {
        if (typeof args[0] === 'string' && matches(args[0])) {
          while (gate !== undefined) {
            waiting++;
            try {
              await gate;
            } finally {
              waiting--;
            }
          }
          if (control.delayMs > 0) await new Promise((resolve) => setTimeout(resolve, control.delayMs));
        }
        return (value as (...a: unknown[]) => unknown).apply(target, args);
      };
    },
  });
  return Object.assign(control, { store }) as SlowStore;
}

/** Waits until `condition()` holds, polling; throws after `ms`. */
export async function until(condition: () => boolean | Promise<boolean>, ms = 5000, what = 'the condition'): Promise<void> {
  const deadline = Date.now() + ms;
  while (!(await condition())) {
    if (Date.now() > deadline) throw new Error(`${what} did not hold within ${ms} ms`);
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
}
