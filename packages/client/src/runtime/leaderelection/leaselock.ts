/**
 * The lock a leader election runs on: a coordination.k8s.io/v1 Lease, read and written as
 * client-go's resourcelock.LeaseLock does. The election state is a LeaderElectionRecord, kept in
 * the Lease's spec; every write carries the resourceVersion last read or written, so of two
 * candidates racing for the lease the API server lets one win and answers the other 409 Conflict.
 */
import { microTime, type Lease, type LeaseSpec, type MicroTime } from '@setpoint/api';

/** The election state, as the lease's spec holds it (client-go's LeaderElectionRecord). */
export interface LeaderElectionRecord {
  /** Who holds the lease; '' when nobody does (released). */
  readonly holderIdentity: string;
  /** How long after the last observed change others must wait before taking the lease. */
  readonly leaseDurationSeconds: number;
  /** When the current holder acquired the lease. */
  readonly acquireTime: MicroTime | undefined;
  /** When the holder last renewed the lease. */
  readonly renewTime: MicroTime | undefined;
  /** How many times the lease changed hands. */
  readonly leaseTransitions: number;
}

/**
 * A lock that stores one LeaderElectionRecord (client-go's resourcelock.Interface).
 *
 * Guarantees expected of an implementation: update writes only over the version last returned by
 * get, create or update, and fails (ApiError Conflict) when the stored record moved on since.
 * Throws: get throws ApiError NotFound when the record does not exist yet; create throws
 * AlreadyExists when it does; any call may throw transport errors.
 */
export interface ResourceLock {
  get(): Promise<LeaderElectionRecord>;
  create(record: LeaderElectionRecord): Promise<void>;
  update(record: LeaderElectionRecord): Promise<void>;
  /** "namespace/name", for log lines. */
  describe(): string;
}

/**
 * What a LeaseLock needs of the API: get, create and update of leases (a ResourceClient for
 * coordination.k8s.io/v1 leases fits). get throws ApiError NotFound for a missing lease; update
 * sends the object's metadata.resourceVersion as its precondition (409 Conflict when stale).
 */
export interface LeaseClient {
  get(name: string, options: { namespace: string }): Promise<Lease>;
  create(obj: Lease): Promise<Lease>;
  update(obj: Lease): Promise<Lease>;
}

/** Options of a LeaseLock. */
export interface LeaseLockOptions {
  readonly client: LeaseClient;
  readonly namespace: string;
  readonly name: string;
  /** Labels put on the lease when this lock creates it. Default none. */
  readonly labels?: Readonly<Record<string, string>>;
}

/** metav1.MicroTime on the wire for an epoch-ms instant: RFC 3339, six fractional digits, UTC. */
export function formatMicroTime(ms: number): MicroTime {
  return microTime(ms);
}

/** The record a lease spec holds (client-go's LeaseSpecToLeaderElectionRecord). */
export function recordFromLease(spec: LeaseSpec | undefined): LeaderElectionRecord {
  return {
    holderIdentity: spec?.holderIdentity ?? '',
    leaseDurationSeconds: spec?.leaseDurationSeconds ?? 0,
    acquireTime: spec?.acquireTime ?? undefined,
    renewTime: spec?.renewTime ?? undefined,
    leaseTransitions: spec?.leaseTransitions ?? 0,
  };
}

/** The lease spec fields a record sets (client-go's LeaderElectionRecordToLeaseSpec). */
function specFields(record: LeaderElectionRecord): LeaseSpec {
  const spec: LeaseSpec = {
    holderIdentity: record.holderIdentity,
    leaseDurationSeconds: record.leaseDurationSeconds,
    leaseTransitions: record.leaseTransitions,
  };
  if (record.acquireTime !== undefined) spec.acquireTime = record.acquireTime;
  if (record.renewTime !== undefined) spec.renewTime = record.renewTime;
  return spec;
}

/**
 * A ResourceLock on a Lease.
 *
 * Guarantees: update writes the whole record over the lease last read or written by this lock,
 * keeping that lease's metadata (resourceVersion included, hence the Conflict for a stale one) and
 * the spec fields the record does not cover (strategy, preferredHolder); fields the record leaves
 * undefined (acquireTime, renewTime) are removed, as client-go writes them.
 * Assumes: one LeaseLock per candidate, used by one elector.
 * Throws: what the client throws; update throws an Error before any get or create succeeded.
 */
export class LeaseLock implements ResourceLock {
  readonly #client: LeaseClient;
  readonly #namespace: string;
  readonly #name: string;
  readonly #labels: Readonly<Record<string, string>> | undefined;
  /** The lease as last read or written: the base of the next update. */
  #lease: Lease | undefined;

  constructor(options: LeaseLockOptions) {
    if (options.name === '' || options.namespace === '') {
      throw new RangeError('LeaseLock: name and namespace must not be empty');
    }
    this.#client = options.client;
    this.#namespace = options.namespace;
    this.#name = options.name;
    this.#labels = options.labels;
  }

  async get(): Promise<LeaderElectionRecord> {
    const lease = await this.#client.get(this.#name, { namespace: this.#namespace });
    this.#lease = lease;
    return recordFromLease(lease.spec);
  }

  async create(record: LeaderElectionRecord): Promise<void> {
    const metadata: Lease['metadata'] = { name: this.#name, namespace: this.#namespace };
    if (this.#labels !== undefined) metadata.labels = { ...this.#labels };
    this.#lease = await this.#client.create({
      apiVersion: 'coordination.k8s.io/v1',
      kind: 'Lease',
      metadata,
      spec: specFields(record),
    });
  }

  async update(record: LeaderElectionRecord): Promise<void> {
    const base = this.#lease;
    if (base === undefined) throw new Error(`LeaseLock ${this.describe()}: update before get or create`);
    // Keep the spec fields the record does not cover; replace the ones it does.
    const { holderIdentity: _h, leaseDurationSeconds: _d, acquireTime: _a, renewTime: _r, leaseTransitions: _t, ...rest } = base.spec ?? {};
    const next: Lease = { ...base, spec: { ...rest, ...specFields(record) } };
    this.#lease = await this.#client.update(next);
  }

  describe(): string {
    return `${this.#namespace}/${this.#name}`;
  }
}
