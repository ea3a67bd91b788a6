/**
 * What the etcd members are: their versions, and whether they answer RequestProgress in order.
 *
 * etcd sends the answer to a watch stream's RequestProgress in order with the watchers' events
 * only from 3.4.31 and 3.5.13 (and every 3.6): earlier it could overtake events still queued for a
 * watcher (etcd-io/etcd 15220, fixed in 3.4.25 / 3.5.8; 3.4.31 / 3.5.13 also answer streams whose
 * watchers have no events yet). kube-apiserver relies on it from the same versions.
 */
import { Etcd3, type IOptions } from 'etcd3';

const PROBE_TIMEOUT_MS = 5_000;

/** The version each endpoint reports; endpoints that do not answer are left out. */
export async function probeVersions(endpoints: readonly string[], options: Omit<IOptions, 'hosts'>): Promise<Record<string, string>> {
  const versions: Record<string, string> = {};
  await Promise.all(
    endpoints.map(async (endpoint) => {
      const client = new Etcd3({ ...options, hosts: endpoint });
      try {
        versions[endpoint] = (await client.maintenance.status({ deadline: Date.now() + PROBE_TIMEOUT_MS })).version;
      } catch {
        // Unreachable now: it is left out, and the store assumes the older, unordered behaviour.
      } finally {
        client.close();
      }
    }),
  );
  return versions;
}

/** Whether etcd `version` ("3.4.23") answers RequestProgress in order with events. */
export function orderedProgressRequests(version: string): boolean {
  const [major = 0, minor = 0, patch = 0] = version.split('.').map((part) => Number.parseInt(part, 10));
  if (major !== 3) return major > 3;
  if (minor === 4) return patch >= 31;
  if (minor === 5) return patch >= 13;
  return minor > 5;
}
