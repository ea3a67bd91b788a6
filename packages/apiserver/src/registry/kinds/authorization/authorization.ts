/**
 * The authorization.k8s.io/v1 review kinds: SelfSubjectAccessReview, SelfSubjectRulesReview,
 * SubjectAccessReview and LocalSubjectAccessReview. They are create-only and never stored: a POST
 * answers the review with its status filled in (authz/reviews.ts). `kubectl auth can-i` uses the
 * first two.
 */
import { publishedKindSchema } from '../../schemas/published.js';
import type { ResourceDef } from '../../types.js';

/** The API group of the review kinds. */
export const AUTHORIZATION_GROUP = 'authorization.k8s.io';

const common = { group: AUTHORIZATION_GROUP, version: 'v1', createOnly: true, strategy: {} } as const;

/** selfsubjectaccessreviews: can I do this? */
export const selfSubjectAccessReviewResource: ResourceDef = {
  ...common,
  resource: 'selfsubjectaccessreviews',
  protobuf: true,
  singular: 'selfsubjectaccessreview',
  kind: 'SelfSubjectAccessReview',
  listKind: 'SelfSubjectAccessReviewList',
  namespaced: false,
  schema: publishedKindSchema(AUTHORIZATION_GROUP, 'v1', 'SelfSubjectAccessReview'),
};

/** selfsubjectrulesreviews: what may I do in this namespace? */
export const selfSubjectRulesReviewResource: ResourceDef = {
  ...common,
  resource: 'selfsubjectrulesreviews',
  protobuf: true,
  singular: 'selfsubjectrulesreview',
  kind: 'SelfSubjectRulesReview',
  listKind: 'SelfSubjectRulesReviewList',
  namespaced: false,
  schema: publishedKindSchema(AUTHORIZATION_GROUP, 'v1', 'SelfSubjectRulesReview'),
};

/** subjectaccessreviews: may this user do this? */
export const subjectAccessReviewResource: ResourceDef = {
  ...common,
  resource: 'subjectaccessreviews',
  protobuf: true,
  singular: 'subjectaccessreview',
  kind: 'SubjectAccessReview',
  listKind: 'SubjectAccessReviewList',
  namespaced: false,
  schema: publishedKindSchema(AUTHORIZATION_GROUP, 'v1', 'SubjectAccessReview'),
};

/** localsubjectaccessreviews: may this user do this in this namespace? */
export const localSubjectAccessReviewResource: ResourceDef = {
  ...common,
  resource: 'localsubjectaccessreviews',
  protobuf: true,
  singular: 'localsubjectaccessreview',
  kind: 'LocalSubjectAccessReview',
  listKind: 'LocalSubjectAccessReviewList',
  namespaced: true,
  schema: publishedKindSchema(AUTHORIZATION_GROUP, 'v1', 'LocalSubjectAccessReview'),
};

/** The four review kinds. */
export const authorizationResources: ResourceDef[] = [selfSubjectAccessReviewResource, selfSubjectRulesReviewResource, subjectAccessReviewResource, localSubjectAccessReviewResource];
