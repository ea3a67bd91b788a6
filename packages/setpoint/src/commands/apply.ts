/**
 * `setpoint apply -f PATH|-`: declares the objects of manifests with server-side apply (a PATCH
 * of type application/apply-patch+yaml, field manager "setpoint"), in the order they are read.
 *
 * Every file is read and checked first; a file that cannot be read or parsed, or an object without
 * apiVersion, kind or name, stops the apply before anything is sent. Then each object is applied on
 * its own (the server applies each atomically): a failure is reported as one line naming the file
 * and the object, the others are still applied, and the exit code is 1 — as kubectl does.
 * Each applied object prints `TYPE/NAME created|configured|unchanged`, told apart by reading the
 * object before applying it.
 */
import type { Command } from 'commander';
import { isApiError, type KubeObject } from '@setpoint/api';
import { addConnectionFlags, type Connection, type ConnectionFlags } from '../cli/connect.js';
import { failureLine } from '../cli/errors.js';
import { CliError, type CliIO } from '../cli/io.js';
import { readManifests, type Manifest } from '../cli/manifests.js';
import { Progress } from '../cli/progress.js';
import { typeName, TypeResolver, type ResolvedType } from '../cli/resources.js';
import { reportFailure, runClientVerb } from '../cli/verb.js';

export interface ApplyFlags extends ConnectionFlags {
  filename?: string[];
  recursive?: boolean;
  forceConflicts?: boolean;
  fieldManager: string;
  dryRun?: boolean;
}

/** The field manager of `setpoint apply`. */
export const FIELD_MANAGER = 'setpoint';

function collect(value: string, previous: string[] | undefined): string[] {
  return [...(previous ?? []), value];
}

export function registerApply(program: Command, io: CliIO): void {
  addConnectionFlags(program.command('apply').description('create or update the objects of manifests (server-side apply)'))
    .option('-f, --filename <path>', 'a file, a directory of .yaml/.yml/.json files, or - for standard input (repeatable)', collect)
    .option('-R, --recursive', 'read the directories of -f recursively')
    .option('--force-conflicts', 'take over fields another manager owns instead of failing')
    .option('--field-manager <name>', 'the field manager to apply as', FIELD_MANAGER)
    .option('--dry-run', 'have the server check and default the objects without saving them')
    .action(async (flags: ApplyFlags) => {
      await runClientVerb(io, flags, (connection) => runApply(flags, connection, io));
    });
}

/** The namespace an object goes to; throws CliError when it contradicts -n. */
export function namespaceFor(object: KubeObject, type: ResolvedType, connection: Pick<Connection, 'namespace' | 'namespaceFlag'>): string {
  if (!type.ref.namespaced) return '';
  const own = object.metadata?.namespace;
  if (own !== undefined && own !== '' && connection.namespaceFlag && own !== connection.namespace) {
    throw new CliError(`the namespace from the provided object "${own}" does not match the namespace "${connection.namespace}". You must pass '--namespace=${own}' to perform this operation.`);
  }
  return own !== undefined && own !== '' ? own : connection.namespace;
}

/** Runs apply against a connection (exported for tests). */
export async function runApply(flags: ApplyFlags, connection: Connection, io: CliIO): Promise<void> {
  if (flags.filename === undefined || flags.filename.length === 0) throw new CliError('must specify one of -f and -k (setpoint apply -f FILE)');
  const { manifests, problems } = await readManifests(flags.filename, io, { verb: 'apply', ...(flags.recursive ? { recursive: true } : {}) });
  if (problems.length > 0) {
    for (const problem of problems) reportFailure(io, problem);
    io.stderr.write(`nothing was applied (${problems.length === 1 ? 'fix the problem above' : `fix the ${problems.length} problems above`})\n`);
    return;
  }
  const resolver = new TypeResolver(connection.client.discovery);
  const progress = new Progress(io);
  let failed = 0;
  for (const [i, manifest] of manifests.entries()) {
    if (manifests.length > 1) progress.update(`applying ${i + 1}/${manifests.length}: ${manifest.object.kind} ${manifest.object.metadata.name}`);
    try {
      const line = await applyOne(manifest, resolver, flags, connection);
      progress.print(line);
    } catch (err) {
      failed++;
      progress.print(`error: ${failureLine(err, { source: manifest.source, kind: manifest.object.kind ?? 'object', name: manifest.object.metadata?.name ?? '', server: connection.server })}`, 'stderr');
      io.exitCode = 1;
    }
  }
  progress.done();
  if (failed > 0 && manifests.length > 1) io.stderr.write(`${failed} of ${manifests.length} objects failed to apply\n`);
}

async function applyOne(manifest: Manifest, resolver: TypeResolver, flags: ApplyFlags, connection: Connection): Promise<string> {
  const object = manifest.object;
  const type = await resolver.forKind(object.apiVersion ?? '', object.kind ?? '');
  const namespace = namespaceFor(object, type, connection);
  const resource = connection.client.resource(type.ref);
  const name = object.metadata.name!;
  let before: KubeObject | undefined;
  try {
    before = await resource.get(name, { namespace });
  } catch (err) {
    if (!isApiError(err, 'NotFound')) throw err;
  }
  const body = type.ref.namespaced ? { ...object, metadata: { ...object.metadata, namespace } } : object;
  let after: KubeObject;
  try {
    after = await resource.patch(name, body, {
      type: 'apply',
      namespace,
      fieldManager: flags.fieldManager,
      force: flags.forceConflicts === true,
      ...(flags.dryRun ? { dryRun: true } : {}),
    });
  } catch (err) {
    if (isApiError(err) && err.code === 415) throw new Error(`the server does not support server-side apply (${err.message})`, { cause: err });
    throw err;
  }
  const outcome = before === undefined ? 'created' : before.metadata.resourceVersion === after.metadata?.resourceVersion ? 'unchanged' : 'configured';
  return `${typeName(type)}/${name} ${outcome}${flags.dryRun ? ' (server dry run)' : ''}`;
}
