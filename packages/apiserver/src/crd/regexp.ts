/**
 * Regular expressions from CRD schemas (`pattern`), with RE2 semantics as Kubernetes has them
 * (Go's regexp package): Go's syntax (`(?i)`, `\z`, `[[:alpha:]]`, `\pL`, `(?P<name>…)`), no
 * backreferences or lookaround, and matching in time linear in the input, so no value can make
 * validation backtrack. The engine is re2js, a pure JavaScript port of RE2; its syntax errors are
 * worded as Go's (`error parsing regexp: missing argument to repetition operator: `+``).
 *
 * Matching is a search, as Go's `regexp.MatchString` is: anchor with ^ and $ to match the whole value.
 */
import { RE2JS, RE2JSException } from 're2js';

/** A compiled pattern: `test` searches the input, as ajv's RegExpLike and Go's MatchString do. */
export interface Re2Pattern {
  test(input: string): boolean;
  toString(): string;
}

/** A pattern that is not valid RE2 syntax; `message` is Go's, e.g. "error parsing regexp: …". */
export class PatternSyntaxError extends Error {
  constructor(
    readonly pattern: string,
    message: string,
  ) {
    super(message);
    this.name = 'PatternSyntaxError';
  }
}

// Compiled patterns, shared by every schema that names them (kube-openapi caches them too). Bounded:
// the least recently compiled go first.
const CACHE_SIZE = 4096;
const cache = new Map<string, Re2Pattern>();

/** Compiles `pattern` with RE2 semantics; throws PatternSyntaxError when it is not valid. */
export function compilePattern(pattern: string): Re2Pattern {
  const hit = cache.get(pattern);
  if (hit !== undefined) return hit;
  let re: RE2JS;
  try {
    re = RE2JS.compile(pattern);
  } catch (err) {
    if (err instanceof RE2JSException) throw new PatternSyntaxError(pattern, err.message);
    throw err;
  }
  const compiled: Re2Pattern = { test: (input) => re.test(input), toString: () => `re2:${JSON.stringify(pattern)}` };
  if (cache.size >= CACHE_SIZE) cache.delete(cache.keys().next().value!);
  cache.set(pattern, compiled);
  return compiled;
}

/** Go's error for `pattern` ("error parsing regexp: …"), or undefined when it is valid RE2. */
export function patternError(pattern: string): string | undefined {
  try {
    compilePattern(pattern);
    return undefined;
  } catch (err) {
    if (err instanceof PatternSyntaxError) return err.message;
    throw err;
  }
}

/**
 * ajv's `code.regExp` engine: every `pattern` keyword compiles with RE2 (ajv's unicode flag is
 * ignored: RE2 always matches code points).
 */
export const re2Engine = Object.assign((pattern: string, _flags: string): Re2Pattern => compilePattern(pattern), { code: 're2-engine' });
