/**
 * Kubernetes' ValidateLabelSelector (apimachinery meta/v1/validation) for a metav1.LabelSelector read
 * from untyped JSON: matchLabels as labels, each expression's operator, key and values, with
 * Kubernetes' paths and messages. Strict about values (AllowInvalidLabelValueInSelector off).
 */
import { FieldError, isQualifiedName, isValidLabelValue, validateLabels } from '@setpoint/api';
import { arrayAt, child, index, isObject, objectsAt, stringAt, stringMapAt } from './json-fields.js';

/** Returns the errors of `selector` at `path`; [] for an absent selector. */
export function validateLabelSelector(selector: unknown, path: string): FieldError[] {
  if (!isObject(selector)) return [];
  const errs = validateLabels(stringMapAt(selector, 'matchLabels'), child(path, 'matchLabels'));
  for (const [expr, i] of objectsAt(selector, 'matchExpressions')) {
    const p = index(child(path, 'matchExpressions'), i);
    const operator = stringAt(expr, 'operator');
    const values = arrayAt(expr, 'values');
    switch (operator) {
      case 'In':
      case 'NotIn':
        if (values.length === 0) errs.push(FieldError.required(child(p, 'values'), "must be specified when `operator` is 'In' or 'NotIn'"));
        break;
      case 'Exists':
      case 'DoesNotExist':
        if (values.length > 0) errs.push(FieldError.forbidden(child(p, 'values'), "may not be specified when `operator` is 'Exists' or 'DoesNotExist'"));
        break;
      default:
        errs.push(FieldError.invalid(child(p, 'operator'), operator, 'not a valid selector operator'));
    }
    const k = stringAt(expr, 'key');
    errs.push(...isQualifiedName(k).map((msg) => FieldError.invalid(child(p, 'key'), k, msg)));
    values.forEach((v, j) => {
      const value = typeof v === 'string' ? v : '';
      errs.push(...isValidLabelValue(value).map((msg) => FieldError.invalid(index(child(p, 'values'), j), value, msg)));
    });
  }
  return errs;
}

/** The number of requirements a selector states (matchLabels entries plus matchExpressions). */
export function selectorSize(selector: unknown): number {
  return Object.keys(stringMapAt(selector, 'matchLabels')).length + arrayAt(selector, 'matchExpressions').length;
}
