/**
 * The etcd store of `setpoint server|up --store etcd`: endpoints, key prefix and TLS from the flags.
 * Several API servers on one etcd cluster each open their own; they share revisions, watches and
 * the compaction election (docs/etcd.md).
 */
import { readFile } from 'node:fs/promises';
import { resolve } from 'node:path';
import type { Logger } from '@setpoint/api';
import { EtcdStore } from '@setpoint/store';
import { parseEndpoints } from './flags.js';

/** The etcd flags of `setpoint server` and `setpoint up`. */
export interface EtcdFlags {
  etcdEndpoints?: string;
  etcdPrefix?: string;
  etcdCafile?: string;
  etcdCertfile?: string;
  etcdKeyfile?: string;
}

/** Opens the EtcdStore the flags describe; throws a one-line Error for bad flags, StoreError when etcd does not answer. */
export async function openEtcdStore(flags: EtcdFlags, logger: Logger): Promise<EtcdStore> {
  checkEtcdFlags(flags, 'etcd');
  const endpoints = parseEndpoints(flags.etcdEndpoints!, '--etcd-endpoints');
  const read = (file: string | undefined) => (file === undefined ? undefined : readFile(resolve(file)));
  const [ca, cert, key] = await Promise.all([read(flags.etcdCafile), read(flags.etcdCertfile), read(flags.etcdKeyfile)]);
  return EtcdStore.open({
    endpoints,
    etcdPrefix: flags.etcdPrefix ?? '',
    ...(ca === undefined ? {} : { tls: { ca, ...(cert === undefined ? {} : { cert }), ...(key === undefined ? {} : { key }) } }),
    logger,
  });
}

/**
 * Checks the etcd flags before anything is created: with --store etcd, endpoints are required and
 * well-formed, and a client certificate comes with its key; without it, no etcd flag is given.
 */
export function checkEtcdFlags(flags: EtcdFlags, backend: string): void {
  if (backend === 'etcd') {
    if (flags.etcdEndpoints === undefined) throw new Error('--store etcd needs --etcd-endpoints URL[,URL…]');
    parseEndpoints(flags.etcdEndpoints, '--etcd-endpoints');
    if ((flags.etcdCertfile === undefined) !== (flags.etcdKeyfile === undefined)) throw new Error('--etcd-certfile and --etcd-keyfile go together');
    if (flags.etcdCertfile !== undefined && flags.etcdCafile === undefined) throw new Error('--etcd-certfile needs --etcd-cafile');
    return;
  }
  const given = (['etcdEndpoints', 'etcdCafile', 'etcdCertfile', 'etcdKeyfile'] as const).filter((k) => flags[k] !== undefined);
  if (given.length > 0 || (flags.etcdPrefix ?? '') !== '') throw new Error(`--etcd-… flags are used with --store etcd only, not --store ${backend}`);
}
