// memplan page — geometry of the Plan view's chart: the core's per-GPU-count rows (mp.plan().by_gpus)
// as two panels over one GPU axis (log2, the counts the core searches, mp.plan().gpu_counts): above,
// the best layout's time (training: step time) or throughput (serving: decode tokens/s per GPU) on a
// log axis; below, that layout's memory per GPU on a linear axis from 0 with the GPU's capacity as a
// line. Pure: turns the core's numbers into SVG user units; plan-view.js draws them. No DOM here.
import { pathData, tickLabel } from './chart.js';

export const PLAN_CHART = Object.freeze({ width: 640, height: 404, left: 64, right: 16, top: 24, panel: 136, gap: 60, bottom: 48 });

/** The y extent of the two panels: [top, bottom] in SVG user units. */
export const PANELS = Object.freeze({
  value: Object.freeze([PLAN_CHART.top, PLAN_CHART.top + PLAN_CHART.panel]),
  memory: Object.freeze([PLAN_CHART.top + PLAN_CHART.panel + PLAN_CHART.gap, PLAN_CHART.top + 2 * PLAN_CHART.panel + PLAN_CHART.gap]),
});

const STEPS = [1, 2, 5];

/** Log-axis ticks 1, 2, 5 × 10^k from just below `lo` to just above `hi` (lo ≤ hi, both > 0). */
export function logTicks(lo, hi) {
  let e = Math.floor(Math.log10(lo));
  const ticks = [];
  let below = null;
  for (; ticks.length < 40; e++) {
    for (const m of STEPS) {
      const v = Number((m * 10 ** e).toPrecision(12));
      if (v <= lo) below = v;
      else {
        if (!ticks.length && below !== null) ticks.push(below);
        ticks.push(v);
        if (v >= hi) return ticks;
      }
    }
  }
  return ticks;
}

/** Linear ticks from 0 to the first 1, 2 or 5 × 10^k multiple at or above `hi` (> 0), 3 to 6 ticks. */
export function linearTicks(hi) {
  const raw = hi / 4;
  const e = Math.floor(Math.log10(raw));
  const step = STEPS.map((m) => m * 10 ** e).concat(10 ** (e + 1)).find((s) => s * 5 >= hi) ?? 10 ** (e + 1);
  const ticks = [];
  for (let v = 0; ticks.length < 8; v += step) {
    ticks.push(Number(v.toPrecision(12)));
    if (v >= hi) break;
  }
  return ticks;
}

/**
 * counts: every GPU count the core searches (ascending); rows: the core's by_gpus so far; value(best)
 * → the number charted above (> 0); capacity: the GPU's memory in bytes (0: none); toUnit: bytes → the
 * number shown (format.js inUnit). Returns null with no counts, else {xTicks: [{x, gpus, label}],
 * value: {points: [{x, y, gpus, value}], yTicks: [{y, value}]}, memory: {points: [{x, y, gpus, bytes}],
 * yTicks: [{y, value}], capacityY}, none: [{x, gpus}] (counts searched where no layout fits)}.
 */
export function planChartGeometry(counts, rows, value, capacity, toUnit) {
  if (!counts.length) return null;
  const { width, left, right } = PLAN_CHART;
  const span = Math.log2(counts[counts.length - 1]) - Math.log2(counts[0]);
  const x = (g) => (span > 0 ? left + (width - left - right) * ((Math.log2(g) - Math.log2(counts[0])) / span) : (left + width - right) / 2);
  const xTicks = counts.map((g) => ({ x: x(g), gpus: g, label: tickLabel(g) }));
  const fitting = rows.filter((r) => r.best);
  const none = rows.filter((r) => !r.best).map((r) => ({ x: x(r.gpus), gpus: r.gpus }));

  // Above: a log axis over the values (a factor of 2 either side of a single value).
  const values = fitting.map((r) => value(r.best));
  let yValue = { points: [], yTicks: [] };
  if (values.length) {
    let lo = Math.min(...values);
    let hi = Math.max(...values);
    if (hi <= lo) [lo, hi] = [lo / 2, hi * 2];
    const ticks = logTicks(lo, hi);
    const [t, b] = PANELS.value;
    const a = Math.log10(ticks[0]);
    const z = Math.log10(ticks[ticks.length - 1]);
    const y = (v) => b - (b - t) * ((Math.log10(v) - a) / (z - a));
    yValue = { points: fitting.map((r, i) => ({ x: x(r.gpus), y: y(values[i]), gpus: r.gpus, value: values[i] })),
      yTicks: ticks.map((v) => ({ y: y(v), value: v })) };
  }

  // Below: memory per GPU from 0, up to the larger of the capacity and the largest best layout's.
  const shown = fitting.map((r) => toUnit(r.best.total_bytes));
  const top = Math.max(capacity ? toUnit(capacity) : 0, ...shown);
  let memory = { points: [], yTicks: [], capacityY: null };
  if (top > 0) {
    const ticks = linearTicks(top);
    const [t, b] = PANELS.memory;
    const y = (v) => b - (b - t) * (v / ticks[ticks.length - 1]);
    memory = { points: fitting.map((r, i) => ({ x: x(r.gpus), y: y(shown[i]), gpus: r.gpus, bytes: r.best.total_bytes })),
      yTicks: ticks.map((v) => ({ y: y(v), value: v })), capacityY: capacity ? y(toUnit(capacity)) : null };
  }
  return { xTicks, value: yValue, memory, none };
}

/** SVG path data through points [{x, y}]: "M x y L x y …" ("" for none). */
export function pathOf(points) {
  return pathData(points.map((p) => [p.x, p.y]));
}
