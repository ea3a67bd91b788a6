/**
 * Server-side apply: PATCH with `application/apply-patch+yaml` (a YAML or JSON body). The
 * configuration merges into the stored object under the kind's schema; the request's field
 * manager owns exactly the fields it applied; fields other managers own and the apply would change
 * are a 409 Conflict unless `force`; fields the manager applied before and no longer applies go
 * when nobody else owns them. An apply to an object that does not exist creates it (the caller
 * answers 201). Writes carry the revision they were computed from as a precondition and are
 * recomputed when someone wrote in between.
 */
import { ApiError, type KubeObject } from '@setpoint/api';
import { findUnknownFields } from '../registry/unknownfields.js';
import { guaranteedUpdate } from './guaranteed.js';
import { clone } from './equal.js';
import { fieldManagerFor } from './managedfields.js';
import type { ResourceStorage, WriteOptions } from './rest.js';

export interface ApplyOptions extends WriteOptions {
  /** Take fields other managers own instead of failing with a conflict. */
  readonly force?: boolean;
  /** '' (the main resource) or 'status'. */
  readonly subresource?: string;
}

/**
 * Applies `config` to the object `name` for `options.fieldManager` (required, non-empty).
 * Returns the object as stored and whether the apply created it. Throws ApiError: BadRequest
 * (a body that is not an object, of another kind or version, with managedFields, with lists that
 * cannot be merged, or unknown fields under fieldValidation=Strict), Conflict (fields owned by
 * other managers; a stale metadata.resourceVersion), NotFound (a subresource of a missing object),
 * Invalid (the result fails validation).
 */
export async function applyObject(storage: ResourceStorage, namespace: string, name: string, config: unknown, options: ApplyOptions): Promise<{ object: KubeObject; created: boolean }> {
  if (typeof config !== 'object' || config === null || Array.isArray(config)) {
    throw ApiError.badRequest('error decoding YAML: the apply configuration must be an object');
  }
  const manager = options.fieldManager ?? '';
  if (manager === '') throw ApiError.internal(new Error('apply without a field manager'));
  const subresource = options.subresource ?? '';
  const fieldManager = fieldManagerFor(storage.def, subresource);
  checkUnknownFields(storage, config as KubeObject, options);
  // What the kind drops on every write (a custom resource's unknown fields) is not applied, so not owned.
  const applied = clone(config as KubeObject);
  storage.def.strategy.normalize?.(applied);
  const rv = (applied.metadata as { resourceVersion?: unknown } | undefined)?.resourceVersion;
  const precondition = typeof rv === 'string' && rv !== '' ? rv : undefined;
  const writeOptions: ApplyOptions = { ...options, managedFieldsFromApply: true, fieldValidation: 'Ignore' };
  return guaranteedUpdate<{ object: KubeObject; created: boolean }>(
    storage,
    namespace,
    name,
    (current) => {
      const now = storage.ctx(namespace).now;
      if (current === undefined) {
        if (subresource !== '') throw ApiError.notFound(storage.gr, name);
        const result = fieldManager.apply(undefined, applied, { manager, force: options.force === true, now });
        const body = storage.checkBody(result, namespace, name);
        // Created meanwhile (AlreadyExists): guaranteedUpdate applies to what is there then.
        return { write: async () => ({ object: await storage.create(namespace, body, writeOptions), created: true }) };
      }
      const { obj, kv } = current;
      if (precondition !== undefined && precondition !== obj.metadata.resourceVersion) throw ApiError.conflict(storage.gr, name);
      const result = fieldManager.apply(obj, applied, { manager, force: options.force === true, now });
      const incoming = storage.checkBody(result, namespace, name);
      const next = storage.merge(incoming, obj, subresource === '' ? undefined : subresource);
      // A subresource write starts from the stored object: the managedFields are the apply's.
      if (incoming.metadata.managedFields === undefined) delete next.metadata.managedFields;
      else next.metadata.managedFields = incoming.metadata.managedFields;
      return {
        write: async () => ({ object: await storage.write(namespace, name, next, obj, kv, { ...writeOptions, ...(subresource !== '' ? { subresource } : {}) }), created: false }),
        pinned: precondition !== undefined,
      };
    },
    { ignoreNotFound: true },
  );
}

/**
 * Unknown fields of an applied configuration. Kubernetes cannot type them and fails the apply
 * ("field not declared in schema"); Setpoint keeps unknown fields as sent, so it answers as for
 * other writes: Strict refuses them (400, with Kubernetes' wording), Warn reports them in a
 * Warning header, Ignore passes them over.
 */
function checkUnknownFields(storage: ResourceStorage, config: KubeObject, options: ApplyOptions): void {
  const mode = options.fieldValidation ?? 'Warn';
  if (mode === 'Ignore') return;
  const unknown = findUnknownFields(config, storage.def.schema);
  if (unknown.length === 0) return;
  if (mode === 'Strict') {
    const meta = (config.metadata ?? {}) as KubeObject['metadata'];
    const which = unknown.map((path) => `.${path}: field not declared in schema`).join(', ');
    throw ApiError.badRequest(`failed to create typed patch object (${meta.namespace ?? ''}/${meta.name ?? ''}; ${storage.def.group}/${storage.def.version}, Kind=${storage.def.kind}): ${which}`);
  }
  for (const path of unknown) options.warnings?.push(`unknown field "${path}"`);
}
