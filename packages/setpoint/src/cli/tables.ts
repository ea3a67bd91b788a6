/**
 * `get`'s human output: the server prints (meta.k8s.io Tables, asked for with the Accept header
 * kubectl sends), the client lays the cells out as kubectl does — upper-case headers, columns
 * three spaces apart, priority columns only with -o wide, a NAMESPACE column first with -A, the
 * type before each name when several types are printed, LABELS last with --show-labels.
 */
import type { KubeObject, ListMeta } from '@setpoint/api';
import { resourcePath, type Client, type WatchStream } from '@setpoint/client';
import type { TextOutput } from './io.js';
import { humanDuration } from './duration.js';
import type { ResolvedType } from './resources.js';
import { GET_LAYOUT, TabWriter } from './tabwriter.js';

/** kubectl get's Accept: a v1 Table, else the plain object. */
export const TABLE_ACCEPT = 'application/json;as=Table;v=v1;g=meta.k8s.io,application/json';

export interface TableColumn {
  readonly name: string;
  readonly type: string;
  readonly format?: string;
  readonly priority?: number;
}

export interface TableRow {
  readonly cells: readonly unknown[];
  /** PartialObjectMetadata (or the object) the row is about. */
  readonly object?: KubeObject;
}

/** A meta.k8s.io Table; on a watch, events after the first carry null columns. */
export interface Table {
  readonly kind: string;
  readonly apiVersion?: string;
  readonly metadata?: ListMeta;
  readonly columnDefinitions: readonly TableColumn[] | null;
  readonly rows: readonly TableRow[];
}

export interface TableQuery {
  /** '' or absent: every namespace (or a cluster-scoped type). */
  readonly namespace?: string;
  readonly labelSelector?: string;
  readonly fieldSelector?: string;
}

function isTable(body: unknown): body is Table {
  return typeof body === 'object' && body !== null && (body as { kind?: unknown }).kind === 'Table' && Array.isArray((body as { rows?: unknown }).rows);
}

/** NAME and AGE for a server that answered with plain objects (as kubectl falls back). */
function fallbackTable(items: readonly KubeObject[], metadata: ListMeta | undefined): Table {
  const now = Date.now();
  return {
    kind: 'Table',
    ...(metadata === undefined ? {} : { metadata }),
    columnDefinitions: [
      { name: 'Name', type: 'string', format: 'name', priority: 0 },
      { name: 'Age', type: 'string', priority: 0 },
    ],
    rows: items.map((obj) => {
      const created = Date.parse(obj.metadata?.creationTimestamp ?? '');
      return { cells: [obj.metadata?.name ?? '', Number.isNaN(created) ? '<unknown>' : humanDuration(now - created)], object: obj };
    }),
  };
}

function asTable(body: unknown): Table {
  if (isTable(body)) return body;
  const list = body as { items?: KubeObject[]; metadata?: ListMeta; kind?: string };
  if (Array.isArray(list.items)) return fallbackTable(list.items, list.metadata);
  return fallbackTable([body as KubeObject], undefined);
}

/** The whole collection as one Table (pages of 500 followed through `continue`). */
export async function listTable(client: Client, type: ResolvedType, query: TableQuery, signal?: AbortSignal): Promise<Table> {
  const path = resourcePath(type.ref, type.ref.namespaced ? { namespace: query.namespace ?? '' } : {});
  const rows: TableRow[] = [];
  let columns: readonly TableColumn[] | null = null;
  let resourceVersion: string | undefined;
  let continueToken: string | undefined;
  do {
    const res = await client.http.request({
      method: 'GET',
      path,
      query: { labelSelector: query.labelSelector, fieldSelector: query.fieldSelector, limit: 500, continue: continueToken },
      accept: TABLE_ACCEPT,
      ...(signal === undefined ? {} : { signal }),
    });
    const table = asTable(res.body);
    columns ??= table.columnDefinitions;
    resourceVersion ??= table.metadata?.resourceVersion;
    rows.push(...table.rows);
    continueToken = table.metadata?.continue;
  } while (continueToken !== undefined && continueToken !== '');
  return { kind: 'Table', metadata: resourceVersion === undefined ? {} : { resourceVersion }, columnDefinitions: columns, rows };
}

/** One object as a Table. Throws ApiError NotFound as the server words it. */
export async function getTable(client: Client, type: ResolvedType, name: string, namespace: string): Promise<Table> {
  const path = resourcePath(type.ref, { namespace, name });
  const res = await client.http.request({ method: 'GET', path, accept: TABLE_ACCEPT });
  return asTable(res.body);
}

/** A watch whose events carry one-row Tables (the first with columns). */
export function watchTables(client: Client, type: ResolvedType, query: TableQuery & { resourceVersion?: string; signal?: AbortSignal }): WatchStream {
  return client.http.stream({
    path: resourcePath(type.ref, type.ref.namespaced ? { namespace: query.namespace ?? '' } : {}),
    query: { watch: 'true', labelSelector: query.labelSelector, fieldSelector: query.fieldSelector, resourceVersion: query.resourceVersion },
    accept: TABLE_ACCEPT,
    ...(query.signal === undefined ? {} : { signal: query.signal }),
  });
}

export interface TablePrintOptions {
  readonly wide: boolean;
  /** A NAMESPACE column first, from each row's object. */
  readonly withNamespace: boolean;
  /** Prefix names with this ("deployment.apps") and a slash, as when several types are printed. */
  readonly kindPrefix?: string;
  readonly noHeaders: boolean;
  readonly showLabels: boolean;
}

/** A cell as kubectl prints it: null as nothing, text cut at its first line break ("..."). */
function cellText(cell: unknown): string {
  if (cell === null || cell === undefined) return '';
  const text = typeof cell === 'string' ? cell : typeof cell === 'object' ? JSON.stringify(cell) : String(cell);
  const cut = text.search(/[\n\r\f]/);
  const line = cut === -1 ? text : `${text.slice(0, cut)}...`;
  return line.replace(/\t/g, ' ');
}

function labelsText(labels: Readonly<Record<string, string>> | undefined): string {
  const entries = Object.entries(labels ?? {}).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  return entries.length === 0 ? '<none>' : entries.map(([k, v]) => `${k}=${v}`).join(',');
}

/**
 * Prints Tables of one type as kubectl does, possibly several (a list, then watch events): headers
 * once per set of columns (and only above rows), widths remembered so later rows stay aligned.
 */
export class TablePrinter {
  readonly #out: TextOutput;
  readonly #options: TablePrintOptions;
  readonly #writer = new TabWriter(GET_LAYOUT);
  #columns: readonly TableColumn[] = [];
  #headersPrinted = false;

  constructor(out: TextOutput, options: TablePrintOptions) {
    this.#out = out;
    this.#options = options;
  }

  /** Rows printed so far. */
  rowsPrinted = 0;

  print(table: Table): void {
    if (table.columnDefinitions !== null && table.columnDefinitions.length > 0 && !sameColumns(table.columnDefinitions, this.#columns)) {
      this.#columns = table.columnDefinitions;
      this.#headersPrinted = false;
    }
    if (table.rows.length === 0) return;
    const visible = this.#columns.map((c, i) => ({ c, i })).filter(({ c }) => this.#options.wide || (c.priority ?? 0) === 0);
    const nameIndex = this.#columns.findIndex((c) => c.format === 'name');
    let text = '';
    if (!this.#headersPrinted && !this.#options.noHeaders) {
      const headers = visible.map(({ c }) => c.name.toUpperCase());
      if (this.#options.withNamespace) headers.unshift('NAMESPACE');
      if (this.#options.showLabels) headers.push('LABELS');
      text += headers.join('\t') + '\n';
    }
    this.#headersPrinted = true;
    for (const row of table.rows) {
      const cells = visible.map(({ i }) => {
        const cell = cellText(row.cells[i]);
        return i === nameIndex && this.#options.kindPrefix !== undefined ? `${this.#options.kindPrefix}/${cell}` : cell;
      });
      if (this.#options.withNamespace) cells.unshift(row.object?.metadata?.namespace ?? '');
      if (this.#options.showLabels) cells.push(labelsText(row.object?.metadata?.labels));
      text += cells.join('\t') + '\n';
      this.rowsPrinted++;
    }
    this.#writer.write(text);
    this.#out.write(this.#writer.flush());
  }
}

function sameColumns(a: readonly TableColumn[], b: readonly TableColumn[]): boolean {
  return a.length === b.length && a.every((c, i) => c.name === b[i]!.name && (c.priority ?? 0) === (b[i]!.priority ?? 0));
}
