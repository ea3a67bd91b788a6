/**
 * The authentication.k8s.io/v1 review kind SelfSubjectReview: create-only and never stored; a POST
 * answers who the request authenticated as (routes/selfsubjectreview.ts). `kubectl auth whoami`
 * uses it. (TokenRequest is not a kind of its own here: it is the serviceaccounts/token
 * subresource, routes/tokenrequest.ts.)
 */
import { atomicStringList, kindSchema, objectField, stringField } from '../schemas/meta.js';
import type { ResourceDef } from '../types.js';

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
  schema: kindSchema({
    group: 'authentication.k8s.io',
    version: 'v1',
    kind: 'SelfSubjectReview',
    description: 'The user the API server authenticated the request as.',
    properties: {
      status: objectField('Filled in by the server.', {
        userInfo: objectField('The authenticated user.', {
          username: stringField('The user name.'),
          uid: stringField('A value that identifies the user across time.'),
          groups: atomicStringList('The groups of the user.'),
          extra: { type: 'object', description: 'What the authenticator adds about the credential.', additionalProperties: { type: 'array', description: 'Values.', items: { type: 'string', default: '' } } },
        }),
      }),
    },
  }),
};

/** The authentication.k8s.io kinds. */
export const authenticationResources: ResourceDef[] = [selfSubjectReviewResource];
