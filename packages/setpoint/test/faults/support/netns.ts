/**
 * NetLab: network namespaces for node agents, made and removed by the test (root and iproute2's
 * `ip` needed). Only loopback and veth addresses are used, from a private range chosen per run:
 *
 *   host: 10.R.0.1/32 on lo — the API server listens there (the address stays up whatever
 *         happens to the links);
 *   node i: a veth pair, host end 10.R.(i+1).1/30, the other end 10.R.(i+1).2/30 in namespace
 *         spf-PID-i, which routes 10.R.0.1 through the pair.
 *
 * `cut(i)` takes the host end of node i's pair down: packets each way are dropped, connections
 * hang as they would on a failed link; `heal(i)` brings it up and restores the route.
 *
 * Guarantees: `destroy()` — and, if the test process dies first, an exit hook — deletes the
 * namespaces, the pairs and the loopback address. Throws a clear Error when this machine does not
 * allow network namespaces (not root, no `ip`).
 */
import { execFile, execFileSync } from 'node:child_process';
import { promisify } from 'node:util';

const run = promisify(execFile);

async function ip(...args: string[]): Promise<string> {
  try {
    return (await run('ip', args)).stdout;
  } catch (err) {
    const e = err as { stderr?: string; message: string };
    throw new Error(`ip ${args.join(' ')}: ${e.stderr?.trim() || e.message}`, { cause: err });
  }
}

export interface NodeLink {
  /** The network namespace. */
  readonly netns: string;
  readonly hostIf: string;
  readonly nodeIf: string;
  readonly hostAddress: string;
  readonly nodeAddress: string;
}

const labs = new Set<NetLab>();
let hooked = false;

export class NetLab {
  readonly apiAddress: string;
  readonly nodes: readonly NodeLink[];
  #destroyed = false;

  private constructor(apiAddress: string, nodes: NodeLink[]) {
    this.apiAddress = apiAddress;
    this.nodes = nodes;
  }

  /** Checks that namespaces can be made here; throws an Error saying why not. */
  static async preflight(): Promise<void> {
    if (process.getuid?.() !== 0) throw new Error('the network fault test needs root: it makes network namespaces and veth pairs (ip netns add, ip link add)');
    try {
      await run('ip', ['-V']);
    } catch (err) {
      throw new Error("the network fault test needs iproute2's `ip` (apt-get install iproute2; .ci/run installs it)", { cause: err });
    }
    const probe = `spf-probe-${process.pid}`;
    try {
      await ip('netns', 'add', probe);
    } catch (err) {
      throw new Error(`this machine does not allow network namespaces (${(err as Error).message}); the network fault test cannot run here`, { cause: err });
    }
    await ip('netns', 'del', probe);
  }

  /** Makes `count` namespaces with their links (see the file comment). */
  static async create(count: number): Promise<NetLab> {
    await NetLab.preflight();
    const used = await ip('-4', '-o', 'addr', 'show');
    let r = 0;
    for (let tries = 0; tries < 50; tries++) {
      const candidate = 100 + Math.floor(Math.random() * 150);
      if (!used.includes(` 10.${candidate}.`)) {
        r = candidate;
        break;
      }
    }
    if (r === 0) throw new Error('no free 10.x.0.0/16 range for the network fault test');
    const tag = `spf${process.pid % 100_000}`;
    const nodes: NodeLink[] = Array.from({ length: count }, (_, i) => ({
      netns: `spf-${process.pid}-${i}`,
      hostIf: `${tag}h${i}`,
      nodeIf: `${tag}n${i}`,
      hostAddress: `10.${r}.${i + 1}.1`,
      nodeAddress: `10.${r}.${i + 1}.2`,
    }));
    const lab = new NetLab(`10.${r}.0.1`, nodes);
    labs.add(lab);
    installExitHook();
    try {
      await ip('addr', 'add', `${lab.apiAddress}/32`, 'dev', 'lo');
      for (const n of nodes) {
        await ip('netns', 'add', n.netns);
        await ip('link', 'add', n.hostIf, 'type', 'veth', 'peer', 'name', n.nodeIf);
        await ip('link', 'set', n.nodeIf, 'netns', n.netns);
        await ip('addr', 'add', `${n.hostAddress}/30`, 'dev', n.hostIf);
        await ip('link', 'set', n.hostIf, 'up');
        await ip('-n', n.netns, 'addr', 'add', `${n.nodeAddress}/30`, 'dev', n.nodeIf);
        await ip('-n', n.netns, 'link', 'set', n.nodeIf, 'up');
        await ip('-n', n.netns, 'link', 'set', 'lo', 'up');
        await ip('-n', n.netns, 'route', 'add', `${lab.apiAddress}/32`, 'via', n.hostAddress);
      }
    } catch (err) {
      lab.destroySync();
      throw err;
    }
    return lab;
  }

  /** The command prefix that runs a program in node i's namespace. */
  wrap(i: number): string[] {
    return ['ip', 'netns', 'exec', this.#node(i).netns];
  }

  /** Cuts node i's link: its host end goes down. */
  async cut(i: number): Promise<void> {
    await ip('link', 'set', this.#node(i).hostIf, 'down');
  }

  /** Heals node i's link: its host end comes up with its address and route. */
  async heal(i: number): Promise<void> {
    const n = this.#node(i);
    await ip('link', 'set', n.hostIf, 'up');
    // The kernel drops the connected route with the link; it comes back with it — make sure.
    await ip('route', 'replace', `${n.hostAddress.replace(/\.1$/, '.0')}/30`, 'dev', n.hostIf, 'src', n.hostAddress);
  }

  /** Deletes everything it made. Idempotent. */
  async destroy(): Promise<void> {
    this.destroySync();
  }

  destroySync(): void {
    if (this.#destroyed) return;
    this.#destroyed = true;
    labs.delete(this);
    const quiet = (...args: string[]) => {
      try {
        execFileSync('ip', args, { stdio: 'ignore' });
      } catch {
        // already gone
      }
    };
    for (const n of this.nodes) {
      quiet('link', 'del', n.hostIf);
      quiet('netns', 'del', n.netns);
    }
    quiet('addr', 'del', `${this.apiAddress}/32`, 'dev', 'lo');
  }

  #node(i: number): NodeLink {
    const n = this.nodes[i];
    if (n === undefined) throw new RangeError(`no node ${i}`);
    return n;
  }
}

function installExitHook(): void {
  if (hooked) return;
  hooked = true;
  process.once('exit', () => {
    for (const lab of labs) lab.destroySync();
  });
}
