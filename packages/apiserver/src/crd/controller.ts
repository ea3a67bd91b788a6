/**
 * The API server's own controller for CustomResourceDefinitions: it makes what is served match the
 * CRDs stored, level-triggered, and reports what it did in each CRD's status.
 *
 * Per CRD name (a key in a coalescing queue, retried with per-key backoff, resynced periodically):
 * - absent: stop serving its kinds;
 * - invalid as stored (written before a validation rule existed, or straight into the store: a
 *   pattern that is not RE2, a malformed field): serve nothing, Established=False with the field
 *   errors as message (NamesAccepted=False too when the names are what is wrong);
 * - names conflict with another CRD or a built-in kind in the same group: serve nothing,
 *   NamesAccepted=False;
 * - otherwise: add the cleanup finalizer, serve every served version (side effect first), then
 *   record NamesAccepted=True and Established=True, acceptedNames and storedVersions — the status
 *   is written only when it changes;
 * - being deleted: Terminating=True, delete every object of the kind, and once none is left stop
 *   serving and remove the finalizer, which lets the CRD go.
 *
 * Failures are contained per CRD: an exception reconciling one is caught, logged with its name,
 * counted (controller_runtime_reconcile_errors_total, and _panics_total for exceptions that are not
 * API or store errors, with controller="customresourcedefinition") and retried with backoff, while
 * every other CRD keeps reconciling; a malformed neighbour is skipped by the name-conflict check.
 */
import { ApiError, jsonClone, rfc3339, silentLogger, type Clock, type Condition, type CustomResourceDefinition, type FieldError, type KubeObject, type Logger } from '@setpoint/api';
import { isStoreError } from '@setpoint/store';
import { KeyedLoop } from '@setpoint/workqueue';
import { Counter, type Registry } from 'prom-client';
import type { ResourceDef } from '../registry/types.js';
import { jsonEqual } from '../storage/equal.js';
import type { ResourceStorage } from '../storage/rest.js';
import { validateCrd } from './definition.js';
import { CRD_CLEANUP_FINALIZER, customResourceDefs, storageVersion } from './resources.js';

/** A CustomResourceDefinition's condition (the generated type: its times may be null on the wire). */
type CrdCondition = NonNullable<NonNullable<CustomResourceDefinition['status']>['conditions']>[number];

/** The controller label of this controller's error and panic counters. */
export const CRD_CONTROLLER_NAME = 'customresourcedefinition';

/** What the controller needs from the API server. */
export interface CrdHost {
  /** The storage of customresourcedefinitions. */
  readonly crds: ResourceStorage;
  /** Serves `defs` for the CRD `name`, replacing what it served before ([] stops serving). */
  serve(name: string, defs: readonly ResourceDef[]): Promise<void>;
  /** The storage of a served kind. */
  storageOf(def: ResourceDef): ResourceStorage | undefined;
  /** Whether a built-in kind (not from a CRD) is served at group/resource or with group/kind. */
  builtinConflict(group: string, resource: string, kind: string): boolean;
}

export interface CrdControllerOptions {
  readonly clock: Clock;
  readonly logger?: Logger;
  /** How often every CRD is looked at again. Default 60 s. */
  readonly resyncMs?: number;
  /** How often a terminating CRD checks whether its objects are gone. Default 1 s. */
  readonly cleanupPollMs?: number;
  /** Where the error and panic counters are registered (the API server's /metrics). */
  readonly registry?: Registry;
}

/** A counter registered once per registry (several controllers may share one). */
function counter(registry: Registry | undefined, name: string, help: string): Counter<'controller'> {
  const existing = registry?.getSingleMetric(name);
  if (existing instanceof Counter) return existing as Counter<'controller'>;
  return new Counter({ name, help, labelNames: ['controller'], registers: registry ? [registry] : [] });
}

function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/** The CRD's name, or '' for an object without one (a malformed one from the store). */
function nameOf(obj: KubeObject): string {
  const name = (obj as { metadata?: { name?: unknown } }).metadata?.name;
  return typeof name === 'string' ? name : '';
}

/** Field errors as kube's aggregate prints them: one alone, several as [a, b]. */
function aggregate(errors: readonly string[]): string {
  return errors.length === 1 ? errors[0]! : `[${errors.join(', ')}]`;
}

const NAME_FIELDS = /^(metadata\.name|spec\.(group|names|scope))\b/;

export class CrdController {
  /** The queue of CRD names, its per-name backoff (100 ms doubling to 10 s) and the resync. */
  private readonly loop: KeyedLoop<string>;
  /** The spec (and therefore defs) each CRD is served with now. */
  private readonly served = new Map<string, { spec: unknown; defs: readonly ResourceDef[] }>();
  private unsubscribe: (() => void) | undefined;
  private readonly logger: Logger;
  private readonly errors: Counter<'controller'>;
  private readonly panics: Counter<'controller'>;

  constructor(
    private readonly host: CrdHost,
    private readonly options: CrdControllerOptions,
  ) {
    this.logger = (options.logger ?? silentLogger).child({ component: 'crd-controller' });
    this.errors = counter(options.registry, 'controller_runtime_reconcile_errors_total', 'Reconciles that failed, per controller.');
    this.panics = counter(options.registry, 'controller_runtime_reconcile_panics_total', 'Reconciles that threw an unexpected exception, per controller.');
    this.loop = new KeyedLoop<string>({
      clock: options.clock,
      reconcile: (name) => this.reconcile(name),
      onError: (name, err, delay) => {
        const expected = err instanceof ApiError || isStoreError(err);
        this.errors.inc({ controller: CRD_CONTROLLER_NAME });
        if (expected) this.logger.warn({ err, crd: name, retryInMs: delay }, 'reconciling a CRD failed');
        else {
          this.panics.inc({ controller: CRD_CONTROLLER_NAME });
          this.logger.error({ err, crd: name, retryInMs: delay }, 'reconciling a CRD threw; other CRDs carry on');
        }
      },
    });
  }

  /** Serves every CRD already stored (before the server takes requests), then follows changes. */
  async start(): Promise<void> {
    this.unsubscribe = this.host.crds.cache.onChange((obj) => this.enqueue(nameOf(obj)));
    for (const crd of this.host.crds.cache.snapshot()) this.enqueue(nameOf(crd));
    await this.loop.idle();
    this.loop.resyncEvery(this.options.resyncMs ?? 60_000, () => {
      for (const crd of this.host.crds.cache.snapshot()) this.enqueue(nameOf(crd));
      for (const name of this.served.keys()) this.enqueue(name);
    });
  }

  stop(): void {
    this.unsubscribe?.();
    this.loop.stop();
  }

  /** Resolves once the queue is empty (tests). */
  async idle(): Promise<void> {
    await this.loop.idle();
  }

  enqueue(name: string): void {
    if (name !== '') this.loop.enqueue(name);
  }

  /** One pass for one CRD; returns a delay after which to look again, if it must. */
  private async reconcile(name: string): Promise<number | undefined> {
    let crd: CustomResourceDefinition;
    try {
      crd = (await this.host.crds.get('', name)) as CustomResourceDefinition;
    } catch (err) {
      if (!(err instanceof ApiError && err.reason === 'NotFound')) throw err;
      await this.unserve(name);
      return undefined;
    }
    if (crd.metadata.deletionTimestamp !== undefined) return this.terminate(crd);

    // A spec served as it is now was valid when it was served; anything else is checked first.
    const current = this.served.get(name);
    const unchanged = current !== undefined && jsonEqual(current.spec, crd.spec);
    const invalid = unchanged ? [] : this.problems(crd);
    if (invalid.length > 0) {
      await this.unserve(name);
      const names = invalid.filter((e) => NAME_FIELDS.test(e));
      const conditions =
        names.length > 0
          ? [this.condition(crd, 'NamesAccepted', 'False', 'InvalidNames', aggregate(names)), this.condition(crd, 'Established', 'False', 'NotAccepted', 'not all names are accepted')]
          : [this.namesCondition(crd), this.condition(crd, 'Established', 'False', invalid.every((e) => e.includes('.schema.openAPIV3Schema')) ? 'InvalidSchema' : 'InvalidSpec', aggregate(invalid))];
      this.logger.warn({ crd: name, errors: invalid }, 'not serving a CRD that is invalid as stored');
      await this.writeStatus(crd, conditions, false);
      return undefined;
    }

    const conflict = this.namesConflict(crd);
    if (conflict !== undefined) {
      await this.unserve(name);
      await this.writeStatus(crd, [this.condition(crd, 'NamesAccepted', 'False', conflict.reason, conflict.message), this.condition(crd, 'Established', 'False', 'NotAccepted', 'not all names are accepted')], false);
      return undefined;
    }
    if (!(crd.metadata.finalizers ?? []).includes(CRD_CLEANUP_FINALIZER)) {
      crd = (await this.host.crds.update('', name, { ...crd, metadata: { ...crd.metadata, finalizers: [...(crd.metadata.finalizers ?? []), CRD_CLEANUP_FINALIZER] } })) as CustomResourceDefinition;
    }
    if (!unchanged) {
      const defs = customResourceDefs(crd);
      await this.host.serve(name, defs);
      this.served.set(name, { spec: jsonClone(crd.spec), defs });
      this.logger.info({ crd: name, versions: defs.map((d) => d.version) }, 'serving custom resource');
    }
    await this.writeStatus(
      crd,
      [this.condition(crd, 'NamesAccepted', 'True', 'NoConflicts', 'no conflicts found'), this.condition(crd, 'Established', 'True', 'InitialNamesAccepted', 'the initial names have been accepted')],
      true,
    );
    return undefined;
  }

  /** Why the CRD as stored cannot be served (its validation errors), or []. */
  private problems(crd: CustomResourceDefinition): string[] {
    try {
      return validateCrd(crd as KubeObject).map((e: FieldError) => e.toString());
    } catch (err) {
      return [`spec: Invalid value: the definition cannot be read: ${err instanceof Error ? err.message : String(err)}`];
    }
  }

  /** NamesAccepted for a CRD whose names are valid: False on a conflict, else True. */
  private namesCondition(crd: CustomResourceDefinition): Condition {
    const conflict = this.namesConflict(crd);
    return conflict !== undefined ? this.condition(crd, 'NamesAccepted', 'False', conflict.reason, conflict.message) : this.condition(crd, 'NamesAccepted', 'True', 'NoConflicts', 'no conflicts found');
  }

  private async unserve(name: string): Promise<void> {
    if (!this.served.has(name)) return;
    await this.host.serve(name, []);
    this.served.delete(name);
    this.logger.info({ crd: name }, 'stopped serving custom resource');
  }

  /** Names another CRD (or a built-in kind) of the same group already uses. */
  private namesConflict(crd: CustomResourceDefinition): { reason: string; message: string } | undefined {
    const { group, names } = crd.spec;
    if (this.host.builtinConflict(group, names.plural, names.kind)) return { reason: 'PluralConflict', message: `"${names.plural}" is already in use` };
    for (const other of this.host.crds.cache.snapshot() as CustomResourceDefinition[]) {
      // A malformed neighbour (straight from the store) claims no names.
      if (!isObject(other.spec) || !isObject(other.spec.names) || nameOf(other) === '') continue;
      if (other.metadata.name === crd.metadata.name || other.spec.group !== group) continue;
      // The older CRD keeps its names.
      if ((other.metadata.creationTimestamp ?? '') > (crd.metadata.creationTimestamp ?? '')) continue;
      const taken = new Set([other.spec.names.plural, other.spec.names.singular, ...(other.spec.names.shortNames ?? [])]);
      if (taken.has(names.plural)) return { reason: 'PluralConflict', message: `"${names.plural}" is already in use` };
      if (names.singular !== undefined && taken.has(names.singular)) return { reason: 'SingularConflict', message: `"${names.singular}" is already in use` };
      const short = names.shortNames?.find((s) => taken.has(s));
      if (short !== undefined) return { reason: 'ShortNamesConflict', message: `"${short}" is already in use` };
      if (other.spec.names.kind === names.kind) return { reason: 'KindConflict', message: `"${names.kind}" is already in use` };
    }
    return undefined;
  }

  /** Deletes the CRD's objects; once none is left, stops serving and lets the CRD go. */
  private async terminate(crd: CustomResourceDefinition): Promise<number | undefined> {
    const name = crd.metadata.name!;
    if (!(crd.metadata.finalizers ?? []).includes(CRD_CLEANUP_FINALIZER)) {
      await this.unserve(name);
      return undefined;
    }
    await this.writeStatus(crd, [this.condition(crd, 'Terminating', 'True', 'InstanceDeletionInProgress', 'CustomResource deletion is in progress')], false);
    const served = this.served.get(name);
    const def = served?.defs.find((d) => d.version === storageVersionOf(crd)) ?? served?.defs[0];
    const storage = def && this.host.storageOf(def);
    if (storage !== undefined) {
      const left = storage.cache.snapshot();
      for (const obj of left) {
        if (obj.metadata.deletionTimestamp !== undefined) continue;
        try {
          await storage.delete(obj.metadata.namespace ?? '', obj.metadata.name!, { propagationPolicy: 'Background' });
        } catch (err) {
          if (!(err instanceof ApiError && err.reason === 'NotFound')) throw err;
        }
      }
      if (left.length > 0) return this.options.cleanupPollMs ?? 1000;
    }
    await this.unserve(name);
    const finalizers = (crd.metadata.finalizers ?? []).filter((f) => f !== CRD_CLEANUP_FINALIZER);
    try {
      await this.host.crds.update('', name, { ...crd, metadata: { ...crd.metadata, finalizers } });
    } catch (err) {
      if (err instanceof ApiError && err.reason === 'NotFound') return undefined;
      if (isStoreError(err, 'Conflict') || (err instanceof ApiError && err.reason === 'Conflict')) return 0;
      throw err;
    }
    return undefined;
  }

  /** A condition with its transition time kept when its status does not change. */
  private condition(crd: CustomResourceDefinition, type: string, status: Condition['status'], reason: string, message: string): Condition {
    const list = crd.status?.conditions;
    const existing = Array.isArray(list) ? list.find((c) => isObject(c as unknown) && c.type === type) : undefined;
    const kept = existing !== undefined && existing.status === status && existing.lastTransitionTime;
    const lastTransitionTime = kept ? existing.lastTransitionTime! : rfc3339(this.options.clock.now());
    return { type, status, lastTransitionTime, reason, message };
  }

  /** Writes conditions (and, when established, acceptedNames and storedVersions) if they change. */
  private async writeStatus(crd: CustomResourceDefinition, conditions: Condition[], established: boolean): Promise<void> {
    const status: NonNullable<CustomResourceDefinition['status']> = isObject(crd.status) ? jsonClone(crd.status) : {};
    const list: CrdCondition[] = Array.isArray(status.conditions) ? status.conditions.filter((c) => isObject(c as unknown)) : [];
    for (const c of conditions) {
      const i = list.findIndex((x) => x.type === c.type);
      if (i < 0) list.push(c);
      else list[i] = c;
    }
    status.conditions = list;
    if (!isObject(status.acceptedNames)) delete status.acceptedNames;
    if (!Array.isArray(status.storedVersions)) delete status.storedVersions;
    if (established) {
      status.acceptedNames = jsonClone(crd.spec.names);
      const stored = new Set(status.storedVersions ?? []);
      stored.add(storageVersion(crd));
      status.storedVersions = [...stored];
    } else {
      status.acceptedNames ??= { plural: '', kind: '' };
      status.storedVersions ??= [];
    }
    if (jsonEqual(status, crd.status ?? {})) return;
    await this.host.crds.update('', crd.metadata.name!, { ...crd, status } as KubeObject, { subresource: 'status' });
  }
}

/** The storage version, or undefined for a CRD whose versions are malformed. */
function storageVersionOf(crd: CustomResourceDefinition): string | undefined {
  try {
    return storageVersion(crd);
  } catch {
    return undefined;
  }
}
