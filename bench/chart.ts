/**
 * Small SVG charts for the benchmark results, written here (no chart library): line charts (one
 * line per series, optional log axes and a dashed reference line such as an SLO) and horizontal
 * bar charts. `renderCharts` stacks several charts into one SVG document.
 */

export interface Series {
  readonly name: string;
  readonly points: ReadonlyArray<readonly [number, number]>;
  /** Draw the points only, unconnected (markers). Default false. */
  readonly dotsOnly?: boolean;
}

export interface LineChart {
  readonly kind: 'line';
  readonly title: string;
  /** Axis labels. */
  readonly x: string;
  readonly y: string;
  readonly xLog?: boolean;
  readonly yLog?: boolean;
  readonly series: readonly Series[];
  /** A horizontal dashed line (a limit such as an SLO). */
  readonly reference?: { readonly y: number; readonly label: string };
}

export interface Bar {
  readonly label: string;
  readonly value: number;
  /** Bars of the same series share a colour (and a legend entry). */
  readonly series?: string;
}

export interface BarChart {
  readonly kind: 'bar';
  readonly title: string;
  readonly unit: string;
  readonly bars: readonly Bar[];
}

export type Chart = LineChart | BarChart;

const WIDTH = 720;
const COLORS = ['#1f77b4', '#d62728', '#2ca02c', '#ff7f0e', '#9467bd', '#8c564b', '#17becf', '#7f7f7f'];
const FONT = 'font-family="system-ui, sans-serif"';

/** About how wide `text` is drawn at `size` px (for layout only). */
function textWidth(text: string, size: number): number {
  return text.length * size * 0.58;
}

/** A title at 15 px, smaller when it would not fit in `width`. */
function title(text: string, x: number, y: number, width: number): string {
  const size = Math.max(10, Math.min(15, Math.floor(width / (text.length * 0.6))));
  return `<text x="${x}" y="${y}" font-size="${size}" font-weight="600" ${FONT}>${esc(text)}</text>`;
}

function esc(text: string): string {
  return text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');
}

/** A short label of a number: 1.5k, 20M, 0.25. */
export function shortNumber(v: number): string {
  const a = Math.abs(v);
  const trim = (x: number) => String(Number(x.toPrecision(3)));
  if (a >= 1e9) return `${trim(v / 1e9)}G`;
  if (a >= 1e6) return `${trim(v / 1e6)}M`;
  if (a >= 1e4) return `${trim(v / 1e3)}k`;
  return trim(v);
}

interface Axis {
  readonly toPx: (v: number) => number;
  readonly ticks: number[];
}

function axis(values: number[], log: boolean, from: number, to: number, includeZero: boolean): Axis {
  const finite = values.filter((v) => Number.isFinite(v) && (!log || v > 0));
  if (log) {
    const lo = Math.floor(Math.log10(Math.min(...finite, 1e9)));
    const hi = Math.ceil(Math.log10(Math.max(...finite, 1e-9)));
    const a = finite.length === 0 ? 0 : lo;
    const b = finite.length === 0 ? 1 : Math.max(hi, a + 1);
    const ticks: number[] = [];
    for (let e = a; e <= b; e++) ticks.push(10 ** e);
    return { toPx: (v) => from + ((Math.log10(Math.max(v, 10 ** a)) - a) / (b - a)) * (to - from), ticks };
  }
  let lo = Math.min(...finite, includeZero ? 0 : Infinity);
  let hi = Math.max(...finite, -Infinity);
  if (!Number.isFinite(lo) || !Number.isFinite(hi)) [lo, hi] = [0, 1];
  if (hi === lo) hi = lo + 1;
  const raw = (hi - lo) / 5;
  const mag = 10 ** Math.floor(Math.log10(raw));
  const step = ([1, 2, 2.5, 5, 10].find((s) => s * mag >= raw) ?? 10) * mag;
  const start = Math.floor(lo / step) * step;
  const end = Math.ceil(hi / step) * step;
  const ticks: number[] = [];
  for (let t = start; t <= end + step / 2; t += step) ticks.push(Number(t.toPrecision(12)));
  return { toPx: (v) => from + ((v - start) / (end - start)) * (to - from), ticks };
}

function lineChart(c: LineChart, top: number): { svg: string; height: number } {
  const height = 260;
  const left = 70;
  const right = WIDTH - 170;
  const plotTop = top + 34;
  const bottom = top + height - 46;
  const xs = c.series.flatMap((s) => s.points.map((p) => p[0]));
  const ys = c.series.flatMap((s) => s.points.map((p) => p[1])).concat(c.reference ? [c.reference.y] : []);
  const X = axis(xs, c.xLog ?? false, left, right, false);
  const Y = axis(ys, c.yLog ?? false, bottom, plotTop, true);
  const out: string[] = [];
  out.push(title(c.title, left, top + 20, WIDTH - left - 10));
  out.push(`<rect x="${left}" y="${plotTop}" width="${right - left}" height="${bottom - plotTop}" fill="none" stroke="#999"/>`);
  for (const t of Y.ticks) {
    const y = Y.toPx(t);
    out.push(`<line x1="${left}" x2="${right}" y1="${y.toFixed(1)}" y2="${y.toFixed(1)}" stroke="#eee"/>`);
    out.push(`<text x="${left - 6}" y="${(y + 4).toFixed(1)}" font-size="11" text-anchor="end" ${FONT}>${shortNumber(t)}</text>`);
  }
  for (const t of X.ticks) {
    const x = X.toPx(t);
    out.push(`<line x1="${x.toFixed(1)}" x2="${x.toFixed(1)}" y1="${bottom}" y2="${bottom + 4}" stroke="#999"/>`);
    out.push(`<text x="${x.toFixed(1)}" y="${bottom + 17}" font-size="11" text-anchor="middle" ${FONT}>${shortNumber(t)}</text>`);
  }
  out.push(`<text x="${(left + right) / 2}" y="${bottom + 36}" font-size="12" text-anchor="middle" ${FONT}>${esc(c.x)}</text>`);
  out.push(`<text x="16" y="${(plotTop + bottom) / 2}" font-size="12" text-anchor="middle" transform="rotate(-90 16 ${(plotTop + bottom) / 2})" ${FONT}>${esc(c.y)}</text>`);
  if (c.reference) {
    const y = Y.toPx(c.reference.y).toFixed(1);
    out.push(`<line x1="${left}" x2="${right}" y1="${y}" y2="${y}" stroke="#d62728" stroke-dasharray="6 4"/>`);
    out.push(`<text x="${right - 4}" y="${Number(y) - 5}" font-size="11" text-anchor="end" fill="#d62728" ${FONT}>${esc(c.reference.label)}</text>`);
  }
  c.series.forEach((s, i) => {
    const color = COLORS[i % COLORS.length]!;
    const pts = s.points.filter((p) => Number.isFinite(p[0]) && Number.isFinite(p[1]) && (!c.yLog || p[1] > 0) && (!c.xLog || p[0] > 0));
    const path = pts.map((p) => `${X.toPx(p[0]).toFixed(1)},${Y.toPx(p[1]).toFixed(1)}`).join(' ');
    if (pts.length > 1 && s.dotsOnly !== true) out.push(`<polyline points="${path}" fill="none" stroke="${color}" stroke-width="2"/>`);
    for (const p of pts) out.push(`<circle cx="${X.toPx(p[0]).toFixed(1)}" cy="${Y.toPx(p[1]).toFixed(1)}" r="${s.dotsOnly === true ? 5 : 3}" fill="${color}"/>`);
    const ly = plotTop + 8 + i * 18;
    if (s.dotsOnly === true) out.push(`<circle cx="${right + 22}" cy="${ly}" r="5" fill="${color}"/>`);
    else out.push(`<line x1="${right + 12}" x2="${right + 32}" y1="${ly}" y2="${ly}" stroke="${color}" stroke-width="2"/>`);
    out.push(`<text x="${right + 38}" y="${ly + 4}" font-size="11" ${FONT}>${esc(s.name)}</text>`);
  });
  return { svg: out.join('\n'), height };
}

function barChart(c: BarChart, top: number): { svg: string; height: number } {
  const labelWidth = 260;
  const left = labelWidth + 10;
  const right = WIDTH - 90;
  const rowHeight = 22;
  const groups = [...new Set(c.bars.map((b) => b.series ?? ''))];
  // The legend, wrapped onto as many lines as it needs.
  const legend: Array<{ x: number; line: number }> = [];
  let lx = 10;
  let lines = 0;
  if (groups.length > 1) {
    lines = 1;
    for (const g of groups) {
      const w = 16 + textWidth(g, 11) + 24;
      if (lx + w > WIDTH - 10 && lx > 10) {
        lx = 10;
        lines++;
      }
      legend.push({ x: lx, line: lines - 1 });
      lx += w;
    }
  }
  const plotTop = top + 30 + lines * 18;
  const height = plotTop - top + c.bars.length * rowHeight + 30;
  const max = Math.max(...c.bars.map((b) => (Number.isFinite(b.value) ? b.value : 0)), 0) || 1;
  const out: string[] = [];
  out.push(title(c.title, 10, top + 20, WIDTH - 20));
  groups.forEach((g, i) => {
    const at = legend[i];
    if (at === undefined) return;
    const y = top + 32 + at.line * 18;
    out.push(`<rect x="${at.x}" y="${y}" width="12" height="12" fill="${COLORS[i % COLORS.length]}"/>`);
    out.push(`<text x="${at.x + 16}" y="${y + 10}" font-size="11" ${FONT}>${esc(g)}</text>`);
  });
  c.bars.forEach((b, i) => {
    const y = plotTop + i * rowHeight;
    const color = COLORS[groups.indexOf(b.series ?? '') % COLORS.length];
    const w = Number.isFinite(b.value) ? ((right - left) * Math.max(0, b.value)) / max : 0;
    out.push(`<text x="${labelWidth}" y="${y + 15}" font-size="12" text-anchor="end" ${FONT}>${esc(b.label)}</text>`);
    out.push(`<rect x="${left}" y="${y + 3}" width="${w.toFixed(1)}" height="${rowHeight - 6}" fill="${color}"/>`);
    const text = Number.isFinite(b.value) ? `${shortNumber(b.value)} ${c.unit}` : 'n/a';
    out.push(`<text x="${(left + w + 5).toFixed(1)}" y="${y + 15}" font-size="11" ${FONT}>${esc(text)}</text>`);
  });
  return { svg: out.join('\n'), height };
}

/** One SVG document with the charts one below the other. */
export function renderCharts(charts: readonly Chart[]): string {
  const parts: string[] = [];
  let top = 0;
  for (const c of charts) {
    const { svg, height } = c.kind === 'line' ? lineChart(c, top) : barChart(c, top);
    parts.push(svg);
    top += height + 10;
  }
  return [
    `<svg xmlns="http://www.w3.org/2000/svg" width="${WIDTH}" height="${top}" viewBox="0 0 ${WIDTH} ${top}">`,
    `<rect width="${WIDTH}" height="${top}" fill="#fff"/>`,
    ...parts,
    '</svg>',
    '',
  ].join('\n');
}
