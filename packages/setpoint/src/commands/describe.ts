/**
 * `setpoint describe TYPE [NAME…] | TYPE/NAME… [-l SELECTOR]`: a readable account of each object,
 * as kubectl describe gives it, with the Events about it; several objects are separated by a blank
 * line. Without names, every object of the type in the namespace (or those -l selects).
 */
import type { Command } from 'commander';
import { isApiError, type KubeObject } from '@setpoint/api';
import { addConnectionFlags, type Connection, type ConnectionFlags } from '../cli/connect.js';
import { describeObject } from '../cli/describe/index.js';
import { failureLine } from '../cli/errors.js';
import { CliError, type CliIO } from '../cli/io.js';
import { parseObjectArgs, TypeResolver, type ResolvedType } from '../cli/resources.js';
import { reportFailure, runClientVerb } from '../cli/verb.js';

export interface DescribeFlags extends ConnectionFlags {
  selector?: string;
  allNamespaces?: boolean;
  showEvents: boolean;
}

export function registerDescribe(program: Command, io: CliIO): void {
  addConnectionFlags(
    program
      .command('describe')
      .description('show objects in detail, with their events')
      .argument('<type-or-object...>', 'TYPE [NAME…], or TYPE/NAME…'),
  )
    .option('-l, --selector <selector>', 'describe the objects of TYPE whose labels match')
    .option('-A, --all-namespaces', 'objects of every namespace')
    .option('--no-show-events', 'leave out the Events section')
    .action(async (args: string[], flags: DescribeFlags) => {
      await runClientVerb(io, flags, (connection) => runDescribe(args, flags, connection, io));
    });
}

/** Runs describe against a connection (exported for tests). */
export async function runDescribe(args: readonly string[], flags: DescribeFlags, connection: Connection, io: CliIO): Promise<void> {
  const parsed = parseObjectArgs(args, 'describe');
  const resolver = new TypeResolver(connection.client.discovery);
  const found: Array<{ type: ResolvedType; obj: KubeObject }> = [];
  const namespaceOf = (type: ResolvedType) => (!type.ref.namespaced || flags.allNamespaces ? '' : connection.namespace);
  const named: Array<{ type: ResolvedType; name: string }> = [];
  if (parsed.form === 'pairs') {
    for (const { type, name } of parsed.pairs) named.push({ type: await resolver.resolve(type), name });
  } else {
    const types = await resolver.resolveMany(parsed.types);
    if (parsed.names.length > 0) {
      for (const type of types) for (const name of parsed.names) named.push({ type, name });
    } else {
      for (const type of types) {
        const list = await connection.client.resource(type.ref).listAll({ namespace: namespaceOf(type), ...(flags.selector === undefined ? {} : { labelSelector: flags.selector }) });
        for (const obj of list.items) found.push({ type, obj });
      }
      if (found.length === 0) {
        const namespace = types.some((t) => t.ref.namespaced) && !flags.allNamespaces ? connection.namespace : '';
        io.stderr.write(namespace === '' ? 'No resources found\n' : `No resources found in ${namespace} namespace.\n`);
        return;
      }
    }
  }
  if (named.length > 0 && flags.selector !== undefined) throw new CliError('name objects, or give a selector, not both');
  let first = true;
  const print = async (type: ResolvedType, obj: KubeObject) => {
    const text = await describeObject(connection.client, type, obj, { showEvents: flags.showEvents, now: Date.now() });
    io.stdout.write(first ? text : `\n\n${text}`);
    first = false;
  };
  for (const { type, obj } of found) await print(type, obj);
  for (const { type, name } of named) {
    try {
      const obj = await connection.client.resource(type.ref).get(name, { namespace: type.ref.namespaced ? connection.namespace : '' });
      await print(type, obj);
    } catch (err) {
      if (!isApiError(err, 'NotFound')) throw err;
      reportFailure(io, failureLine(err));
    }
  }
}
