/**
 * PATCH: applies a JSON merge patch, a JSON patch (RFC 6902, `test` included) or a strategic merge
 * patch to the stored object, then writes the result with the revision it was applied to as the
 * precondition, re-applying the patch to the fresh object when someone wrote in between. A
 * metadata.resourceVersion inside the patch is a precondition of its own (409 when stale).
 */
import { ApiError, applyMergePatch, applyStrategicMergePatch, type KubeObject } from '@setpoint/api';
import fastJsonPatch from 'fast-json-patch';
import { findUnknownFields, strictDecodingMessage } from '../registry/unknownfields.js';
import { clone } from './equal.js';
import { guaranteedUpdate } from './guaranteed.js';
import type { ResourceStorage, WriteOptions } from './rest.js';

export type PatchType = 'merge' | 'json' | 'strategic' | 'apply';

const patchTypes: Record<string, PatchType> = {
  'application/merge-patch+json': 'merge',
  'application/json-patch+json': 'json',
  'application/strategic-merge-patch+json': 'strategic',
  'application/apply-patch+yaml': 'apply',
  'application/apply-patch+cbor': 'apply',
};

/** The media types a PATCH of this kind accepts (custom resources take no strategic merge). */
export function acceptedPatchTypes(strategic: boolean): string[] {
  return ['application/json-patch+json', 'application/merge-patch+json', ...(strategic ? ['application/strategic-merge-patch+json'] : []), 'application/apply-patch+yaml'];
}

/** The patch type of a Content-Type header, or undefined. */
export function patchTypeOf(contentType: string | undefined): PatchType | undefined {
  const media = (contentType ?? '').split(';')[0]!.trim().toLowerCase();
  return patchTypes[media];
}

export async function patchObject(
  storage: ResourceStorage,
  namespace: string,
  name: string,
  type: PatchType,
  patch: unknown,
  options: WriteOptions & { subresource?: string; strategic?: boolean } = {},
): Promise<KubeObject> {
  if (type === 'apply' || (type === 'strategic' && (options.strategic === false || storage.def.custom === true))) {
    throw ApiError.unsupportedMediaType(acceptedPatchTypes(options.strategic !== false && storage.def.custom !== true).filter((t) => t !== 'application/apply-patch+yaml' || type !== 'apply'));
  }
  checkPatchFields(storage, type, patch, options);
  const precondition = patchedResourceVersion(type, patch);
  return guaranteedUpdate(storage, namespace, name, ({ obj: current, kv }, attempt) => {
    if (precondition !== undefined && precondition !== current.metadata.resourceVersion) throw ApiError.conflict(storage.gr, name);
    const patched = applyPatch(storage, type, current, patch, name);
    const incoming = storage.checkBody(patched, namespace, name);
    // A JSON patch's unknown fields show only in its result (checked once, not on every retry).
    if (type === 'json' && attempt === 0) {
      // Only fields the patch adds count: unknown fields the object already kept are not the patch's.
      const before = new Set(findUnknownFields(current, storage.def.schema));
      reportUnknownFields(findUnknownFields(incoming, storage.def.schema).filter((f) => !before.has(f)), options);
    }
    const next = storage.merge(incoming, current, options.subresource);
    return { write: () => storage.write(namespace, name, next, current, kv, options), pinned: precondition !== undefined };
  });
}

function applyPatch(storage: ResourceStorage, type: PatchType, current: KubeObject, patch: unknown, name: string): KubeObject {
  let result: unknown;
  switch (type) {
    case 'merge':
      if (typeof patch !== 'object' || patch === null || Array.isArray(patch)) throw ApiError.badRequest('a merge patch must be a JSON object');
      result = applyMergePatch(current, patch);
      break;
    case 'strategic':
      result = applyStrategicMergePatch(current, patch, storage.def.schema);
      break;
    case 'json': {
      if (!Array.isArray(patch)) throw ApiError.badRequest('a JSON patch must be an array of operations');
      try {
        result = fastJsonPatch.applyPatch(clone(current), patch as fastJsonPatch.Operation[], true, true).newDocument;
      } catch (err) {
        // Any failure of the patch library is the patch's (a move into its own child, a banned
        // `__proto__` key throw TypeErrors): Kubernetes answers every patch that does not apply 422.
        throw jsonPatchNotApplied(err instanceof Error ? err : new Error(String(err)));
      }
      break;
    }
    case 'apply':
      throw ApiError.unsupportedMediaType(acceptedPatchTypes(true));
  }
  if (typeof result !== 'object' || result === null || Array.isArray(result)) throw ApiError.badRequest('the patched object is not a JSON object');
  checkPatchedName(result as KubeObject, name);
  return result as KubeObject;
}

/**
 * Kubernetes' checkName on a patch's result: a result without a name (metadata removed, emptied
 * or nulled, or its name removed) is a 400, as the name cannot be told; a different name is
 * refused later by checkBody, with Kubernetes' message for it.
 */
function checkPatchedName(result: KubeObject, name: string): void {
  const meta = (result as { metadata?: unknown }).metadata;
  if (meta !== undefined && meta !== null && (typeof meta !== 'object' || Array.isArray(meta))) return; // checkBody refuses it
  const patchedName = (meta as { name?: unknown } | null | undefined)?.name;
  if (patchedName === undefined || patchedName === null || patchedName === '') {
    throw ApiError.badRequest(`the name of the object (${name} based on URL) was undeterminable: name must be provided`);
  }
}

/**
 * What Kubernetes answers when a JSON patch does not apply (a failed `test`, a path that does not
 * exist, an unknown op): NewGenericServerResponse(422), a bare Invalid without causes.
 */
export function jsonPatchNotApplied(err: Error): ApiError {
  return new ApiError('Invalid', 'the server rejected our request due to an error in our request', { details: {}, cause: err });
}

/**
 * A resourceVersion the patch itself sets (a precondition), if any. A JSON patch `test` of
 * /metadata/resourceVersion is not one: like any failed test it fails the patch (422).
 */
function patchedResourceVersion(type: PatchType, patch: unknown): string | undefined {
  if (type === 'json') {
    if (!Array.isArray(patch)) return undefined;
    for (const op of patch as Array<{ op?: string; path?: string; value?: unknown } | null>) {
      if (typeof op !== 'object' || op === null) continue; // not an operation: the patch fails to apply (422)
      if ((op.op === 'replace' || op.op === 'add') && op.path === '/metadata/resourceVersion' && typeof op.value === 'string') return op.value;
    }
    return undefined;
  }
  const rv = (patch as { metadata?: { resourceVersion?: unknown } } | null)?.metadata?.resourceVersion;
  return typeof rv === 'string' && rv !== '' ? rv : undefined;
}

/** Field validation of the fields a merge or strategic patch sets (its directives aside). */
function checkPatchFields(storage: ResourceStorage, type: PatchType, patch: unknown, options: WriteOptions): void {
  const mode = options.fieldValidation ?? 'Warn';
  if (mode === 'Ignore' || (type !== 'merge' && type !== 'strategic')) return;
  reportUnknownFields(findUnknownFields(stripDirectives(patch), storage.def.schema), options);
}

/** Strict: a 400 strict decoding error; Warn: one warning per field; Ignore: nothing. */
function reportUnknownFields(unknown: readonly string[], options: WriteOptions): void {
  const mode = options.fieldValidation ?? 'Warn';
  if (mode === 'Ignore' || unknown.length === 0) return;
  if (mode === 'Strict') throw ApiError.badRequest(strictDecodingMessage(unknown));
  for (const path of unknown) options.warnings?.push(`unknown field "${path}"`);
}

function stripDirectives(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(stripDirectives);
  if (typeof value !== 'object' || value === null) return value;
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(value)) if (!k.startsWith('$')) out[k] = stripDirectives(v);
  return out;
}
