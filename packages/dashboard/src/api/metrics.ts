/**
 * The controller-manager's Prometheus metrics (controller-runtime's and client-go's workqueue
 * names), read from /metrics/components/NAME, and what the Controllers page shows of them: per
 * controller its queue depth, reconciles per second, error rate and latency over the interval
 * between two scrapes.
 */

export interface Sample {
  readonly name: string;
  readonly labels: Readonly<Record<string, string>>;
  readonly value: number;
}

/** The samples of Prometheus text exposition format 0.0.4 (comments and malformed lines skipped). */
export function parsePrometheus(text: string): Sample[] {
  const out: Sample[] = [];
  for (const raw of text.split('\n')) {
    const line = raw.trim();
    if (line === '' || line.startsWith('#')) continue;
    const brace = line.indexOf('{');
    const space = line.indexOf(' ');
    let name: string;
    let labels: Record<string, string> = {};
    let rest: string;
    if (brace >= 0 && (space < 0 || brace < space)) {
      name = line.slice(0, brace);
      const parsed = parseLabels(line, brace + 1);
      if (parsed === undefined) continue;
      labels = parsed.labels;
      rest = line.slice(parsed.end + 1).trim();
    } else {
      if (space < 0) continue;
      name = line.slice(0, space);
      rest = line.slice(space + 1).trim();
    }
    const valueText = rest.split(/\s+/)[0] ?? '';
    const value = valueText === '+Inf' ? Infinity : valueText === '-Inf' ? -Infinity : Number(valueText);
    if (valueText === '' || Number.isNaN(value)) continue;
    out.push({ name, labels, value });
  }
  return out;
}

/** Labels from `line` starting at `i` (just after `{`); `end` is the index of the closing `}`. */
function parseLabels(line: string, i: number): { labels: Record<string, string>; end: number } | undefined {
  const labels: Record<string, string> = {};
  while (i < line.length) {
    while (line[i] === ' ' || line[i] === ',') i++;
    if (line[i] === '}') return { labels, end: i };
    const eq = line.indexOf('=', i);
    if (eq < 0 || line[eq + 1] !== '"') return undefined;
    const key = line.slice(i, eq).trim();
    let j = eq + 2;
    let value = '';
    while (j < line.length && line[j] !== '"') {
      if (line[j] === '\\') {
        const next = line[j + 1];
        value += next === 'n' ? '\n' : (next ?? '');
        j += 2;
      } else {
        value += line[j];
        j++;
      }
    }
    labels[key] = value;
    i = j + 1;
  }
  return undefined;
}

/** One scrape of one component, at `at` (ms since the epoch). */
export interface Scrape {
  readonly at: number;
  readonly samples: readonly Sample[];
}

export interface ControllerStats {
  readonly name: string;
  /** Keys waiting in its work queue. */
  readonly queueDepth: number;
  readonly activeWorkers: number;
  readonly maxWorkers: number;
  /** Reconciles since the process started. */
  readonly reconciles: number;
  readonly errors: number;
  /** Over the last interval; undefined before a second scrape. */
  readonly reconcilesPerSecond?: number;
  /** Errors / reconciles over the last interval (0..1); undefined when none ran or before a second scrape. */
  readonly errorRate?: number;
  /** Mean reconcile time over the last interval (since the start before a second scrape, or when none ran in it), seconds. */
  readonly meanLatency?: number;
  /** An upper bound of the 95th percentile reconcile time (its histogram bucket's), seconds; same interval as meanLatency. */
  readonly p95Latency?: number;
}

export interface ComponentStats {
  readonly controllers: ControllerStats[];
  /** leader_election_master_status: lease name → leading. */
  readonly leading: Readonly<Record<string, boolean>>;
}

const sum = (samples: readonly Sample[], name: string, label: string, value: string): number =>
  samples.filter((s) => s.name === name && s.labels[label] === value).reduce((acc, s) => acc + s.value, 0);

/** Per-controller figures from the latest scrape and, for rates, the one before it. */
export function controllerStats(latest: Scrape, previous?: Scrape): ComponentStats {
  const s = latest.samples;
  const names = new Set<string>();
  for (const sample of s) {
    if (sample.name.startsWith('controller_runtime_') && sample.labels.controller !== undefined) names.add(sample.labels.controller);
  }
  const dt = previous === undefined ? 0 : (latest.at - previous.at) / 1000;
  const controllers = [...names].sort().map((name): ControllerStats => {
    const reconciles = sum(s, 'controller_runtime_reconcile_total', 'controller', name);
    const errors = sum(s, 'controller_runtime_reconcile_errors_total', 'controller', name);
    const timeSum = sum(s, 'controller_runtime_reconcile_time_seconds_sum', 'controller', name);
    const timeCount = sum(s, 'controller_runtime_reconcile_time_seconds_count', 'controller', name);
    let buckets = bucketsOf(s, name);
    let meanSum = timeSum;
    let meanCount = timeCount;
    const sinceStart = { buckets, meanSum, meanCount };
    const out: { -readonly [K in keyof ControllerStats]: ControllerStats[K] } = {
      name,
      queueDepth: sum(s, 'workqueue_depth', 'name', name),
      activeWorkers: sum(s, 'controller_runtime_active_workers', 'controller', name),
      maxWorkers: sum(s, 'controller_runtime_max_concurrent_reconciles', 'controller', name),
      reconciles,
      errors,
    };
    if (previous !== undefined && dt > 0) {
      const p = previous.samples;
      const dRec = reconciles - sum(p, 'controller_runtime_reconcile_total', 'controller', name);
      const dErr = errors - sum(p, 'controller_runtime_reconcile_errors_total', 'controller', name);
      out.reconcilesPerSecond = Math.max(0, dRec) / dt;
      if (dRec > 0) out.errorRate = Math.max(0, dErr) / dRec;
      else out.errorRate = undefined;
      meanSum = timeSum - sum(p, 'controller_runtime_reconcile_time_seconds_sum', 'controller', name);
      meanCount = timeCount - sum(p, 'controller_runtime_reconcile_time_seconds_count', 'controller', name);
      const before = bucketsOf(p, name);
      buckets = buckets.map(([le, count]) => [le, count - (before.find(([l]) => l === le)?.[1] ?? 0)]);
      // Nothing ran in the interval: show the figures since the start rather than none.
      if (meanCount <= 0) ({ buckets, meanSum, meanCount } = sinceStart);
    } else if (reconciles > 0) {
      out.errorRate = errors / reconciles;
    }
    if (meanCount > 0) {
      out.meanLatency = meanSum / meanCount;
      out.p95Latency = quantile(buckets, 0.95);
    }
    return out;
  });
  const leading: Record<string, boolean> = {};
  for (const sample of s) if (sample.name === 'leader_election_master_status' && sample.labels.name !== undefined) leading[sample.labels.name] = sample.value === 1;
  return { controllers, leading };
}

/** [upper bound, cumulative count] of a controller's reconcile time histogram, by bound. */
function bucketsOf(samples: readonly Sample[], controller: string): [number, number][] {
  return samples
    .filter((x) => x.name === 'controller_runtime_reconcile_time_seconds_bucket' && x.labels.controller === controller && x.labels.le !== undefined)
    .map((x): [number, number] => [x.labels.le === '+Inf' ? Infinity : Number(x.labels.le), x.value])
    .sort((a, b) => a[0] - b[0]);
}

/**
 * The upper bound of the histogram bucket holding the `q` quantile of cumulative `buckets`: a bound
 * the quantile is known to be under (interpolating inside a bucket, as Prometheus'
 * histogram_quantile does, invents precision the buckets do not have). The last finite bound when
 * the quantile is in the +Inf bucket.
 */
export function quantile(buckets: readonly (readonly [number, number])[], q: number): number | undefined {
  const total = buckets[buckets.length - 1]?.[1] ?? 0;
  if (total <= 0) return undefined;
  const rank = q * total;
  let lastFinite = 0;
  for (const [le, count] of buckets) {
    if (count >= rank) return le === Infinity ? lastFinite : le;
    if (le !== Infinity) lastFinite = le;
  }
  return lastFinite;
}
