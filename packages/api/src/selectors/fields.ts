/**
 * Field selectors, as k8s.io/apimachinery/pkg/fields/selector.go has them: `a=b,c==d,e!=f`, terms
 * split on unescaped commas, values escaped with `\,`, `\=` and `\\`; matched against a map of an
 * object's field values (a missing field counts as ""). Field names are taken as written (no
 * trimming, no validation): a server checks them against the fields it supports via `requirements()`.
 *
 * Every selector is immutable. Invalid input throws ApiError BadRequest with Kubernetes' message.
 */
import { ApiError, FieldError } from '../meta/errors.js';

/** An object's selectable fields: field path → value (e.g. "metadata.name" → "web-0"). */
export type Fields = Readonly<Record<string, string>>;

/** A field requirement's operator as Kubernetes' selection.Operator spells it ('==' parses as '='). */
export type FieldOperator = '=' | '!=';

/** One field requirement (frozen): the field must (=) or must not (!=) have the value. */
export interface FieldRequirement {
  readonly field: string;
  readonly operator: FieldOperator;
  readonly value: string;
}

// ---------------------------------------------------------------------------------------------
// Escaping

/**
 * Escapes a literal value for the string form (Kubernetes' EscapeValue): `\` → `\\`, `,` → `\,`,
 * `=` → `\=`. Never throws.
 */
export function escapeFieldValue(value: string): string {
  return value.replace(/[\\,=]/g, (c) => `\\${c}`);
}

/**
 * The literal value of an escaped one (Kubernetes' UnescapeValue). Throws ApiError BadRequest for
 * an unknown escape (`invalid field selector: invalid escape sequence: \x`), a trailing lone `\`,
 * or an unescaped `,` or `=` (`invalid field selector: unescaped character in value: 61`, the
 * character's code point, as Go prints a rune).
 */
export function unescapeFieldValue(value: string): string {
  if (!/[\\,=]/.test(value)) return value;
  let out = '';
  let inSlash = false;
  for (const c of value) {
    if (inSlash) {
      if (c !== '\\' && c !== ',' && c !== '=') throw ApiError.badRequest(`invalid field selector: invalid escape sequence: \\${c}`);
      out += c;
      inSlash = false;
    } else if (c === '\\') {
      inSlash = true;
    } else if (c === ',' || c === '=') {
      throw ApiError.badRequest(`invalid field selector: unescaped character in value: ${c.codePointAt(0)!}`);
    } else {
      out += c;
    }
  }
  if (inSlash) throw ApiError.badRequest('invalid field selector: invalid escape sequence: \\');
  return out;
}

// ---------------------------------------------------------------------------------------------
// The selector

function termString(r: FieldRequirement): string {
  return `${r.field}${r.operator}${escapeFieldValue(r.value)}`;
}

/** Code-unit order, for sorting (its only use). */
function compareStrings(a: string, b: string): number {
  if (a < b) return -1;
  // Stryker disable next-line ConditionalExpression,EqualityOperator: V8's sort (Node's) only asks whether a comparison is below 0, so 1 and 0 sort alike here
  return a > b ? 1 : 0;
}

/**
 * A field selector (Kubernetes' fields.Selector): the AND of its requirements, kept sorted by their
 * printed form so that equal selectors print and compare equal. Immutable. `nothing()` is the one
 * selector that matches no object.
 */
export class FieldsSelector {
  static readonly #EVERYTHING = new FieldsSelector([], false);
  static readonly #NOTHING = new FieldsSelector([], true);

  readonly #reqs: readonly FieldRequirement[];
  readonly #nothing: boolean;

  private constructor(reqs: readonly FieldRequirement[], nothing: boolean) {
    this.#reqs = reqs;
    this.#nothing = nothing;
    Object.freeze(this);
  }

  /** The selector with no requirements: matches everything, prints as "", `isEmpty()`. */
  static everything(): FieldsSelector {
    return FieldsSelector.#EVERYTHING;
  }

  /** The selector that matches nothing; prints as "", not `isEmpty()`. */
  static nothing(): FieldsSelector {
    return FieldsSelector.#NOTHING;
  }

  /**
   * This selector AND the given requirements. A requirement with an empty field and an empty value
   * is dropped (as Kubernetes drops "=" when parsing); `nothing()` stays nothing. Assumes field names
   * contain no ',', '=' or '\' and do not end in '!' (else the printed form would not parse back).
   * Throws ApiError BadRequest for an operator other than '=' or '!='.
   */
  add(...requirements: readonly FieldRequirement[]): FieldsSelector {
    if (this.#nothing || requirements.length === 0) return this;
    const added: FieldRequirement[] = [];
    for (const { field, operator, value } of requirements) {
      if (operator !== '=' && operator !== '!=') {
        throw ApiError.badRequest(FieldError.notSupported('operator', operator, ['=', '!=']).toString());
      }
      if (field === '' && value === '') continue;
      added.push(Object.freeze({ field, operator, value }));
    }
    if (added.length === 0) return this;
    const all = [...this.#reqs, ...added].sort((a, b) => compareStrings(termString(a), termString(b)));
    return new FieldsSelector(Object.freeze(all), false);
  }

  /** True when every requirement holds for `fields`; a field that is not an own property counts as "". */
  matches(fields: Fields): boolean {
    if (this.#nothing) return false;
    return this.#reqs.every((r) => {
      const actual = Object.hasOwn(fields, r.field) ? fields[r.field] : '';
      return r.operator === '=' ? actual === r.value : actual !== r.value;
    });
  }

  /** True when this selector restricts nothing (`everything()`, "" or only empty terms). */
  isEmpty(): boolean {
    return !this.#nothing && this.#reqs.length === 0;
  }

  /** True only for `nothing()`. */
  matchesNothing(): boolean {
    return this.#nothing;
  }

  /** The requirements (frozen; empty for everything() and nothing()), so a server can check which fields are used. */
  requirements(): readonly FieldRequirement[] {
    return this.#reqs;
  }

  /** The value `field` must equal when the selector has a `field=value` requirement (the first one); else undefined. */
  exactMatch(field: string): string | undefined {
    return this.#reqs.find((r) => r.field === field && r.operator === '=')?.value;
  }

  /** True when both have the same requirements (and both are, or are not, nothing()). */
  equals(other: FieldsSelector): boolean {
    return (
      this.#nothing === other.#nothing &&
      this.#reqs.length === other.#reqs.length &&
      this.#reqs.every((r, i) => {
        const o = other.#reqs[i]!;
        return r.field === o.field && r.operator === o.operator && r.value === o.value;
      })
    );
  }

  /**
   * The canonical string form: `field=value` / `field!=value` terms (values escaped) sorted and
   * joined by ','. "" for everything() and nothing(). `parseFieldSelector` reads it back to an equal
   * selector (except nothing(), which reads back as everything()).
   */
  toString(): string {
    return this.#reqs.map(termString).join(',');
  }
}

/**
 * A selector requiring each field to equal its value (Kubernetes' SelectorFromSet); an empty set
 * gives everything(). Never throws.
 */
export function fieldSelectorFromSet(set: Fields): FieldsSelector {
  return FieldsSelector.everything().add(...Object.entries(set).map(([field, value]) => ({ field, operator: '=' as const, value })));
}

// ---------------------------------------------------------------------------------------------
// Parsing

/** The comma-separated terms, a backslash-escaped comma staying inside its term (escape kept). */
function splitTerms(selector: string): string[] {
  if (selector.length === 0) return [];
  const terms: string[] = [];
  let start = 0;
  let inSlash = false;
  for (let i = 0; i < selector.length; i++) {
    const c = selector[i];
    if (inSlash) inSlash = false;
    else if (c === '\\') inSlash = true;
    else if (c === ',') {
      terms.push(selector.slice(start, i));
      start = i + 1;
    }
  }
  terms.push(selector.slice(start));
  return terms;
}

/** '!=' and '==' are tried before '=' so no '=' is left on the value. */
const termOperators = ['!=', '==', '='] as const;

/** Splits a term at the first operator: the field is everything before it, unescaped. */
function splitTerm(term: string): { field: string; op: (typeof termOperators)[number]; rhs: string } | undefined {
  for (let i = 0; i < term.length; i++) {
    for (const op of termOperators) {
      if (term.startsWith(op, i)) return { field: term.slice(0, i), op, rhs: term.slice(i + op.length) };
    }
  }
  return undefined;
}

/**
 * Parses the string form (Kubernetes' fields.ParseSelector): terms `field=value`, `field==value`
 * (the same as '=') or `field!=value` separated by unescaped commas; empty terms and terms with an
 * empty field and value are ignored, so "" gives everything(). Nothing is trimmed. Terms are read in
 * sorted order, so the first bad term in that order is reported. Throws ApiError BadRequest:
 * `invalid selector: 'x'; can't understand 'x'` for a term without an operator, or the messages of
 * {@link unescapeFieldValue} for a badly escaped value.
 */
export function parseFieldSelector(selector: string): FieldsSelector {
  const reqs: FieldRequirement[] = [];
  for (const part of splitTerms(selector).sort(compareStrings)) {
    if (part === '') continue;
    const term = splitTerm(part);
    if (term === undefined) throw ApiError.badRequest(`invalid selector: '${selector}'; can't understand '${part}'`);
    const value = unescapeFieldValue(term.rhs);
    reqs.push({ field: term.field, operator: term.op === '!=' ? '!=' : '=', value });
  }
  return FieldsSelector.everything().add(...reqs);
}
