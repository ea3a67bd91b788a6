/**
 * The schemas of apimachinery's meta/v1 types every kind embeds (ObjectMeta, ListMeta,
 * LabelSelector, Condition) and of TypeMeta's two fields: Kubernetes 1.32's published definitions
 * as inline trees (published.ts), the same objects the kinds' trees hold. Custom resources'
 * schemas (crd/) are built around them.
 *
 * Shared between kinds: treat them as read-only.
 */
import type { Schema } from '@setpoint/api';
import { publishedSchema } from './published.js';

const META_V1 = 'io.k8s.apimachinery.pkg.apis.meta.v1';

/** metav1.ObjectMeta: the metadata of every persisted object. */
export const objectMetaSchema: Schema = publishedSchema(`${META_V1}.ObjectMeta`);
/** metav1.ListMeta: the metadata of a list. */
export const listMetaSchema: Schema = publishedSchema(`${META_V1}.ListMeta`);
/** metav1.LabelSelector: matchLabels ANDed with matchExpressions; atomic under strategic merge. */
export const labelSelectorSchema: Schema = publishedSchema(`${META_V1}.LabelSelector`);
/** metav1.Condition: one aspect of an object's current state. */
export const conditionSchema: Schema = publishedSchema(`${META_V1}.Condition`);

/** apiVersion and kind, the two TypeMeta properties every top-level object and list has. */
export const typeMetaProperties: Readonly<Record<'apiVersion' | 'kind', Schema>> = (() => {
  const { apiVersion, kind } = publishedSchema(`${META_V1}.Status`).properties ?? {};
  if (apiVersion === undefined || kind === undefined) throw new Error('meta/v1 Status publishes no apiVersion and kind');
  return { apiVersion, kind };
})();
