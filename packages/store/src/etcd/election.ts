/**
 * EtcdElection: leadership among processes sharing one etcd, held through an etcd lease.
 *
 * Expected flow: `acquire()` grants a lease of `ttlSeconds` (kept alive by the etcd3 client in the
 * background) and, in one transaction, writes the election key bound to that lease if no one holds
 * it; otherwise it reads the holder. This process leads while the key is bound to its lease. A
 * leader that stops (`release()`) revokes the lease, which deletes the key, so the next process to
 * try takes over at once; one that dies or loses etcd loses the lease within `ttlSeconds`, and the
 * key with it.
 *
 * Guarantees: at most one lease holds the key at any moment (etcd's transaction). A process learns
 * that it lost leadership at its next `acquire()` or when its lease is reported lost; in between it
 * may still think it leads, for up to the lease's time to live. Use it where two leaders for a
 * moment do no harm (store compaction), never as a lock for correctness.
 * Costs: one write (a new revision) per change of leader; renewals write nothing.
 */
import type { Etcd3, Lease } from 'etcd3';
import { CompareResult, CompareTarget } from 'etcd3';
import type { Logger } from '@setpoint/api';
import type { Leadership } from '../compactor.js';

export interface EtcdElectionOptions {
  /** Seconds a lease outlives its holder's last renewal. Default 15. */
  readonly ttlSeconds?: number;
  /** Who this process is, written as the key's value (for operators). Default host name and pid. */
  readonly identity?: string;
  readonly logger: Logger;
}

export class EtcdElection implements Leadership {
  private lease: Lease | undefined;
  private leaseId: string | undefined;
  private readonly ttl: number;
  private readonly identity: Buffer;
  private readonly logger: Logger;

  constructor(
    private readonly client: Etcd3,
    /** The election key in etcd. */
    private readonly key: Buffer,
    options: EtcdElectionOptions,
  ) {
    this.ttl = options.ttlSeconds ?? 15;
    this.identity = Buffer.from(options.identity ?? `${process.env.HOSTNAME ?? 'host'}:${process.pid}`, 'utf8');
    this.logger = options.logger;
  }

  /** Whether this process leads now; campaigns (one transaction) when it does not. */
  async acquire(): Promise<boolean> {
    const leaseId = await this.grant();
    const res = await this.client.kv.txn({
      compare: [{ key: this.key, target: CompareTarget.Create, result: CompareResult.Equal, create_revision: 0 }],
      success: [{ request_put: { key: this.key, value: this.identity, lease: leaseId } }],
      failure: [{ request_range: { key: this.key } }],
    });
    if (res.succeeded) {
      this.logger.info({ key: this.key.toString('utf8') }, 'took leadership');
      return true;
    }
    const holder = res.responses[0]?.response_range?.kvs[0];
    return holder !== undefined && holder.lease === leaseId;
  }

  /** Revokes the lease: the key goes with it, and the next process to try leads. */
  async release(): Promise<void> {
    const lease = this.lease;
    this.lease = undefined;
    this.leaseId = undefined;
    if (lease !== undefined && !lease.revoked()) await lease.revoke();
  }

  private async grant(): Promise<string> {
    if (this.lease !== undefined && this.leaseId !== undefined && !this.lease.revoked()) return this.leaseId;
    const lease = this.client.lease(this.ttl, { autoKeepAlive: true });
    lease.on('lost', (err) => {
      if (this.lease !== lease) return;
      this.logger.warn({ err, key: this.key.toString('utf8') }, 'lost the lease of an election; campaigning again at the next try');
      this.lease = undefined;
      this.leaseId = undefined;
    });
    this.lease = lease;
    try {
      this.leaseId = await lease.grant();
    } catch (err) {
      this.lease = undefined;
      lease.release();
      throw err;
    }
    return this.leaseId;
  }
}
