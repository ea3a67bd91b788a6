/**
 * The Events section of describe: the core/v1 Events whose involvedObject is the described object
 * (matched by name, namespace and uid with field selectors, as kubectl searches them), oldest first,
 * as `Type Reason Age From Message`, the Age of a repeated event `30s (x4 over 2m)`.
 */
import type { Event, KubeObject } from '@setpoint/api';
import type { Client } from '@setpoint/client';
import { since } from '../duration.js';
import { type DescribeWriter, rec, text } from './writer.js';

/** The events about `obj`; kind-less and uid-less references match by name and namespace. */
export async function eventsFor(client: Client, obj: KubeObject): Promise<Event[]> {
  const selector = [`involvedObject.name=${obj.metadata?.name ?? ''}`];
  const namespace = obj.metadata?.namespace ?? '';
  selector.push(`involvedObject.namespace=${namespace}`);
  if (obj.metadata?.uid !== undefined && obj.metadata.uid !== '') selector.push(`involvedObject.uid=${obj.metadata.uid}`);
  const list = await client.events().listAll({ namespace, fieldSelector: selector.join(',') });
  return list.items;
}

function lastSeen(e: Record<string, unknown>): number {
  for (const t of [rec(e['series'])?.['lastObservedTime'], e['lastTimestamp'], e['eventTime'], e['firstTimestamp'], rec(e['metadata'])?.['creationTimestamp']]) {
    const at = Date.parse(text(t));
    if (!Number.isNaN(at)) return at;
  }
  return 0;
}

/** Writes the Events section (`Events:  <none>` when there are none). */
export function writeEvents(w: DescribeWriter, events: readonly Event[], now: number): void {
  if (events.length === 0) {
    w.line(0, 'Events:', '<none>');
    return;
  }
  const sorted = [...events].map((e) => e as unknown as Record<string, unknown>).sort((a, b) => lastSeen(a) - lastSeen(b));
  w.line(0, 'Events:');
  const rows = sorted.map((e) => {
    const first = text(e['eventTime']) !== '' ? since(e['eventTime'], now) : since(e['firstTimestamp'], now);
    const series = rec(e['series']);
    const count = typeof e['count'] === 'number' ? e['count'] : 0;
    const age =
      series !== undefined
        ? `${since(series['lastObservedTime'], now)} (x${text(series['count'])} over ${first})`
        : count > 1
          ? `${since(e['lastTimestamp'], now)} (x${count} over ${first})`
          : first;
    const source = rec(e['source']);
    const from = [text(source?.['component']), text(source?.['host'])].filter((s) => s !== '').join(', ') || text(e['reportingComponent']);
    return [text(e['type']), text(e['reason']), age, from, text(e['message']).trim()];
  });
  // kubectl underlines Age with four dashes.
  w.table(1, ['Type', 'Reason', 'Age', 'From', 'Message'], rows, ['----', '------', '----', '----', '-------']);
}
