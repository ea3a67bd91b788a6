/**
 * `setpoint get TYPE[,TYPE…] [NAME…] | TYPE/NAME…`: objects as kubectl get prints them — the
 * server's Tables laid out in columns (-o wide adds the priority columns), or -o yaml|json|name;
 * -A for every namespace, -l and --field-selector to filter, -w to keep printing changes.
 */
import type { Command } from 'commander';
import { isApiError, type KubeObject } from '@setpoint/api';
import type { Client } from '@setpoint/client';
import { addConnectionFlags, type Connection, type ConnectionFlags } from '../cli/connect.js';
import { failureLine } from '../cli/errors.js';
import { CliError, type CliIO } from '../cli/io.js';
import { asList, parseOutputFormat, toJson, toYaml, type OutputFormat } from '../cli/output.js';
import { parseObjectArgs, typeName, TypeResolver, type ResolvedType } from '../cli/resources.js';
import { getTable, listTable, TablePrinter, watchTables, type Table } from '../cli/tables.js';
import { reportFailure, runClientVerb } from '../cli/verb.js';

export interface GetFlags extends ConnectionFlags {
  output?: string;
  allNamespaces?: boolean;
  selector?: string;
  fieldSelector?: string;
  watch?: boolean;
  headers: boolean;
  showLabels?: boolean;
  ignoreNotFound?: boolean;
  showManagedFields?: boolean;
}

export function registerGet(program: Command, io: CliIO): void {
  addConnectionFlags(
    program
      .command('get')
      .description('print objects: a table like kubectl get, or -o yaml|json|name|wide')
      .argument('<type-or-object...>', 'TYPE[,TYPE…] [NAME…], or TYPE/NAME…'),
  )
    .option('-o, --output <format>', 'wide, yaml, json or name (default: a table)')
    .option('-A, --all-namespaces', 'objects of every namespace')
    .option('-l, --selector <selector>', 'only objects whose labels match (app=web,tier!=db)')
    .option('--field-selector <selector>', 'only objects whose fields match (metadata.name=web)')
    .option('-w, --watch', 'after printing, keep printing changes until interrupted')
    .option('--no-headers', 'leave out the header line of tables')
    .option('--show-labels', 'add a LABELS column')
    .option('--ignore-not-found', 'print nothing for named objects that do not exist')
    .option('--show-managed-fields', 'keep metadata.managedFields in -o yaml|json (left out by default, as kubectl does)')
    .action(async (args: string[], flags: GetFlags) => {
      await runClientVerb(io, flags, (connection) => runGet(args, flags, connection, io));
    });
}

interface Target {
  readonly type: ResolvedType;
  /** Absent: the whole collection. */
  readonly names?: readonly string[];
}

/** Runs get against a connection (exported for tests). */
export async function runGet(args: readonly string[], flags: GetFlags, connection: Connection, io: CliIO): Promise<void> {
  const format = parseOutputFormatFlag(flags.output);
  if (flags.allNamespaces && flags.namespace !== undefined) throw new CliError('--namespace and --all-namespaces cannot be used together');
  const parsed = parseObjectArgs(args, 'get');
  const resolver = new TypeResolver(connection.client.discovery);
  const targets: Target[] = [];
  if (parsed.form === 'types') {
    const types = await resolver.resolveMany(parsed.types);
    for (const type of types) targets.push(parsed.names.length === 0 ? { type } : { type, names: parsed.names });
  } else {
    for (const { type: text, name } of parsed.pairs) {
      const type = await resolver.resolve(text);
      const last = targets.at(-1);
      if (last?.names !== undefined && last.type.ref.resource === type.ref.resource && last.type.ref.group === type.ref.group) {
        targets[targets.length - 1] = { type, names: [...last.names, name] };
      } else {
        targets.push({ type, names: [name] });
      }
    }
  }
  if (flags.allNamespaces && targets.some((t) => t.names !== undefined && t.type.ref.namespaced)) {
    throw new CliError('a resource cannot be retrieved by name across all namespaces');
  }
  const namespace = flags.allNamespaces ? '' : connection.namespace;
  if (flags.watch) {
    if (targets.length !== 1 || (targets[0]!.names !== undefined && targets[0]!.names.length > 1)) {
      throw new CliError('watch is only supported on one type, and at most one name');
    }
    await watchGet(targets[0]!, format, flags, connection.client, namespace, io);
    return;
  }
  if (format === 'table' || format === 'wide') await printTables(targets, format, flags, connection.client, namespace, io);
  else await printObjects(targets, format, flags, connection.client, namespace, io, parsed.form === 'types' && parsed.names.length === 0);
}

function parseOutputFormatFlag(value: string | undefined): OutputFormat {
  try {
    return parseOutputFormat(value);
  } catch (err) {
    throw new CliError((err as Error).message);
  }
}

function printerFor(io: CliIO, type: ResolvedType, format: OutputFormat, flags: GetFlags, namespace: string, withKind: boolean): TablePrinter {
  return new TablePrinter(io.stdout, {
    wide: format === 'wide',
    withNamespace: namespace === '' && type.ref.namespaced,
    ...(withKind ? { kindPrefix: typeName(type) } : {}),
    noHeaders: !flags.headers,
    showLabels: flags.showLabels === true,
  });
}

/** "No resources found in NS namespace." (or without the namespace) on stderr. */
function noResources(io: CliIO, targets: readonly Target[], namespace: string): void {
  const namespaced = targets.some((t) => t.type.ref.namespaced);
  io.stderr.write(namespaced && namespace !== '' ? `No resources found in ${namespace} namespace.\n` : 'No resources found\n');
}

async function printTables(targets: readonly Target[], format: OutputFormat, flags: GetFlags, client: Client, namespace: string, io: CliIO): Promise<void> {
  const withKind = targets.length > 1;
  let printedRows = 0;
  let anyNamed = false;
  for (const target of targets) {
    let table: Table;
    if (target.names === undefined) {
      table = await listTable(client, target.type, { namespace, ...selectors(flags) });
    } else {
      anyNamed = true;
      const rows: Table['rows'][number][] = [];
      let columns: Table['columnDefinitions'] = null;
      for (const name of target.names) {
        try {
          const one = await getTable(client, target.type, name, namespace);
          columns ??= one.columnDefinitions;
          rows.push(...one.rows);
        } catch (err) {
          if (flags.ignoreNotFound && isApiError(err, 'NotFound')) continue;
          reportFailure(io, failureLine(err));
        }
      }
      table = { kind: 'Table', columnDefinitions: columns, rows };
    }
    if (table.rows.length === 0) continue;
    // Tables of different types are separated by a blank line, as kubectl separates them.
    if (printedRows > 0 && flags.headers) io.stdout.write('\n');
    const printer = printerFor(io, target.type, format, flags, namespace, withKind);
    printer.print(table);
    printedRows += printer.rowsPrinted;
  }
  if (printedRows === 0 && !anyNamed) noResources(io, targets, namespace);
}

function selectors(flags: GetFlags): { labelSelector?: string; fieldSelector?: string } {
  return { ...(flags.selector === undefined ? {} : { labelSelector: flags.selector }), ...(flags.fieldSelector === undefined ? {} : { fieldSelector: flags.fieldSelector }) };
}

async function printObjects(targets: readonly Target[], format: OutputFormat, flags: GetFlags, client: Client, namespace: string, io: CliIO, listRequest: boolean): Promise<void> {
  const objects: KubeObject[] = [];
  for (const target of targets) {
    const resource = client.resource(target.type.ref);
    if (target.names === undefined) {
      const list = await resource.listAll({ namespace: target.type.ref.namespaced ? namespace : '', ...selectors(flags) });
      objects.push(...list.items);
      continue;
    }
    for (const name of target.names) {
      try {
        objects.push(await resource.get(name, { namespace }));
      } catch (err) {
        if (flags.ignoreNotFound && isApiError(err, 'NotFound')) continue;
        reportFailure(io, failureLine(err));
      }
    }
  }
  if (format === 'name') {
    for (const obj of objects) io.stdout.write(`${nameOf(targets, obj)}\n`);
    return;
  }
  if (objects.length === 0 && !listRequest) return;
  const shown = flags.showManagedFields ? objects : objects.map(withoutManagedFields);
  const value = shown.length === 1 && !listRequest ? shown[0] : asList(shown);
  io.stdout.write(format === 'json' ? toJson(value) : toYaml(value));
}

/** deployment.apps/web for an object of one of the targets' types. */
function nameOf(targets: readonly Target[], obj: KubeObject): string {
  const type = targets.find((t) => t.type.ref.kind === obj.kind && (obj.apiVersion ?? '').startsWith(t.type.ref.group === '' ? '' : `${t.type.ref.group}/`))?.type;
  const prefix = type === undefined ? (obj.kind ?? '').toLowerCase() : typeName(type);
  return `${prefix}/${obj.metadata?.name ?? ''}`;
}

/** get -w: the current state, then every change, until interrupted or the watch fails. */
async function watchGet(target: Target, format: OutputFormat, flags: GetFlags, client: Client, namespace: string, io: CliIO): Promise<void> {
  const name = target.names?.[0];
  const fieldSelector = [flags.fieldSelector, name === undefined ? undefined : `metadata.name=${name}`].filter((s) => s !== undefined).join(',') || undefined;
  const query = { namespace, ...(flags.selector === undefined ? {} : { labelSelector: flags.selector }), ...(fieldSelector === undefined ? {} : { fieldSelector }) };
  const human = format === 'table' || format === 'wide';
  const printer = printerFor(io, target.type, format, flags, namespace, false);
  let resourceVersion: string | undefined;
  if (human) {
    const table = await listTable(client, target.type, query, io.signal);
    printer.print(table);
    resourceVersion = table.metadata?.resourceVersion;
  } else {
    const resource = client.resource(target.type.ref);
    const list = await resource.listAll({ ...query, namespace: target.type.ref.namespaced ? namespace : '', signal: io.signal });
    for (const item of list.items) printObject(io, format, target.type, flags.showManagedFields ? item : withoutManagedFields(item));
    resourceVersion = list.metadata.resourceVersion;
  }
  while (!io.signal.aborted) {
    const stream = human
      ? watchTables(client, target.type, { ...query, ...(resourceVersion === undefined ? {} : { resourceVersion }), signal: io.signal })
      : client.resource(target.type.ref).watch({ ...query, namespace: target.type.ref.namespaced ? namespace : '', ...(resourceVersion === undefined ? {} : { resourceVersion }), signal: io.signal });
    for await (const event of stream) {
      const rv = (event.object as { metadata?: { resourceVersion?: string } }).metadata?.resourceVersion;
      if (rv !== undefined && rv !== '') resourceVersion = rv;
      if (event.type === 'BOOKMARK') continue;
      if (human) printer.print(event.object as unknown as Table);
      else printObject(io, format, target.type, flags.showManagedFields ? event.object : withoutManagedFields(event.object));
    }
  }
}

/** The object without metadata.managedFields (what kubectl prints unless --show-managed-fields). */
function withoutManagedFields(obj: KubeObject): KubeObject {
  if (obj.metadata?.managedFields === undefined) return obj;
  const { managedFields: _managed, ...metadata } = obj.metadata;
  return { ...obj, metadata };
}

function printObject(io: CliIO, format: OutputFormat, type: ResolvedType, obj: KubeObject): void {
  if (format === 'name') io.stdout.write(`${typeName(type)}/${obj.metadata?.name ?? ''}\n`);
  else if (format === 'json') io.stdout.write(toJson(obj));
  else io.stdout.write(`---\n${toYaml(obj)}`);
}
