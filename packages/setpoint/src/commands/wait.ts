/**
 * `setpoint wait TYPE/NAME… | TYPE NAME… | TYPE -l SELECTOR --for=condition=TYPE[=STATUS] |
 * --for=delete [--timeout 30s]`: waits until each object has the condition (status True unless
 * given; both compared case-insensitively, a condition for an older generation not counting) or is
 * gone, printing `deployment.apps/web condition met` for each. The timeout applies to each object,
 * as kubectl's does; when it passes: `error: timed out waiting for the condition on deployments/web`.
 * A condition wait on an object that does not exist yet waits for it to appear.
 */
import type { Command } from 'commander';
import { addConnectionFlags, type Connection, type ConnectionFlags } from '../cli/connect.js';
import { CliError, type CliIO } from '../cli/io.js';
import { Progress } from '../cli/progress.js';
import { parseObjectArgs, typeName, TypeResolver, type ResolvedType } from '../cli/resources.js';
import { runClientVerb } from '../cli/verb.js';
import { deadline, parseWaitCondition, waitFor, WaitTimeout, type WaitCondition } from '../cli/waiting.js';
import { parseDuration } from '../flags.js';

export interface WaitFlags extends ConnectionFlags {
  for?: string;
  timeout: string;
  selector?: string;
  all?: boolean;
}

export function registerWait(program: Command, io: CliIO): void {
  addConnectionFlags(
    program
      .command('wait')
      .description('wait until objects have a condition, or are deleted')
      .argument('<type-or-object...>', 'TYPE/NAME…, TYPE NAME…, or TYPE with -l or --all'),
  )
    .requiredOption('--for <condition>', 'condition=TYPE[=STATUS] (STATUS default True), or delete')
    .option('--timeout <duration>', 'how long to wait for each object (0: check once)', '30s')
    .option('-l, --selector <selector>', 'wait for the objects of TYPE whose labels match')
    .option('--all', 'wait for every object of TYPE in the namespace')
    .action(async (args: string[], flags: WaitFlags) => {
      await runClientVerb(io, flags, (connection) => runWait(args, flags, connection, io));
    });
}

interface Awaited {
  readonly type: ResolvedType;
  readonly name: string;
  readonly namespace: string;
}

/** Runs wait against a connection (exported for tests). */
export async function runWait(args: readonly string[], flags: WaitFlags, connection: Connection, io: CliIO): Promise<void> {
  const condition = parseWaitCondition(flags.for ?? '');
  let timeoutMs: number;
  try {
    timeoutMs = parseDuration(flags.timeout, '--timeout');
  } catch (err) {
    throw new CliError((err as Error).message);
  }
  const resolver = new TypeResolver(connection.client.discovery);
  const targets = await findTargets(args, flags, connection, resolver);
  if (targets.length === 0) throw new CliError('no matching resources found');
  const progress = new Progress(io);
  const started = Date.now();
  const ticker = setInterval(() => draw(), 1000);
  let current: Awaited | undefined;
  const draw = () => {
    if (current !== undefined) progress.update(`waiting for ${typeName(current.type)}/${current.name} (${describeCondition(condition)}) ${Math.round((Date.now() - started) / 1000)}s`);
  };
  try {
    for (const target of targets) {
      current = target;
      draw();
      // A zero timeout checks once.
      const until = deadline(io.signal, timeoutMs);
      try {
        await waitFor({ resource: connection.client.resource(target.type.ref), name: target.name, namespace: target.namespace }, condition, until.signal, timeoutMs <= 0);
        progress.print(`${typeName(target.type)}/${target.name} condition met`);
      } catch (err) {
        if (err instanceof WaitTimeout || until.signal.reason instanceof WaitTimeout) throw new CliError(`timed out waiting for the condition on ${target.type.ref.resource}/${target.name}`);
        if (io.signal.aborted) {
          // Interrupted (Ctrl-C) before the condition was met: not a success.
          io.exitCode = 130;
          return;
        }
        throw err;
      } finally {
        until.dispose();
      }
    }
  } finally {
    clearInterval(ticker);
    progress.done();
  }
}

function describeCondition(condition: WaitCondition): string {
  return condition.kind === 'delete' ? 'deletion' : `condition ${condition.type}=${condition.status}`;
}

async function findTargets(args: readonly string[], flags: WaitFlags, connection: Connection, resolver: TypeResolver): Promise<Awaited[]> {
  const parsed = parseObjectArgs(args, 'wait');
  const namespaceOf = (type: ResolvedType) => (type.ref.namespaced ? connection.namespace : '');
  if (parsed.form === 'pairs') {
    const out: Awaited[] = [];
    for (const { type: text, name } of parsed.pairs) {
      const type = await resolver.resolve(text);
      out.push({ type, name, namespace: namespaceOf(type) });
    }
    return out;
  }
  const types = await resolver.resolveMany(parsed.types);
  if (parsed.names.length > 0) return types.flatMap((type) => parsed.names.map((name) => ({ type, name, namespace: namespaceOf(type) })));
  if (flags.selector === undefined && !flags.all) throw new CliError('resource(s) were provided, but no name was specified (give names, -l SELECTOR or --all)');
  const out: Awaited[] = [];
  for (const type of types) {
    const list = await connection.client.resource(type.ref).listAll({ namespace: namespaceOf(type), ...(flags.selector === undefined ? {} : { labelSelector: flags.selector }) });
    for (const item of list.items) out.push({ type, name: item.metadata.name!, namespace: item.metadata.namespace ?? namespaceOf(type) });
  }
  return out;
}
