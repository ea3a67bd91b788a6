/**
 * The authorization.k8s.io/v1 review kinds: SelfSubjectAccessReview, SelfSubjectRulesReview,
 * SubjectAccessReview and LocalSubjectAccessReview. They are create-only and never stored: a POST
 * answers the review with its status filled in (authz/reviews.ts). `kubectl auth can-i` uses the
 * first two.
 */
import type { Schema } from '@setpoint/api';
import { atomicList, atomicStringList, booleanField, kindSchema, objectField, stringField } from '../schemas/meta.js';
import type { ResourceDef } from '../types.js';

/** The API group of the review kinds. */
export const AUTHORIZATION_GROUP = 'authorization.k8s.io';

/** metav1.FieldSelectorRequirement and LabelSelectorRequirement: a key, an operator, values. */
const selectorRequirement = (key: string): Schema =>
  objectField(
    'A requirement: a key, an operator (In, NotIn, Exists, DoesNotExist) and values.',
    { key: stringField(key, { default: '' }), operator: stringField('In, NotIn, Exists or DoesNotExist.', { default: '' }), values: atomicStringList('Values for In and NotIn.') },
    ['key', 'operator'],
  );

const resourceAttributes = objectField('A resource request to check.', {
  group: stringField('The API group of the resource; "*" means all.'),
  name: stringField('The name of the object; "" means all.'),
  namespace: stringField('The namespace; "" means all namespaces (or none, for cluster-scoped resources).'),
  resource: stringField('The resource; "*" means all.'),
  subresource: stringField('The subresource; "" means none.'),
  verb: stringField('The verb (get, list, watch, create, update, patch, delete, deletecollection, …); "*" means all.'),
  version: stringField('The API version of the resource; "*" means all.'),
  fieldSelector: objectField('A field selector that limits the request (ignored by RBAC).', {
    rawSelector: stringField('The selector as a query parameter carries it.'),
    requirements: atomicList('The selector as parsed requirements.', selectorRequirement('The field selector key.')),
  }),
  labelSelector: objectField('A label selector that limits the request (ignored by RBAC).', {
    rawSelector: stringField('The selector as a query parameter carries it.'),
    requirements: atomicList('The selector as parsed requirements.', selectorRequirement('The label key.')),
  }),
});

const nonResourceAttributes = objectField('A non-resource request to check.', {
  path: stringField('The URL path ("/healthz").'),
  verb: stringField('The lower-case HTTP verb ("get").'),
});

const accessStatus = objectField('The answer, filled in by the server.', {
  allowed: booleanField('Whether the action would be allowed.'),
  denied: booleanField('Whether the action would be denied outright (false when no authorizer has an opinion).'),
  evaluationError: stringField('An error met while evaluating, if any.'),
  reason: stringField('Why the action is allowed or denied.'),
});

function accessReview(kind: string, description: string, subjectFields: boolean): Schema {
  return kindSchema({
    group: AUTHORIZATION_GROUP,
    version: 'v1',
    kind,
    description,
    properties: {
      spec: objectField('The request to review.', {
        nonResourceAttributes,
        resourceAttributes,
        ...(subjectFields
          ? {
              extra: { type: 'object', description: 'Extra user attributes.', additionalProperties: { type: 'array', description: 'Values.', items: { type: 'string', default: '' } } },
              groups: atomicStringList('The groups of the user to check.'),
              uid: stringField('The uid of the user to check.'),
              user: stringField('The user to check.'),
            }
          : {}),
      }),
      status: accessStatus,
    },
    required: ['spec'],
  });
}

const rulesStatus = objectField('The rules, filled in by the server.', {
  evaluationError: stringField('An error met while evaluating, if any.'),
  incomplete: booleanField('True when an authorizer could not list its rules (node identities).'),
  nonResourceRules: {
    type: 'array',
    description: 'Verbs on non-resource URLs.',
    'x-kubernetes-list-type': 'atomic',
    items: objectField('A non-resource rule.', { nonResourceURLs: atomicStringList('URLs.'), verbs: atomicStringList('Verbs.') }, ['verbs']),
  },
  resourceRules: {
    type: 'array',
    description: 'Verbs on resources.',
    'x-kubernetes-list-type': 'atomic',
    items: objectField(
      'A resource rule.',
      { apiGroups: atomicStringList('API groups.'), resourceNames: atomicStringList('Names.'), resources: atomicStringList('Resources.'), verbs: atomicStringList('Verbs.') },
      ['verbs'],
    ),
  },
});

const common = { group: AUTHORIZATION_GROUP, version: 'v1', createOnly: true, strategy: {} } as const;

/** selfsubjectaccessreviews: can I do this? */
export const selfSubjectAccessReviewResource: ResourceDef = {
  ...common,
  resource: 'selfsubjectaccessreviews',
  singular: 'selfsubjectaccessreview',
  kind: 'SelfSubjectAccessReview',
  listKind: 'SelfSubjectAccessReviewList',
  namespaced: false,
  schema: accessReview('SelfSubjectAccessReview', 'Checks whether the requesting user may perform an action.', false),
};

/** selfsubjectrulesreviews: what may I do in this namespace? */
export const selfSubjectRulesReviewResource: ResourceDef = {
  ...common,
  resource: 'selfsubjectrulesreviews',
  singular: 'selfsubjectrulesreview',
  kind: 'SelfSubjectRulesReview',
  listKind: 'SelfSubjectRulesReviewList',
  namespaced: false,
  schema: kindSchema({
    group: AUTHORIZATION_GROUP,
    version: 'v1',
    kind: 'SelfSubjectRulesReview',
    description: 'Lists what the requesting user may do in a namespace.',
    properties: { spec: objectField('The namespace to list the rules of.', { namespace: stringField('The namespace.') }), status: rulesStatus },
    required: ['spec'],
  }),
};

/** subjectaccessreviews: may this user do this? */
export const subjectAccessReviewResource: ResourceDef = {
  ...common,
  resource: 'subjectaccessreviews',
  singular: 'subjectaccessreview',
  kind: 'SubjectAccessReview',
  listKind: 'SubjectAccessReviewList',
  namespaced: false,
  schema: accessReview('SubjectAccessReview', 'Checks whether a user or group may perform an action.', true),
};

/** localsubjectaccessreviews: may this user do this in this namespace? */
export const localSubjectAccessReviewResource: ResourceDef = {
  ...common,
  resource: 'localsubjectaccessreviews',
  singular: 'localsubjectaccessreview',
  kind: 'LocalSubjectAccessReview',
  listKind: 'LocalSubjectAccessReviewList',
  namespaced: true,
  schema: accessReview('LocalSubjectAccessReview', 'Checks whether a user or group may perform an action in one namespace.', true),
};

/** The four review kinds. */
export const authorizationResources: ResourceDef[] = [selfSubjectAccessReviewResource, selfSubjectRulesReviewResource, subjectAccessReviewResource, localSubjectAccessReviewResource];
