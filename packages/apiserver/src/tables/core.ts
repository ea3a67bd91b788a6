/**
 * The smaller core kinds as kubectl prints them: namespaces (NAME STATUS AGE), configmaps (NAME
 * DATA AGE), secrets (NAME TYPE DATA AGE), serviceaccounts (NAME SECRETS AGE), leases (NAME HOLDER
 * AGE) and events (LAST SEEN TYPE REASON OBJECT MESSAGE; with -o wide SUBOBJECT SOURCE FIRST SEEN
 * COUNT NAME), after Kubernetes' printers.go.
 */
import type { KubeObject } from '@setpoint/api';
import { ageColumn, column, int, keyCount, list, nameColumn, record, str } from './columns.js';
import { timestampSince } from './duration.js';
import type { PrintedRow, TablePrinter } from './table.js';

function age(obj: KubeObject, now: number): string {
  return timestampSince(obj.metadata.creationTimestamp, now);
}

/** namespaces (v1): STATUS is status.phase ("Active", or "Terminating" once deleted). */
export const namespacePrinter: TablePrinter = {
  columns: [nameColumn(), column('Status', 'string', 'The status of the namespace'), ageColumn()],
  row: (obj, now) => ({ cells: [str(obj.metadata.name), str(record(obj['status'])?.['phase']), age(obj, now)] }),
};

/** configmaps (v1): DATA counts the keys of data and binaryData. */
export const configMapPrinter: TablePrinter = {
  columns: [
    nameColumn(),
    column('Data', 'string', 'Data contains the configuration data. Each key must consist of alphanumeric characters, \'-\', \'_\' or \'.\'.'),
    ageColumn(),
  ],
  row: (obj, now) => ({ cells: [str(obj.metadata.name), keyCount(obj['data']) + keyCount(obj['binaryData']), age(obj, now)] }),
};

/** secrets (v1): TYPE, and DATA counting the keys of data. */
export const secretPrinter: TablePrinter = {
  columns: [
    nameColumn(),
    column('Type', 'string', 'Used to facilitate programmatic handling of secret data.'),
    column('Data', 'string', 'Data contains the secret data. Each key must consist of alphanumeric characters, \'-\', \'_\' or \'.\'.'),
    ageColumn(),
  ],
  row: (obj, now) => ({ cells: [str(obj.metadata.name), str(obj['type']), keyCount(obj['data']), age(obj, now)] }),
};

/** serviceaccounts (v1): SECRETS counts the secrets references. */
export const serviceAccountPrinter: TablePrinter = {
  columns: [
    nameColumn(),
    column('Secrets', 'string', 'Secrets is a list of the secrets in the same namespace that pods running using this ServiceAccount are allowed to use.'),
    ageColumn(),
  ],
  row: (obj, now) => ({ cells: [str(obj.metadata.name), list(obj['secrets']).length, age(obj, now)] }),
};

/** leases (coordination.k8s.io/v1): HOLDER is spec.holderIdentity ("" when free). */
export const leasePrinter: TablePrinter = {
  columns: [nameColumn(), column('Holder', 'string', 'holderIdentity contains the identity of the holder of a current lease.'), ageColumn()],
  row: (obj, now) => ({ cells: [str(obj.metadata.name), str(record(obj['spec'])?.['holderIdentity']), age(obj, now)] }),
};

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
