/**
 * meta.k8s.io Table: the server-side printing `kubectl get` asks for with
 * `Accept: application/json;as=Table;v=v1;g=meta.k8s.io`. A printer per kind turns objects into
 * rows of cells; this file wraps rows into a Table and decides what each row carries as its
 * object (apiserver's `asTable`: PartialObjectMetadata by default, the whole object with
 * includeObject=Object, nothing with includeObject=None).
 */
import { ApiError, type KubeObject, type ListMeta, type ObjectMeta } from '@setpoint/api';

/** The meta.k8s.io versions a Table is served in. */
export type TableVersion = 'v1' | 'v1beta1';

/** One column: `priority` 0 columns always print, higher ones only with `kubectl get -o wide`. */
export interface TableColumnDefinition {
  readonly name: string;
  /** An OpenAPI type: "string", "integer", "number", "boolean", "date". */
  readonly type: string;
  /** An OpenAPI format; "name" marks the column holding the object's name. */
  readonly format: string;
  readonly description: string;
  readonly priority: number;
}

/** A cell: what kubectl prints (strings, integers, booleans); null prints as "<none>". */
export type TableCell = string | number | boolean | null;

/** A condition on a row; Kubernetes sets `Completed` on pods that finished. */
export interface TableRowCondition {
  readonly type: string;
  readonly status: 'True' | 'False' | 'Unknown';
  readonly reason?: string;
  readonly message?: string;
}

/** One object's row as a printer computes it: one cell per column. */
export interface PrintedRow {
  readonly cells: readonly TableCell[];
  readonly conditions?: readonly TableRowCondition[];
}

/** A row of a Table on the wire. */
export interface TableRow extends PrintedRow {
  /** PartialObjectMetadata (default), the object (includeObject=Object), or absent (None). */
  readonly object?: KubeObject;
}

export interface Table {
  readonly kind: 'Table';
  readonly apiVersion: `meta.k8s.io/${TableVersion}`;
  readonly metadata: ListMeta;
  /** null on a watch's later events: the client keeps the first event's columns. */
  readonly columnDefinitions: readonly TableColumnDefinition[] | null;
  readonly rows: readonly TableRow[];
}

/**
 * How one kind prints. `row` must return exactly one cell per column, computing ages against the
 * server time `now` (ms since the epoch); it must not throw on objects with missing or odd fields.
 */
export interface TablePrinter {
  readonly columns: readonly TableColumnDefinition[];
  row(obj: KubeObject, now: number): PrintedRow;
}

/** TableOptions.includeObject: what each row's `object` holds. */
export type IncludeObject = 'Object' | 'Metadata' | 'None';

/**
 * The includeObject query parameter: unset or "" means Metadata. Throws ApiError BadRequest
 * (`unrecognized includeObject value: "X"`) for anything else, as kube-apiserver does.
 */
export function parseIncludeObject(value: string | undefined): IncludeObject {
  if (value === undefined || value === '' || value === 'Metadata') return 'Metadata';
  if (value === 'Object' || value === 'None') return value;
  throw ApiError.badRequest(`unrecognized includeObject value: ${JSON.stringify(value)}`);
}

export interface TableOptions {
  readonly version: TableVersion;
  readonly includeObject: IncludeObject;
  /** Server time, ms since the epoch, that ages are computed against. */
  readonly now: number;
  /** Leave columnDefinitions null (a watch's events after the first). Default false. */
  readonly noHeaders?: boolean;
}

/**
 * The Table for `objects` printed by `printer`, with `metadata` as the Table's list metadata
 * (a list's resourceVersion and continue; a single object's resourceVersion). Objects are not
 * modified; rows share their metadata objects.
 */
export function toTable(printer: TablePrinter, objects: readonly KubeObject[], metadata: ListMeta, options: TableOptions): Table {
  const rows: TableRow[] = [];
  for (const obj of objects) {
    const printed = printer.row(obj, options.now);
    const object = rowObject(obj, options);
    rows.push({
      cells: printed.cells,
      ...(printed.conditions !== undefined && printed.conditions.length > 0 ? { conditions: printed.conditions } : {}),
      ...(object !== undefined ? { object } : {}),
    });
  }
  return {
    kind: 'Table',
    apiVersion: `meta.k8s.io/${options.version}`,
    metadata: listMeta(metadata),
    columnDefinitions: options.noHeaders === true ? null : printer.columns,
    rows,
  };
}

/** The Table for a single object (a get, or one watch event). */
export function objectTable(printer: TablePrinter, obj: KubeObject, options: TableOptions): Table {
  const rv = obj.metadata.resourceVersion;
  return toTable(printer, [obj], rv !== undefined && rv !== '' ? { resourceVersion: rv } : {}, options);
}

function listMeta(meta: ListMeta): ListMeta {
  const out: ListMeta = {};
  if (meta.resourceVersion !== undefined && meta.resourceVersion !== '') out.resourceVersion = meta.resourceVersion;
  if (meta.continue !== undefined && meta.continue !== '') out.continue = meta.continue;
  if (meta.remainingItemCount !== undefined) out.remainingItemCount = meta.remainingItemCount;
  return out;
}

function rowObject(obj: KubeObject, options: TableOptions): KubeObject | undefined {
  switch (options.includeObject) {
    case 'Object':
      return obj;
    case 'None':
      return undefined;
    case 'Metadata':
      return partialObjectMetadata(obj.metadata, options.version);
  }
}

/** meta.k8s.io PartialObjectMetadata: the object's metadata and nothing else. */
export function partialObjectMetadata(metadata: ObjectMeta, version: TableVersion = 'v1'): KubeObject {
  return { kind: 'PartialObjectMetadata', apiVersion: `meta.k8s.io/${version}`, metadata };
}
