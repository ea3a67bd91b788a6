/**
 * `setpoint delete (-f PATH | TYPE NAME… | TYPE/NAME… | TYPE -l SELECTOR | TYPE --all)`: deletes
 * objects one by one (as kubectl does), printing `deployment.apps "web" deleted` for each; with
 * --wait, then waits until each is gone (finalizers done, the object removed).
 *
 * Failures (a missing object, a refusal) are reported one line each; the other objects are still
 * deleted and the exit code is 1. Manifests are read and checked first, as for apply.
 */
import type { Command } from 'commander';
import { isApiError, type KubeObject } from '@setpoint/api';
import type { ResourceClient } from '@setpoint/client';
import { addConnectionFlags, type Connection, type ConnectionFlags } from '../cli/connect.js';
import { failureLine } from '../cli/errors.js';
import { CliError, type CliIO } from '../cli/io.js';
import { readManifests } from '../cli/manifests.js';
import { Progress } from '../cli/progress.js';
import { parseObjectArgs, typeName, TypeResolver, type ResolvedType } from '../cli/resources.js';
import { reportFailure, runClientVerb, wholeNumber } from '../cli/verb.js';
import { deadline, waitFor, WaitTimeout } from '../cli/waiting.js';
import { parseDuration } from '../flags.js';
import { namespaceFor } from './apply.js';

export interface DeleteFlags extends ConnectionFlags {
  filename?: string[];
  recursive?: boolean;
  selector?: string;
  all?: boolean;
  wait?: boolean;
  timeout: string;
  ignoreNotFound?: boolean;
  cascade: string;
  gracePeriod?: string;
  now?: boolean;
}

function collect(value: string, previous: string[] | undefined): string[] {
  return [...(previous ?? []), value];
}

export function registerDelete(program: Command, io: CliIO): void {
  addConnectionFlags(
    program
      .command('delete')
      .description('delete objects by name, by label selector, or those of manifests')
      .argument('[type-or-object...]', 'TYPE NAME…, or TYPE/NAME…, or TYPE with -l or --all'),
  )
    .option('-f, --filename <path>', 'delete the objects of these manifests (repeatable; - for standard input)', collect)
    .option('-R, --recursive', 'read the directories of -f recursively')
    .option('-l, --selector <selector>', 'delete the objects of TYPE whose labels match')
    .option('--all', 'delete every object of TYPE in the namespace')
    .option('--wait', 'wait until the objects are gone (their finalizers done) before exiting')
    .option('--timeout <duration>', 'with --wait: give up after this long (0: no limit)', '0s')
    .option('--ignore-not-found', 'treat objects that do not exist as deleted')
    .option('--cascade <policy>', 'what happens to dependents: background, foreground or orphan', 'background')
    .option('--grace-period <seconds>', 'seconds a pod gets to stop (default: its own terminationGracePeriodSeconds)')
    .option('--now', 'the same as --grace-period=1')
    .action(async (args: string[], flags: DeleteFlags) => {
      await runClientVerb(io, flags, (connection) => runDelete(args, flags, connection, io));
    });
}

interface Doomed {
  readonly type: ResolvedType;
  readonly name: string;
  readonly namespace: string;
  readonly source?: string;
}

const POLICIES: Record<string, 'Background' | 'Foreground' | 'Orphan'> = { background: 'Background', foreground: 'Foreground', orphan: 'Orphan' };

/** Runs delete against a connection (exported for tests). */
export async function runDelete(args: readonly string[], flags: DeleteFlags, connection: Connection, io: CliIO): Promise<void> {
  const policy = POLICIES[flags.cascade.toLowerCase()];
  if (policy === undefined) throw new CliError(`--cascade must be one of background, foreground or orphan, not "${flags.cascade}"`);
  let timeoutMs: number;
  try {
    timeoutMs = parseDuration(flags.timeout, '--timeout');
  } catch (err) {
    throw new CliError((err as Error).message);
  }
  const gracePeriodSeconds = flags.now ? 1 : flags.gracePeriod === undefined ? undefined : wholeNumber(flags.gracePeriod, '--grace-period');
  const resolver = new TypeResolver(connection.client.discovery);
  const targets = await findTargets(args, flags, connection, resolver, io);
  if (targets === undefined) return;
  const progress = new Progress(io);
  const deleted: Array<{ target: Doomed; uid: string | undefined; resource: ResourceClient }> = [];
  for (const [i, target] of targets.entries()) {
    if (targets.length > 1) progress.update(`deleting ${i + 1}/${targets.length}: ${typeName(target.type)}/${target.name}`);
    const resource = connection.client.resource(target.type.ref);
    try {
      const answer = await resource.delete(target.name, {
        namespace: target.namespace,
        propagationPolicy: policy,
        ...(gracePeriodSeconds === undefined ? {} : { gracePeriodSeconds }),
      });
      progress.print(`${typeName(target.type)} "${target.name}" deleted`);
      const uid = (answer as KubeObject).metadata?.uid;
      deleted.push({ target, uid: typeof uid === 'string' && uid !== '' ? uid : undefined, resource });
    } catch (err) {
      if (flags.ignoreNotFound && isApiError(err, 'NotFound')) continue;
      progress.print(`error: ${failureLine(err, target.source === undefined ? { server: connection.server } : { source: target.source, kind: target.type.ref.kind, name: target.name, server: connection.server })}`, 'stderr');
      io.exitCode = 1;
    }
  }
  progress.done();
  if (!flags.wait || deleted.length === 0) return;
  const until = deadline(io.signal, timeoutMs);
  try {
    for (const [i, { target, uid, resource }] of deleted.entries()) {
      progress.update(`waiting for ${deleted.length - i} object${deleted.length - i === 1 ? '' : 's'} to be gone: ${typeName(target.type)}/${target.name}`);
      try {
        await waitFor({ resource, name: target.name, namespace: target.namespace, ...(uid === undefined ? {} : { uid }) }, { kind: 'delete' }, until.signal);
      } catch (err) {
        if (until.signal.reason instanceof WaitTimeout) {
          progress.done();
          throw new CliError(`timed out waiting for the condition on ${target.type.ref.resource}/${target.name}`);
        }
        if (io.signal.aborted) {
          // Interrupted (Ctrl-C) before the condition was met: not a success.
          io.exitCode = 130;
          return;
        }
        throw err;
      }
    }
  } finally {
    until.dispose();
    progress.done();
  }
}

/** What to delete, in order; undefined after reporting manifest problems (nothing deleted). */
async function findTargets(args: readonly string[], flags: DeleteFlags, connection: Connection, resolver: TypeResolver, io: CliIO): Promise<Doomed[] | undefined> {
  if (flags.filename !== undefined && flags.filename.length > 0) {
    if (args.length > 0) throw new CliError('give either -f or TYPE and names, not both');
    const { manifests, problems } = await readManifests(flags.filename, io, { verb: 'delete', ...(flags.recursive ? { recursive: true } : {}) });
    if (problems.length > 0) {
      for (const problem of problems) reportFailure(io, problem);
      io.stderr.write('nothing was deleted\n');
      return undefined;
    }
    const out: Doomed[] = [];
    for (const m of manifests) {
      try {
        const type = await resolver.forKind(m.object.apiVersion ?? '', m.object.kind ?? '');
        out.push({ type, name: m.object.metadata.name!, namespace: namespaceFor(m.object, type, connection), source: m.source });
      } catch (err) {
        reportFailure(io, failureLine(err, { source: m.source, kind: m.object.kind ?? 'object', name: m.object.metadata.name ?? '' }));
      }
    }
    return out;
  }
  const parsed = parseObjectArgs(args, 'delete');
  if (parsed.form === 'pairs') {
    if (flags.selector !== undefined || flags.all) throw new CliError('name objects, or give a selector or --all, not both');
    const out: Doomed[] = [];
    for (const { type: text, name } of parsed.pairs) {
      const type = await resolver.resolve(text);
      out.push({ type, name, namespace: type.ref.namespaced ? connection.namespace : '' });
    }
    return out;
  }
  const types = await resolver.resolveMany(parsed.types);
  if (parsed.names.length > 0) {
    if (flags.selector !== undefined || flags.all) throw new CliError('name objects, or give a selector or --all, not both');
    return types.flatMap((type) => parsed.names.map((name) => ({ type, name, namespace: type.ref.namespaced ? connection.namespace : '' })));
  }
  if (flags.selector === undefined && !flags.all) throw new CliError('resource(s) were provided, but no name was specified (give names, -l SELECTOR or --all)');
  const out: Doomed[] = [];
  for (const type of types) {
    const namespace = type.ref.namespaced ? connection.namespace : '';
    const list = await connection.client.resource(type.ref).listAll({ namespace, ...(flags.selector === undefined ? {} : { labelSelector: flags.selector }) });
    for (const item of list.items) out.push({ type, name: item.metadata.name!, namespace: item.metadata.namespace ?? namespace });
  }
  if (out.length === 0) io.stderr.write('No resources found\n');
  return out;
}
