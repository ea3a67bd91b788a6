/**
 * Label selectors, as k8s.io/apimachinery/pkg/labels/selector.go has them: the string form
 * (`a=b,c==d,e!=f,g in (x,y),h notin (z),i,!j,k>1,l<2`) parsed with Kubernetes' lexer and messages,
 * printed canonically (requirements sorted by key, set values sorted), matched against a label map;
 * and the structured metav1.LabelSelector converted both ways (LabelSelectorAsSelector,
 * ParseToLabelSelector).
 *
 * Every selector is immutable. Invalid input throws ApiError BadRequest whose message is
 * Kubernetes' own (e.g. `unable to parse requirement: found 'b', expected: in, notin, =, ==, !=, gt, lt`).
 */
import { ApiError, FieldError } from '../meta/errors.js';
import { isQualifiedName, isValidLabelValue } from '../names.js';

/** A set of labels: key → value. A key is present only as an own property. */
export type Labels = Readonly<Record<string, string>>;

/**
 * A requirement's operator, spelled as Kubernetes' selection.Operator: '=', '==', '!=' (exact
 * match), 'in', 'notin' (sets), 'exists', '!' (does not exist), 'gt', 'lt' (integer comparison).
 */
export type LabelOperator = '=' | '==' | '!=' | 'in' | 'notin' | 'exists' | '!' | 'gt' | 'lt';

/** Every LabelOperator, in the order Kubernetes lists them in messages. */
export const LABEL_OPERATORS: readonly LabelOperator[] = Object.freeze(['in', 'notin', '=', '==', '!=', 'gt', 'lt', 'exists', '!'] as const);

/**
 * One validated requirement (frozen): `values` has exactly one element for '=', '==', '!=', 'gt',
 * 'lt'; is non-empty, sorted and duplicate-free for 'in' and 'notin'; is empty for 'exists' and '!'.
 */
export interface LabelRequirement {
  readonly key: string;
  readonly operator: LabelOperator;
  readonly values: readonly string[];
}

/** metav1.LabelSelectorOperator. */
export type LabelSelectorOperator = 'In' | 'NotIn' | 'Exists' | 'DoesNotExist';

/** metav1.LabelSelectorRequirement: In/NotIn need values, Exists/DoesNotExist must have none. */
export interface LabelSelectorRequirement {
  key: string;
  /** One of LabelSelectorOperator; any string on the wire (labelSelectorAsSelector refuses the others). */
  operator: LabelSelectorOperator | (string & {});
  values?: string[];
}

/**
 * metav1.LabelSelector, the structured selector in specs (`spec.selector`): the AND of
 * `matchLabels` (key = value) and `matchExpressions`. `{}` selects everything; null selects nothing.
 */
export interface LabelSelector {
  matchLabels?: Record<string, string>;
  matchExpressions?: LabelSelectorRequirement[];
}

// ---------------------------------------------------------------------------------------------
// Requirements

/** Code-unit order, for sorting (its only use). */
function compareStrings(a: string, b: string): number {
  if (a < b) return -1;
  // Stryker disable next-line ConditionalExpression,EqualityOperator: V8's sort (Node's) only asks whether a comparison is below 0, so 1 and 0 sort alike here
  return a > b ? 1 : 0;
}

/** Requirements built here (already valid and frozen), so `add` need not check them again. */
const validated = new WeakSet<LabelRequirement>();

/** Go's strconv.ParseInt(s, 10, 64), or undefined when it would fail. */
function parseInt64(s: string): bigint | undefined {
  if (!/^[+-]?[0-9]+$/.test(s)) return undefined;
  const n = BigInt(s);
  return n >= -(2n ** 63n) && n < 2n ** 63n ? n : undefined;
}

/** Kubernetes' NewRequirement checks; `shownValues` is how the values print in messages (Go's nil prints null). */
function requirementErrors(key: string, operator: string, values: readonly string[], shownValues: unknown): FieldError[] {
  const errs: FieldError[] = [];
  const keyMsgs = isQualifiedName(key);
  if (keyMsgs.length > 0) errs.push(FieldError.invalid('key', key, keyMsgs.join('; ')));
  switch (operator) {
    case 'in':
    case 'notin':
      if (values.length === 0) errs.push(FieldError.invalid('values', shownValues, "for 'in', 'notin' operators, values set can't be empty"));
      break;
    case '=':
    case '==':
    case '!=':
      if (values.length !== 1) errs.push(FieldError.invalid('values', shownValues, 'exact-match compatibility requires one single value'));
      break;
    case 'exists':
    case '!':
      if (values.length !== 0) errs.push(FieldError.invalid('values', shownValues, 'values set must be empty for exists and does not exist'));
      break;
    case 'gt':
    case 'lt':
      if (values.length !== 1) errs.push(FieldError.invalid('values', shownValues, "for 'Gt', 'Lt' operators, exactly one value is required"));
      values.forEach((v, i) => {
        if (parseInt64(v) === undefined) errs.push(FieldError.invalid(`values[${i}]`, v, "for 'Gt', 'Lt' operators, the value must be an integer"));
      });
      break;
    default:
      errs.push(FieldError.notSupported('operator', operator, LABEL_OPERATORS));
  }
  values.forEach((v, i) => {
    const msgs = isValidLabelValue(v);
    if (msgs.length > 0) errs.push(FieldError.invalid(`values[${i}][${key}]`, v, msgs.join('; ')));
  });
  return errs;
}

/** An aggregate of errors as Go's utilerrors prints it: one bare, several as "[a, b]" (duplicates dropped). */
function aggregate(errs: readonly FieldError[]): string {
  const msgs = [...new Set(errs.map((e) => e.toString()))];
  return msgs.length === 1 ? msgs[0]! : `[${msgs.join(', ')}]`;
}

/** A frozen requirement from checked parts; set values are sorted and deduplicated. */
function makeRequirement(key: string, operator: LabelOperator, values: readonly string[]): LabelRequirement {
  const vals = operator === 'in' || operator === 'notin' ? [...new Set(values)].sort(compareStrings) : [...values];
  const r: LabelRequirement = Object.freeze({ key, operator, values: Object.freeze(vals) });
  validated.add(r);
  return r;
}

/** Checks like {@link labelRequirement}, with `shownValues` for messages; throws the aggregate message. */
function checkedRequirement(key: string, operator: LabelOperator, values: readonly string[], shownValues: unknown): LabelRequirement {
  const errs = requirementErrors(key, operator, values, shownValues);
  if (errs.length > 0) throw ApiError.badRequest(aggregate(errs));
  return makeRequirement(key, operator, values);
}

/**
 * A validated requirement (Kubernetes' NewRequirement): the key a qualified name, every value a
 * label value, and the value count right for the operator. Set values come back sorted and
 * deduplicated. Throws ApiError BadRequest with Kubernetes' aggregate message, e.g.
 * `values: Invalid value: []: for 'in', 'notin' operators, values set can't be empty`.
 */
export function labelRequirement(key: string, operator: LabelOperator, values: readonly string[] = []): LabelRequirement {
  return checkedRequirement(key, operator, values, values);
}

function requirementMatches(r: LabelRequirement, labels: Labels): boolean {
  const has = Object.hasOwn(labels, r.key);
  const value = has ? labels[r.key] : undefined;
  switch (r.operator) {
    case 'in':
    case '=':
    case '==':
      return has && r.values.includes(value as string);
    case 'notin':
    case '!=':
      return !has || !r.values.includes(value as string);
    case 'exists':
      return has;
    case '!':
      return !has;
    case 'gt':
    case 'lt': {
      if (!has) return false;
      const actual = parseInt64(value as string);
      const bound = parseInt64(r.values[0] ?? '');
      if (actual === undefined || bound === undefined) return false;
      return r.operator === 'gt' ? actual > bound : actual < bound;
    }
  }
}

function requirementString(r: LabelRequirement): string {
  const v = r.values.join(',');
  switch (r.operator) {
    case '!':
      return `!${r.key}`;
    case 'exists':
      return r.key;
    case 'in':
      return `${r.key} in (${v})`;
    case 'notin':
      return `${r.key} notin (${v})`;
    case 'gt':
      return `${r.key}>${v}`;
    case 'lt':
      return `${r.key}<${v}`;
    case '=':
    case '==':
    case '!=':
      return `${r.key}${r.operator}${v}`;
  }
}

function requirementsEqual(a: LabelRequirement, b: LabelRequirement): boolean {
  return a.key === b.key && a.operator === b.operator && a.values.length === b.values.length && a.values.every((v, i) => v === b.values[i]);
}

// ---------------------------------------------------------------------------------------------
// The selector

/**
 * A label selector (Kubernetes' labels.Selector): the AND of its requirements, kept sorted by key
 * (stable, so requirements on one key keep their order). Immutable. `nothing()` is the one
 * selector that matches no label set.
 */
export class LabelsSelector {
  static readonly #EVERYTHING = new LabelsSelector([], false);
  static readonly #NOTHING = new LabelsSelector([], true);

  readonly #reqs: readonly LabelRequirement[];
  readonly #nothing: boolean;

  private constructor(reqs: readonly LabelRequirement[], nothing: boolean) {
    this.#reqs = reqs;
    this.#nothing = nothing;
    Object.freeze(this);
  }

  /** The selector with no requirements: matches every label set, prints as "", `isEmpty()`. */
  static everything(): LabelsSelector {
    return LabelsSelector.#EVERYTHING;
  }

  /** The selector that matches no label set (a null metav1.LabelSelector); prints as "", not `isEmpty()`. */
  static nothing(): LabelsSelector {
    return LabelsSelector.#NOTHING;
  }

  /**
   * This selector AND the given requirements (Kubernetes' Add), re-sorted by key. `nothing()`
   * stays nothing. Requirements not made by this module are checked as {@link labelRequirement}
   * checks them; throws ApiError BadRequest if one is invalid.
   */
  add(...requirements: readonly LabelRequirement[]): LabelsSelector {
    if (this.#nothing) return this;
    if (requirements.length === 0) return this;
    const added = requirements.map((r) => (validated.has(r) ? r : labelRequirement(r.key, r.operator, r.values)));
    const all = [...this.#reqs, ...added].sort((a, b) => compareStrings(a.key, b.key));
    return new LabelsSelector(Object.freeze(all), false);
  }

  /**
   * True when every requirement holds for `labels`: '=', '==', 'in' need the key present with a
   * listed value; '!=', 'notin' hold when the key is absent or its value is not listed; 'exists'
   * and '!' test presence; 'gt', 'lt' need the key present with an integer value beyond the bound.
   */
  matches(labels: Labels): boolean {
    if (this.#nothing) return false;
    return this.#reqs.every((r) => requirementMatches(r, labels));
  }

  /** True when this selector restricts nothing (`everything()` or an empty string). */
  isEmpty(): boolean {
    return !this.#nothing && this.#reqs.length === 0;
  }

  /** True only for `nothing()`: the selector definitively matches no object. */
  matchesNothing(): boolean {
    return this.#nothing;
  }

  /** The requirements, sorted by key (frozen; empty for everything() and nothing()). */
  requirements(): readonly LabelRequirement[] {
    return this.#reqs;
  }

  /**
   * The value `key` must have, when the first requirement on `key` is '=', '==' or an 'in' with one
   * value (Kubernetes' RequiresExactMatch); otherwise undefined.
   */
  requiresExactMatch(key: string): string | undefined {
    const r = this.#reqs.find((q) => q.key === key);
    if (r === undefined) return undefined;
    if ((r.operator === '=' || r.operator === '==' || r.operator === 'in') && r.values.length === 1) return r.values[0];
    return undefined;
  }

  /** True when both select alike by construction: same requirements in the same order ('=' and '==' differ). */
  equals(other: LabelsSelector): boolean {
    return (
      this.#nothing === other.#nothing &&
      this.#reqs.length === other.#reqs.length &&
      this.#reqs.every((r, i) => requirementsEqual(r, other.#reqs[i]!))
    );
  }

  /**
   * The canonical string form: requirements sorted by key joined by ',', set values sorted, e.g.
   * `a=b,c in (x,y),!d`. "" for everything() and for nothing(). `parseLabelSelector` reads it back
   * to an equal selector (except nothing(), which reads back as everything()).
   */
  toString(): string {
    return this.#reqs.map(requirementString).join(',');
  }

  /**
   * The structured form (Kubernetes' ParseToLabelSelector): '=' and '==' go to `matchLabels` (a
   * later one on the same key wins), 'in', 'notin', 'exists', '!' to `matchExpressions`; `{}` for
   * everything(), null for nothing(). Throws ApiError BadRequest for what the structured form
   * cannot say: `"!=" is not a valid label selector operator`, `"gt" isn't supported in label selectors`.
   */
  toLabelSelector(): LabelSelector | null {
    if (this.#nothing) return null;
    const matchLabels: Record<string, string> = {};
    const matchExpressions: LabelSelectorRequirement[] = [];
    for (const r of this.#reqs) {
      switch (r.operator) {
        case '=':
        case '==':
          matchLabels[r.key] = r.values[0]!;
          break;
        case 'in':
          matchExpressions.push({ key: r.key, operator: 'In', values: [...r.values] });
          break;
        case 'notin':
          matchExpressions.push({ key: r.key, operator: 'NotIn', values: [...r.values] });
          break;
        case 'exists':
          matchExpressions.push({ key: r.key, operator: 'Exists' });
          break;
        case '!':
          matchExpressions.push({ key: r.key, operator: 'DoesNotExist' });
          break;
        case 'gt':
        case 'lt':
          throw ApiError.badRequest(`"${r.operator}" isn't supported in label selectors`);
        case '!=':
          throw ApiError.badRequest(`"${r.operator}" is not a valid label selector operator`);
      }
    }
    const out: LabelSelector = {};
    if (Object.keys(matchLabels).length > 0) out.matchLabels = matchLabels;
    if (matchExpressions.length > 0) out.matchExpressions = matchExpressions;
    return out;
  }
}

// ---------------------------------------------------------------------------------------------
// Structured form

/**
 * A selector matching exactly the given labels (Kubernetes' ValidatedSelectorFromSet): one '='
 * requirement per key; an empty set gives everything(). Throws ApiError BadRequest when a key or
 * value is invalid (e.g. `values[0][a]: Invalid value: "b c": …`).
 */
export function labelSelectorFromSet(set: Labels): LabelsSelector {
  const keys = Object.keys(set).sort(compareStrings);
  return LabelsSelector.everything().add(...keys.map((k) => checkedRequirement(k, '=', [set[k]!], [set[k]!])));
}

const structuredOperators: Readonly<Record<LabelSelectorOperator, LabelOperator>> = {
  In: 'in',
  NotIn: 'notin',
  Exists: 'exists',
  DoesNotExist: '!',
};

/**
 * The selector a metav1.LabelSelector means (Kubernetes' LabelSelectorAsSelector): null or undefined
 * → nothing(); no matchLabels and no matchExpressions → everything(); otherwise each matchLabels
 * entry (in key order) as '=' and each expression as its operator. Throws ApiError BadRequest with
 * Kubernetes' message for an invalid key or value, In/NotIn without values (`values: Invalid value:
 * null: for 'in', 'notin' operators, values set can't be empty`), Exists/DoesNotExist with values,
 * or an unknown operator (`"Foo" is not a valid label selector operator`).
 */
export function labelSelectorAsSelector(selector: LabelSelector | null | undefined): LabelsSelector {
  if (selector === null || selector === undefined) return LabelsSelector.nothing();
  const matchLabels = selector.matchLabels ?? {};
  const expressions = selector.matchExpressions ?? [];
  const keys = Object.keys(matchLabels).sort(compareStrings);
  if (keys.length + expressions.length === 0) return LabelsSelector.everything();
  const reqs: LabelRequirement[] = keys.map((k) => checkedRequirement(k, '=', [matchLabels[k]!], [matchLabels[k]!]));
  for (const expr of expressions) {
    const op = Object.hasOwn(structuredOperators, expr.operator) ? structuredOperators[expr.operator as LabelSelectorOperator] : undefined;
    if (op === undefined) throw ApiError.badRequest(`${JSON.stringify(expr.operator)} is not a valid label selector operator`);
    const values = expr.values ?? [];
    reqs.push(checkedRequirement(expr.key ?? '', op, values, values.length === 0 ? null : values));
  }
  return LabelsSelector.everything().add(...reqs);
}

// ---------------------------------------------------------------------------------------------
// The string form: Kubernetes' lexer and recursive-descent parser

type Token = 'eos' | 'id' | '(' | ')' | ',' | '!' | '=' | '==' | '!=' | '>' | '<' | 'in' | 'notin';

interface Item {
  readonly tok: Token;
  readonly lit: string;
}

const literalTokens = new Map<string, Token>([
  [')', ')'],
  [',', ','],
  ['!', '!'],
  ['==', '=='],
  ['=', '='],
  ['>', '>'],
  ['in', 'in'],
  ['<', '<'],
  ['!=', '!='],
  ['notin', 'notin'],
  ['(', '('],
]);

const isWhitespace = (ch: string): boolean => ch === ' ' || ch === '\t' || ch === '\r' || ch === '\n';
const isSpecialSymbol = (ch: string): boolean =>
  ch === '=' || ch === '!' || ch === '(' || ch === ')' || ch === ',' || ch === '>' || ch === '<';

/** The tokens of `s`, ending with 'eos'. Operators are the longest run of symbols that is a token. */
function lex(s: string): Item[] {
  const items: Item[] = [];
  let pos = 0;
  for (;;) {
    while (pos < s.length && isWhitespace(s[pos]!)) pos++;
    if (pos >= s.length) {
      items.push({ tok: 'eos', lit: '' });
      return items;
    }
    if (isSpecialSymbol(s[pos]!)) {
      // Every single symbol is a token, so `best` is set after the first character.
      let buffer = '';
      let best: Item | undefined;
      while (pos < s.length && isSpecialSymbol(s[pos]!)) {
        buffer += s[pos]!;
        const tok = literalTokens.get(buffer);
        if (tok !== undefined) best = { tok, lit: buffer };
        else if (best !== undefined) break;
        pos++;
      }
      items.push(best!);
    } else {
      const start = pos;
      while (pos < s.length && !isSpecialSymbol(s[pos]!) && !isWhitespace(s[pos]!)) pos++;
      const lit = s.slice(start, pos);
      const tok = literalTokens.get(lit);
      items.push({ tok: tok === 'in' || tok === 'notin' ? tok : 'id', lit });
    }
  }
}

/** A syntax error inside the parser; parseLabelSelector turns it into ApiError BadRequest. */
class LabelSelectorSyntaxError extends Error {
  override readonly name = 'LabelSelectorSyntaxError';
}

/** Where the parser is: after a key 'in'/'notin' are operators; elsewhere they are identifiers. */
type Context = 'keyAndOperator' | 'values';

const BINARY_OPERATORS = 'in, notin, =, ==, !=, gt, lt';

class Parser {
  #position = 0;

  readonly #items: readonly Item[];

  constructor(items: readonly Item[]) {
    this.#items = items;
  }

  #lookahead(context: Context): Item {
    const item = this.#items[Math.min(this.#position, this.#items.length - 1)]!;
    return context === 'values' && (item.tok === 'in' || item.tok === 'notin') ? { tok: 'id', lit: item.lit } : item;
  }

  #consume(context: Context): Item {
    const item = this.#lookahead(context);
    this.#position++;
    return item;
  }

  static #fail(message: string): never {
    throw new LabelSelectorSyntaxError(message);
  }

  static #failRequirement(message: string): never {
    throw new LabelSelectorSyntaxError(`unable to parse requirement: ${message}`);
  }

  parse(): LabelRequirement[] {
    const reqs: LabelRequirement[] = [];
    for (;;) {
      const { tok, lit } = this.#lookahead('values');
      if (tok === 'eos') return reqs;
      if (tok !== 'id' && tok !== '!') Parser.#fail(`found '${lit}', expected: !, identifier, or 'end of string'`);
      reqs.push(this.#parseRequirement());
      const next = this.#consume('values');
      if (next.tok === 'eos') return reqs;
      if (next.tok !== ',') Parser.#fail(`found '${next.lit}', expected: ',' or 'end of string'`);
      const after = this.#lookahead('values');
      if (after.tok !== 'id' && after.tok !== '!') Parser.#fail(`found '${after.lit}', expected: identifier after ','`);
    }
  }

  #parseRequirement(): LabelRequirement {
    const { key, operator } = this.#parseKeyAndInferOperator();
    if (operator === 'exists' || operator === '!') return Parser.#requirement(key, operator, []);
    const op = this.#parseOperator();
    const values = op === 'in' || op === 'notin' ? this.#parseValues() : this.#parseExactValue();
    return Parser.#requirement(key, op, [...new Set(values)].sort(compareStrings));
  }

  static #requirement(key: string, operator: LabelOperator, values: string[]): LabelRequirement {
    const errs = requirementErrors(key, operator, values, values);
    if (errs.length > 0) Parser.#failRequirement(aggregate(errs));
    return makeRequirement(key, operator, values);
  }

  #parseKeyAndInferOperator(): { key: string; operator: LabelOperator | undefined } {
    let operator: LabelOperator | undefined;
    let item = this.#consume('values');
    if (item.tok === '!') {
      operator = '!';
      item = this.#consume('values');
    }
    if (item.tok !== 'id') Parser.#failRequirement(`found '${item.lit}', expected: identifier`);
    const msgs = isQualifiedName(item.lit);
    // Kubernetes validates the key here with a nil field path, which prints as "<nil>".
    if (msgs.length > 0) Parser.#failRequirement(FieldError.invalid('<nil>', item.lit, msgs.join('; ')).toString());
    const next = this.#lookahead('values').tok;
    if ((next === 'eos' || next === ',') && operator !== '!') operator = 'exists';
    return { key: item.lit, operator };
  }

  #parseOperator(): LabelOperator {
    const { tok, lit } = this.#consume('keyAndOperator');
    switch (tok) {
      case 'in':
        return 'in';
      case 'notin':
        return 'notin';
      case '=':
        return '=';
      case '==':
        return '==';
      case '!=':
        return '!=';
      case '>':
        return 'gt';
      case '<':
        return 'lt';
      default:
        return Parser.#failRequirement(`found '${lit}', expected: ${BINARY_OPERATORS}`);
    }
  }

  #parseValues(): string[] {
    const open = this.#consume('values');
    if (open.tok !== '(') Parser.#failRequirement(`found '${open.lit}' expected: '('`);
    const { tok, lit } = this.#lookahead('values');
    if (tok === 'id' || tok === ',') {
      const values = this.#parseIdentifiersList();
      if (this.#consume('values').tok !== ')') Parser.#failRequirement(`found '${lit}', expected: ')'`);
      return values;
    }
    if (tok === ')') {
      this.#consume('values');
      return [''];
    }
    return Parser.#failRequirement(`found '${lit}', expected: ',', ')' or identifier`);
  }

  /** A comma-separated list of possibly empty values, up to (not including) ')'. */
  #parseIdentifiersList(): string[] {
    const values = new Set<string>();
    for (;;) {
      const { tok, lit } = this.#consume('values');
      if (tok === 'id') {
        values.add(lit);
        const next = this.#lookahead('values');
        if (next.tok === ')') return [...values];
        if (next.tok !== ',') Parser.#failRequirement(`found '${next.lit}', expected: ',' or ')'`);
      } else if (tok === ',') {
        if (values.size === 0) values.add(''); // "(,"
        const next = this.#lookahead('values').tok;
        if (next === ')') {
          values.add(''); // ",)"
          return [...values];
        }
        if (next === ',') { this.#consume('values'); values.add(''); } // ",,": Kubernetes consumes its second comma too, so "(x,,)" is an error
      } else {
        Parser.#failRequirement(`found '${lit}', expected: ',', or identifier`);
      }
    }
  }

  #parseExactValue(): string[] {
    const next = this.#lookahead('values').tok;
    if (next === 'eos' || next === ',') return [''];
    const { tok, lit } = this.#consume('values');
    if (tok === 'id') return [lit];
    return Parser.#failRequirement(`found '${lit}', expected: identifier`);
  }
}

/**
 * Parses the string form (Kubernetes' labels.Parse):
 * `<requirement> ("," <requirement>)*` where a requirement is `[!]KEY`, `KEY (=|==|!=|>|<) VALUE`
 * or `KEY (in|notin) (VALUE, …)`; spaces, tabs, CR and LF separate tokens; "" (or only whitespace)
 * gives everything(). Keys must be qualified names, values label values (possibly empty).
 * Throws ApiError BadRequest with Kubernetes' message, e.g. `found ',', expected: !, identifier, or
 * 'end of string'` or `unable to parse requirement: found 'b' expected: '('`.
 */
export function parseLabelSelector(selector: string): LabelsSelector {
  let reqs: LabelRequirement[];
  try {
    reqs = new Parser(lex(selector)).parse();
  } catch (err) {
    if (err instanceof LabelSelectorSyntaxError) throw ApiError.badRequest(err.message);
    throw err;
  }
  return LabelsSelector.everything().add(...reqs);
}
