/** Selectors: label selectors (string and structured form) and field selectors, as Kubernetes has them. */
export { LABEL_OPERATORS, LabelsSelector, labelRequirement, labelSelectorAsSelector, labelSelectorFromSet, parseLabelSelector } from './labels.js';
export type { LabelOperator, LabelRequirement, LabelSelector, LabelSelectorOperator, LabelSelectorRequirement, Labels } from './labels.js';
export { FieldsSelector, escapeFieldValue, fieldSelectorFromSet, parseFieldSelector, unescapeFieldValue } from './fields.js';
export type { FieldOperator, FieldRequirement, Fields } from './fields.js';
