/**
 * The sequential model of one key: a register holding a string (or nothing), with get, put and
 * compare-and-set — what a Kubernetes object's field offers through GET, an unconditional PUT and a
 * JSON patch whose `test` guards its `replace`.
 */
import type { Model } from './checker.js';

export type RegisterInput =
  | { readonly f: 'get' }
  | { readonly f: 'put'; readonly value: string }
  | { readonly f: 'cas'; readonly from: string; readonly to: string };

/**
 * get: the value read (null: the key does not exist); put: true; cas: whether it swapped.
 * undefined: the outcome is unknown (the operation may or may not have taken effect).
 */
export type RegisterOutput = string | null | boolean;

/** The register model; every key starts as `initial` (default null: absent). */
export function registerModel(initial: string | null = null): Model<string | null, RegisterInput, RegisterOutput> {
  return {
    init: () => initial,
    step(state, input, output) {
      switch (input.f) {
        case 'get':
          // A read of unknown outcome constrains nothing: it may be placed anywhere.
          return output === undefined || output === state ? state : undefined;
        case 'put':
          return input.value;
        case 'cas':
          if (output === undefined) return state === input.from ? input.to : state;
          if (output === true) return state === input.from ? input.to : undefined;
          return state !== input.from ? state : undefined;
      }
    },
    stateKey: (state) => (state === null ? '∅' : JSON.stringify(state)),
    describe(input, output) {
      const out = output === undefined ? '?' : JSON.stringify(output);
      switch (input.f) {
        case 'get':
          return `get → ${out}`;
        case 'put':
          return `put ${JSON.stringify(input.value)} → ${out}`;
        case 'cas':
          return `cas ${JSON.stringify(input.from)} → ${JSON.stringify(input.to)} → ${out}`;
      }
    },
  };
}
