/** The Kubernetes API client: resource clients for every verb, discovery, built-in kinds. */
export { Client, type ClientOptions } from './client.js';
export {
  ResourceClient,
  patchContentTypes,
  type DeleteCollectionOptions,
  type DeleteObjectOptions,
  type FieldValidation,
  type GetOptions,
  type PatchOptions,
  type PatchType,
  type WriteOptions,
} from './resource.js';
export { Discovery, type ApiGroup, type ApiResource, type GroupVersionForDiscovery, type ServerVersion } from './discovery.js';
export { builtin, type BuiltinResource } from './builtin.js';
export { apiVersionOf, groupVersionPath, parseApiVersion, resourcePath, type PathParts } from './paths.js';
