/**
 * events as kubectl prints them (LAST SEEN TYPE REASON OBJECT MESSAGE; with -o wide SUBOBJECT
 * SOURCE FIRST SEEN COUNT NAME), after Kubernetes' printers.go.
 */
import type { KubeObject } from '@setpoint/api';
import { column, int, nameColumn, record, str } from '../../../tables/columns.js';
import { timestampSince } from '../../../tables/duration.js';
import type { PrintedRow, TablePrinter } from '../../../tables/table.js';

/**
 * An event's source: component (or reportingComponent), then ", host" (or reportingInstance)
 * when there is one.
 */
function eventSource(event: KubeObject): string {
  const source = record(event['source']);
  const component = str(source?.['component']) || str(event['reportingComponent']);
  const instance = str(source?.['host']) || str(event['reportingInstance']);
  return instance === '' ? component : `${component}, ${instance}`;
}

/**
 * One event's row, as printEvent with the wide columns: LAST SEEN is lastTimestamp (else the first
 * time seen; the series' last observation for a series), FIRST SEEN is firstTimestamp (else
 * eventTime), OBJECT is "kind/name" of the involved object (kind lower-cased), COUNT is the series
 * count, else count, else 1.
 */
function eventRow(event: KubeObject, now: number): PrintedRow {
  const firstTimestamp = str(event['firstTimestamp']);
  const firstSeen = firstTimestamp !== '' ? timestampSince(firstTimestamp, now) : timestampSince(event['eventTime'], now);
  const lastTimestamp = str(event['lastTimestamp']);
  let lastSeen = lastTimestamp !== '' ? timestampSince(lastTimestamp, now) : firstSeen;
  let count = int(event['count']);
  const series = record(event['series']);
  if (series !== undefined) {
    lastSeen = timestampSince(series['lastObservedTime'], now);
    count = int(series['count']);
  } else if (count === 0) {
    count = 1;
  }
  const involved = record(event['involvedObject']);
  const kind = str(involved?.['kind']).toLowerCase();
  const name = str(involved?.['name']);
  return {
    cells: [
      lastSeen,
      str(event['type']),
      str(event['reason']),
      name !== '' ? `${kind}/${name}` : kind,
      str(involved?.['fieldPath']),
      eventSource(event),
      str(event['message']).trim(),
      firstSeen,
      count,
      str(event.metadata.name),
    ],
  };
}

/** events (v1). */
export const eventPrinter: TablePrinter = {
  columns: [
    column('Last Seen', 'string', 'The time at which the most recent occurrence of this event was recorded.'),
    column('Type', 'string', 'Type of this event (Normal, Warning), new types could be added in the future'),
    column('Reason', 'string', "This should be a short, machine understandable string that gives the reason for the transition into the object's current status."),
    column('Object', 'string', 'The object that this event is about.'),
    column('Subobject', 'string', 'If referring to a piece of an object instead of an entire object, this string should contain a valid JSON/Go field access statement, such as desiredState.manifest.containers[2].', 1),
    column('Source', 'string', 'The component reporting this event. Should be a short machine understandable string.', 1),
    column('Message', 'string', 'A human-readable description of the status of this operation.'),
    column('First Seen', 'string', 'The time at which the event was first recorded. (Time of server receipt is in TypeMeta.)', 1),
    column('Count', 'string', 'The number of times this event has occurred.', 1),
    nameColumn(1),
  ],
  row: eventRow,
};
