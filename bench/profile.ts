/**
 * Sums up a V8 CPU profile (`node --cpu-prof`): where the time went, by Setpoint package and
 * folder (each sample charged to the nearest frame of our own code on its stack, so Node's and the
 * dependencies' work counts for the code that asked for it), and the functions with the most
 * self time.
 *
 *   node --cpu-prof --cpu-prof-dir=/tmp/prof --expose-gc --conditions=setpoint-src --import tsx bench/run.ts controllers
 *   node --import tsx bench/profile.ts /tmp/prof/CPU.*.cpuprofile [--top 30]
 */
import { readFileSync } from 'node:fs';

interface CallFrame {
  readonly functionName: string;
  readonly url: string;
  readonly lineNumber: number;
}
interface ProfileNode {
  readonly id: number;
  readonly callFrame: CallFrame;
  readonly children?: readonly number[];
}
interface Profile {
  readonly nodes: readonly ProfileNode[];
  readonly samples: readonly number[];
  readonly timeDeltas: readonly number[];
}

/** "apiserver/storage" for …/packages/apiserver/src/storage/rest.ts; undefined outside our packages. */
function ownArea(url: string): string | undefined {
  const m = /packages\/([^/]+)\/src\/([^/]+)/.exec(url);
  if (m === null) return undefined;
  return `${m[1]}/${m[2]!.replace(/\.ts$/, '')}`;
}

function shortUrl(url: string): string {
  return url.replace(/^.*\/(packages|node_modules)\//, '$1/');
}

export function summarize(profile: Profile, top: number): string {
  const byId = new Map(profile.nodes.map((n) => [n.id, n]));
  const parent = new Map<number, number>();
  for (const n of profile.nodes) for (const c of n.children ?? []) parent.set(c, n.id);
  const selfTime = new Map<number, number>();
  profile.samples.forEach((id, i) => selfTime.set(id, (selfTime.get(id) ?? 0) + (profile.timeDeltas[i] ?? 0)));
  let total = 0;
  const areas = new Map<string, number>();
  const functions = new Map<string, number>();
  const add = (m: Map<string, number>, k: string, v: number) => m.set(k, (m.get(k) ?? 0) + v);
  for (const [id, t] of selfTime) {
    total += t;
    const node = byId.get(id)!;
    const f = node.callFrame;
    add(functions, `${f.functionName || '(anonymous)'} ${shortUrl(f.url)}${f.url && f.lineNumber > 0 ? `:${f.lineNumber + 1}` : ''}`, t);
    let area: string | undefined;
    for (let x: number | undefined = id; x !== undefined && area === undefined; x = parent.get(x)) area = ownArea(byId.get(x)!.callFrame.url);
    add(areas, area ?? (f.functionName || '(other)'), t);
  }
  const lines = (m: Map<string, number>) =>
    [...m]
      .sort((a, b) => b[1] - a[1])
      .slice(0, top)
      .map(([k, v]) => `${((100 * v) / total).toFixed(1).padStart(6)}%  ${k}`)
      .join('\n');
  return [`${(total / 1e6).toFixed(1)} s sampled`, '', 'by area (nearest own frame):', lines(areas), '', 'by function (self time):', lines(functions)].join('\n');
}

const args = process.argv.slice(2);
const topAt = args.indexOf('--top');
const top = topAt >= 0 ? Number(args[topAt + 1]) : 30;
const files = args.filter((a, i) => !a.startsWith('--') && !(topAt >= 0 && i === topAt + 1));
if (files.length === 0) {
  console.error('usage: node --import tsx bench/profile.ts FILE.cpuprofile… [--top N]');
  process.exit(2);
}
for (const file of files) {
  console.log(`# ${file}\n${summarize(JSON.parse(readFileSync(file, 'utf8')) as Profile, top)}\n`);
}
