/**
 * PodTemplate (v1, namespaced): a pod template stored on its own, for clients that keep templates
 * apart from their controllers. Defaults as SetObjectDefaults_PodTemplate (the pod spec defaults
 * of its template); validation as ValidatePodTemplate and ValidatePodTemplateUpdate (a DNS
 * subdomain name, then the template as any pod template: labels, annotations, spec, no ephemeral
 * containers). generation moves when the template changes, as for any kind.
 */
import { nameIsDNSSubdomain } from '@setpoint/api';
import { defaultPodTemplateSpec } from '../pod/defaults.js';
import { publishedKindSchema } from '../../schemas/published.js';
import type { ResourceDef } from '../../types.js';
import { objectAt } from '../../validation/json-fields.js';
import { validatePodTemplateSpec } from '../pod/validation-spec.js';
import { podTemplatePrinter } from './table.js';

/** podtemplates (v1). */
export const podTemplateResource: ResourceDef = {
  group: '',
  version: 'v1',
  resource: 'podtemplates',
  protobuf: true,
  printer: podTemplatePrinter,
  singular: 'podtemplate',
  kind: 'PodTemplate',
  listKind: 'PodTemplateList',
  namespaced: true,
  schema: publishedKindSchema('', 'v1', 'PodTemplate'),
  nameValidator: nameIsDNSSubdomain,
  strategy: {
    defaults: (obj) => defaultPodTemplateSpec(obj['template']),
    validate: (obj) => validatePodTemplateSpec(objectAt(obj, 'template') ?? {}, 'template'),
  },
};
