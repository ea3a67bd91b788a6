/**
 * The authentication.k8s.io/v1 review kind SelfSubjectReview: create-only and never stored; a POST
 * answers who the request authenticated as (routes/selfsubjectreview.ts). `kubectl auth whoami`
 * uses it. (TokenRequest is not a kind of its own here: it is the serviceaccounts/token
 * subresource, routes/tokenrequest.ts.)
 */
import { publishedKindSchema } from '../../schemas/published.js';
import type { ResourceDef } from '../../types.js';

/** selfsubjectreviews: who am I? */
export const selfSubjectReviewResource: ResourceDef = {
  group: 'authentication.k8s.io',
  version: 'v1',
  createOnly: true,
  strategy: {},
  resource: 'selfsubjectreviews',
  singular: 'selfsubjectreview',
  kind: 'SelfSubjectReview',
  listKind: 'SelfSubjectReviewList',
  namespaced: false,
  schema: publishedKindSchema('authentication.k8s.io', 'v1', 'SelfSubjectReview'),
};

/** The authentication.k8s.io kinds. */
export const authenticationResources: ResourceDef[] = [selfSubjectReviewResource];
