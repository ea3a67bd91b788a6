/**
 * What the benchmarks share: latency recording and percentiles, a printed table, the machine and
 * the conditions a run had, and `BenchReport`, which prints each table and writes
 * bench/results/NAME.json and NAME.svg (smoke runs write to bench/results/smoke/ instead, which
 * git ignores, so a smoke run never overwrites the results of a full one).
 */
import { execFileSync } from 'node:child_process';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { cpus, loadavg, release, tmpdir, totalmem, version as osVersion } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { renderCharts, type Chart } from './chart.js';

/** Whether the run is a smoke run (tiny sizes, only checks that the benchmark still works). */
export const smoke = process.argv.includes('--smoke') || process.env.BENCH_SMOKE === '1';

/** The value of `--NAME VALUE` on the command line, if given. */
export function argValue(name: string): string | undefined {
  const i = process.argv.indexOf(`--${name}`);
  return i >= 0 ? process.argv[i + 1] : undefined;
}

/** Records durations (ms) and reports percentiles. */
export class Latencies {
  private readonly samples: number[] = [];
  private sorted: number[] | undefined;
  add(ms: number): void {
    this.samples.push(ms);
    this.sorted = undefined;
  }
  get count(): number {
    return this.samples.length;
  }
  /** The p-th percentile (0–100) in ms; NaN without samples. */
  percentile(p: number): number {
    if (this.samples.length === 0) return NaN;
    this.sorted ??= [...this.samples].sort((a, b) => a - b);
    const i = Math.min(this.sorted.length - 1, Math.max(0, Math.ceil((p / 100) * this.sorted.length) - 1));
    return this.sorted[i]!;
  }
  get max(): number {
    return this.percentile(100);
  }
}

/** Milliseconds since an arbitrary origin, with sub-millisecond precision. */
export function nowMs(): number {
  return performance.now();
}

export function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

/** Waits until `check()` holds (polled every `everyMs`); false when `timeoutMs` passed first. */
export async function until(check: () => boolean | Promise<boolean>, timeoutMs: number, everyMs = 10): Promise<boolean> {
  const deadline = nowMs() + timeoutMs;
  while (!(await check())) {
    if (nowMs() > deadline) return false;
    await sleep(everyMs);
  }
  return true;
}

export type Row = Record<string, string | number>;

/** `a / b` when both are positive numbers, else NaN (a ratio of figures measured side by side). */
export function ratio(a: string | number | undefined, b: string | number | undefined): number {
  return typeof a === 'number' && typeof b === 'number' && b > 0 && Number.isFinite(a) ? a / b : NaN;
}

/** Prints rows as an aligned table. */
export function printTable(title: string, rows: Row[]): void {
  console.log(`\n${title}`);
  if (rows.length === 0) return;
  const cols = columns(rows);
  const widths = cols.map((c) => Math.max(c.length, ...rows.map((r) => formatCell(r[c]).length)));
  const line = (vals: string[]) => vals.map((v, i) => v.padStart(widths[i]!)).join('  ');
  console.log(line(cols));
  console.log(line(widths.map((w) => '-'.repeat(w))));
  for (const r of rows) console.log(line(cols.map((c) => formatCell(r[c]))));
}

/** Every column of the rows, in order of first appearance. */
export function columns(rows: Row[]): string[] {
  const seen = new Set<string>();
  for (const r of rows) for (const k of Object.keys(r)) seen.add(k);
  return [...seen];
}

/** A cell as printed: numbers rounded to a sensible precision. */
export function formatCell(v: string | number | null | undefined): string {
  if (v === undefined) return '';
  if (v === null) return '–'; // NaN, after a round trip through JSON
  if (typeof v === 'string') return v;
  if (!Number.isFinite(v)) return Number.isNaN(v) ? '–' : String(v);
  if (Number.isInteger(v) || Math.abs(v) >= 100) return Math.round(v).toLocaleString('en-US');
  if (Math.abs(v) >= 1) return v.toFixed(2);
  if (v === 0) return '0';
  return v.toFixed(3);
}

const benchDir = dirname(fileURLToPath(import.meta.url));

/** bench/results, or bench/results/smoke for smoke runs. */
export function resultsDir(): string {
  const dir = join(benchDir, 'results', ...(smoke ? ['smoke'] : []));
  mkdirSync(dir, { recursive: true });
  return dir;
}

/** The machine a run happened on. */
export function machineInfo(): Record<string, string | number> {
  let kernel = release();
  let memAvailable = NaN;
  try {
    kernel = readFileSync('/proc/sys/kernel/osrelease', 'utf8').trim();
    const m = /MemAvailable:\s+(\d+) kB/.exec(readFileSync('/proc/meminfo', 'utf8'));
    if (m) memAvailable = Number(m[1]) * 1024;
  } catch {
    // Not Linux: os.release() is the kernel version.
  }
  return {
    cpu: cpus()[0]?.model ?? 'unknown',
    cores: cpus().length,
    memoryBytes: totalmem(),
    memoryAvailableBytes: memAvailable,
    node: process.version,
    kernel,
    os: osVersion(),
    tmpdir: `${tmpdir()} on ${mountOf(tmpdir())}`,
  };
}

/** The device and file system holding `path` (from /proc/mounts), where the servers keep their data. */
function mountOf(path: string): string {
  try {
    let best = { point: '', text: 'unknown' };
    for (const line of readFileSync('/proc/mounts', 'utf8').split('\n')) {
      const [device, point, fs] = line.split(' ');
      if (device === undefined || point === undefined || fs === undefined) continue;
      if ((path === point || path.startsWith(point.endsWith('/') ? point : `${point}/`)) && point.length >= best.point.length) best = { point, text: `${device} (${fs})` };
    }
    return best.text;
  } catch {
    return 'unknown';
  }
}

function gitCommit(): string {
  try {
    const head = execFileSync('git', ['rev-parse', '--short', 'HEAD'], { cwd: benchDir, encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] }).trim();
    const dirty = execFileSync('git', ['status', '--porcelain', '--untracked-files=no'], { cwd: benchDir, encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] }).trim();
    return dirty === '' ? head : `${head} (with uncommitted changes)`;
  } catch {
    return 'unknown';
  }
}

/** CPU ticks (USER_HZ) the whole machine was busy, and this process with its reaped children used. */
function cpuTicks(): { machineBusy: number; machineTotal: number; own: number } | undefined {
  try {
    const fields = readFileSync('/proc/stat', 'utf8').split('\n')[0]!.trim().split(/\s+/).slice(1, 9).map(Number);
    const total = fields.reduce((a, b) => a + b, 0);
    const idle = fields[3]! + fields[4]!;
    const self = readFileSync('/proc/self/stat', 'utf8');
    const after = self.slice(self.lastIndexOf(')') + 2).split(' ').map(Number);
    // Fields 14–17 of /proc/PID/stat (utime stime cutime cstime) are 11–14 after the command name.
    const own = after[11]! + after[12]! + after[13]! + after[14]!;
    return { machineBusy: total - idle, machineTotal: total, own };
  } catch {
    return undefined;
  }
}

/**
 * The conditions of one benchmark run: when it ran, how long, the load average before and after,
 * and how busy the machine was — with the share of CPU used by other processes (not this one nor
 * the servers it started and stopped), so a noisy run says so.
 */
export class Conditions {
  private readonly started = new Date();
  private readonly t0 = nowMs();
  private readonly ticks0 = cpuTicks();
  private readonly load0 = loadavg();

  finish(): Record<string, unknown> {
    const ticks = cpuTicks();
    const seconds = (nowMs() - this.t0) / 1000;
    let machineBusyPercent = NaN;
    let otherProcessesPercent = NaN;
    if (this.ticks0 !== undefined && ticks !== undefined) {
      const total = ticks.machineTotal - this.ticks0.machineTotal;
      const busy = ticks.machineBusy - this.ticks0.machineBusy;
      const own = ticks.own - this.ticks0.own;
      if (total > 0) {
        machineBusyPercent = (100 * busy) / total;
        otherProcessesPercent = Math.max(0, (100 * (busy - own)) / total);
      }
    }
    return {
      date: this.started.toISOString(),
      seconds,
      loadAverageBefore: this.load0.map((x) => Math.round(x * 100) / 100),
      loadAverageAfter: loadavg().map((x) => Math.round(x * 100) / 100),
      machineBusyPercent,
      otherProcessesPercent,
      note:
        'otherProcessesPercent: CPU used by processes other than this benchmark and the servers it started (and stopped), as a share of all cores; ' +
        'servers still running when it is read (none, normally) count as "other"',
    };
  }
}

let current: Conditions | undefined;

/** Starts the conditions of the next benchmark (run.ts calls it before each), so they cover its setup too. */
export function beginRun(): void {
  current = new Conditions();
}

/** One headline figure of a benchmark (for the README summary). */
export interface Headline {
  readonly figure: string;
  readonly value: string;
  readonly note?: string;
}

/**
 * Collects what one benchmark measured: each table is printed as it is added; `write()` saves
 * bench/results/NAME.json (tables, headlines, charts' data, machine, conditions, command) and
 * NAME.svg (its charts).
 */
export class BenchReport {
  private readonly conditions = current ?? new Conditions();
  private readonly tables: Array<{ title: string; rows: Row[] }> = [];
  private readonly headlines: Headline[] = [];
  private readonly charts: Chart[] = [];
  private readonly notes: string[] = [];

  constructor(
    readonly name: string,
    readonly description: string,
    readonly command = `npm run bench -- ${name}`,
  ) {}

  table(title: string, rows: Row[]): Row[] {
    printTable(title, rows);
    this.tables.push({ title, rows });
    return rows;
  }

  headline(figure: string, value: string, note?: string): void {
    this.headlines.push({ figure, value, ...(note === undefined ? {} : { note }) });
  }

  chart(chart: Chart): void {
    this.charts.push(chart);
  }

  /** A sentence the README repeats under this benchmark (settings, caveats, what broke). */
  note(text: string): void {
    this.notes.push(text);
    console.log(`note: ${text}`);
  }

  /** Writes NAME.json (with `data` merged in) and, with charts, NAME.svg; returns the JSON's path. */
  write(data: Record<string, unknown> = {}): string {
    const dir = resultsDir();
    const file = join(dir, `${this.name}.json`);
    if (this.headlines.length > 0) printTable(`${this.name}: headline figures`, this.headlines.map((h) => ({ ...h })));
    const body = {
      name: this.name,
      description: this.description,
      command: this.command + (smoke ? ' --smoke' : ''),
      smoke,
      commit: gitCommit(),
      machine: machineInfo(),
      conditions: this.conditions.finish(),
      headlines: this.headlines,
      notes: this.notes,
      tables: this.tables,
      charts: this.charts,
      ...data,
    };
    writeFileSync(file, JSON.stringify(body, null, 2) + '\n');
    if (this.charts.length > 0) writeFileSync(join(dir, `${this.name}.svg`), renderCharts(this.charts));
    console.log(`\nresults: ${file}${this.charts.length > 0 ? ` and ${this.name}.svg` : ''}`);
    return file;
  }
}

/** Resident set size of a process in bytes (Linux /proc), NaN when unreadable. */
export function rssOf(pid: number): number {
  try {
    const m = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
    return m ? Number(m[1]) * 1024 : NaN;
  } catch {
    return NaN;
  }
}

/** CPU seconds (user + system) a live process has used so far (Linux /proc), NaN when unreadable. */
export function cpuSecondsOf(pid: number): number {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    const after = stat.slice(stat.lastIndexOf(')') + 2).split(' ').map(Number);
    return (after[11]! + after[12]!) / 100; // USER_HZ is 100 on Linux
  } catch {
    return NaN;
  }
}

export const MiB = 2 ** 20;
