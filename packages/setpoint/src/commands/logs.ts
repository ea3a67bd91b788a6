/**
 * `setpoint logs POD [-c CONTAINER] [-f] [--tail N] [--since D] [--previous] [--timestamps]`: a container's
 * log, read from the API server (GET pods/NAME/log) and copied to stdout as it comes. A pod with
 * several containers and no -c: its `kubectl.kubernetes.io/default-container`, else the first, as
 * kubectl chooses (saying so on stderr). -f follows until the pod's container ends or Ctrl-C.
 */
import type { Command } from 'commander';
import type { Pod } from '@setpoint/api';
import { builtin, resourcePath } from '@setpoint/client';
import { addConnectionFlags, type Connection, type ConnectionFlags } from '../cli/connect.js';
import { CliError, type CliIO } from '../cli/io.js';
import { runClientVerb, wholeNumber } from '../cli/verb.js';
import { parseDuration } from '../flags.js';

export interface LogsFlags extends ConnectionFlags {
  container?: string;
  follow?: boolean;
  tail?: string;
  previous?: boolean;
  timestamps?: boolean;
  since?: string;
}

/** The annotation naming the container kubectl logs, exec and attach pick by default. */
export const DEFAULT_CONTAINER_ANNOTATION = 'kubectl.kubernetes.io/default-container';

export function registerLogs(program: Command, io: CliIO): void {
  addConnectionFlags(program.command('logs').description("print a container's log").argument('<pod>', 'POD or pod/POD'))
    .option('-c, --container <name>', 'the container (default: the only one, the default-container annotation, else the first)')
    .option('-f, --follow', 'keep printing as the container writes, until it ends or Ctrl-C')
    .option('--tail <lines>', 'only the last N lines (-1: all)')
    .option('-p, --previous', 'the log of the previous, terminated run of the container')
    .option('--timestamps', 'prefix each line with its RFC 3339 time')
    .option('--since <duration>', 'only lines written in the last D (5s, 2m, 3h)')
    .action(async (pod: string, flags: LogsFlags) => {
      await runClientVerb(io, flags, (connection) => runLogs(pod, flags, connection, io));
    });
}

/** The pod name an argument names: POD, pod/POD or pods/POD. */
function podName(arg: string): string {
  const slash = arg.indexOf('/');
  if (slash === -1) return arg;
  const type = arg.slice(0, slash).toLowerCase();
  if (type !== 'pod' && type !== 'pods' && type !== 'po') throw new CliError(`logs are read from pods: use setpoint logs POD (not "${arg}")`);
  return arg.slice(slash + 1);
}

/** The container to read: -c (checked), else the only, annotated or first one. */
function chooseContainer(pod: Pod, asked: string | undefined, io: CliIO): string {
  const spec = pod.spec as { containers?: Array<{ name: string }>; initContainers?: Array<{ name: string }> } | undefined;
  const containers = (spec?.containers ?? []).map((c) => c.name);
  const all = [...(spec?.initContainers ?? []).map((c) => c.name), ...containers];
  const name = pod.metadata.name ?? '';
  if (asked !== undefined) {
    if (!all.includes(asked)) throw new CliError(`container ${asked} is not valid for pod ${name} (choose one of: ${all.join(', ')})`);
    return asked;
  }
  if (containers.length === 0) throw new CliError(`pod ${name} has no containers`);
  if (containers.length === 1) return containers[0]!;
  const annotated = pod.metadata.annotations?.[DEFAULT_CONTAINER_ANNOTATION];
  const chosen = annotated !== undefined && containers.includes(annotated) ? annotated : containers[0]!;
  io.stderr.write(`Defaulted container "${chosen}" out of: ${containers.join(', ')}\n`);
  return chosen;
}

/** Runs logs against a connection (exported for tests). */
export async function runLogs(arg: string, flags: LogsFlags, connection: Connection, io: CliIO): Promise<void> {
  const name = podName(arg);
  const tail = flags.tail === undefined ? undefined : wholeNumber(flags.tail, '--tail');
  let sinceSeconds: number | undefined;
  if (flags.since !== undefined) {
    try {
      sinceSeconds = Math.max(1, Math.ceil(parseDuration(flags.since, '--since') / 1000));
    } catch (err) {
      throw new CliError((err as Error).message);
    }
  }
  const pod = await connection.client.pods().get(name, { namespace: connection.namespace });
  const container = chooseContainer(pod, flags.container, io);
  const res = await connection.client.http.open({
    method: 'GET',
    path: resourcePath(builtin.pods, { namespace: connection.namespace, name, subresource: 'log' }),
    query: {
      container,
      follow: flags.follow ? 'true' : undefined,
      tailLines: tail !== undefined && tail >= 0 ? tail : undefined,
      previous: flags.previous ? 'true' : undefined,
      timestamps: flags.timestamps ? 'true' : undefined,
      sinceSeconds,
    },
    accept: '*/*',
    signal: io.signal,
  });
  await new Promise<void>((resolve, reject) => {
    const stop = () => {
      res.destroy();
      resolve();
    };
    if (io.signal.aborted) return stop();
    io.signal.addEventListener('abort', stop, { once: true });
    res.setEncoding('utf8');
    res.on('data', (text: string) => io.stdout.write(text));
    res.on('end', () => {
      io.signal.removeEventListener('abort', stop);
      resolve();
    });
    res.on('error', (err) => {
      io.signal.removeEventListener('abort', stop);
      if (io.signal.aborted) resolve();
      else reject(err);
    });
  });
}
