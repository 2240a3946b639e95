// memplan page — geometry of the page's charts: the stacked bar of the breakdown, and the line charts
// (both axes logarithmic) of per-GPU memory of the four ZeRO stages against the number of GPUs
// (training) and of the per-GPU total and KV cache against the context length (inference). Pure: turns
// the core's numbers into coordinates; chart-view.js and breakdown.js draw them. No DOM here.

export const CHART = Object.freeze({ width: 640, height: 300, left: 64, right: 16, top: 12, bottom: 40 });

const log2 = Math.log2;

/**
 * series: [{key, points: [[x, bytes]]}] with x > 0 on a log2 axis from xTickValues[0] to the last tick;
 * capacity: bytes or 0; toUnit: bytes → the number shown (format.js inUnit). Returns {series: [{key,
 * points: [[px, py]]}], xTicks: [{x, label}], yTicks: [{y, value}], capacityY} in SVG user units, or
 * null when there is nothing to draw. Points of 0 bytes (nothing on a log axis) are left out.
 */
export function lineGeometry(series, xTickValues, capacity, toUnit) {
  const values = [];
  for (const s of series) for (const [, b] of s.points) if (b) values.push(toUnit(b));
  if (capacity) values.push(toUnit(capacity));
  if (!values.length || xTickValues.length < 2) return null;
  const { width, height, left, right, top, bottom } = CHART;
  // y: decades that enclose every value.
  const yMinExp = Math.floor(Math.log10(Math.min(...values)));
  const yMaxExp = Math.max(yMinExp + 1, Math.ceil(Math.log10(Math.max(...values))));
  const y = (v) => top + (height - top - bottom) * (1 - (Math.log10(v) - yMinExp) / (yMaxExp - yMinExp));
  const x0 = log2(xTickValues[0]);
  const span = log2(xTickValues[xTickValues.length - 1]) - x0;
  const x = (g) => left + (width - left - right) * ((log2(g) - x0) / span);
  const out = series.map((s) => ({ key: s.key, points: s.points.filter(([, b]) => b).map(([g, b]) => [x(g), y(toUnit(b))]) }));
  const xTicks = xTickValues.map((g) => ({ x: x(g), label: tickLabel(g) }));
  const yTicks = [];
  for (let e = yMinExp; e <= yMaxExp; e++) yTicks.push({ y: y(10 ** e), value: 10 ** e });
  return { series: out, xTicks, yTicks, capacityY: capacity ? y(toUnit(capacity)) : null };
}

/** An x-axis label: 512, 1K, 1024K (powers of two in units of 1024 from 1024 on). */
export function tickLabel(value) {
  return value >= 1024 && value % 1024 === 0 ? value / 1024 + 'K' : String(value);
}

/** The ZeRO sweep [{gpus, totals: [4 × bytes | null]}] as the series of lineGeometry (key = stage). */
export function sweepSeries(sweep) {
  return [0, 1, 2, 3].map((stage) => ({ key: stage, points: sweep.filter((p) => p.totals[stage]).map((p) => [p.gpus, p.totals[stage]]) }));
}

/**
 * The core's context sweep (analyze().context_sweep: [{context_len, total_bytes, fits, kv_cache_bytes?}])
 * as the series of lineGeometry: the per-GPU total, and the KV cache where the core reports it.
 */
export function contextSeries(sweep) {
  const series = [{ key: 'total', points: sweep.map((p) => [p.context_len, p.total_bytes]) }];
  const kv = sweep.filter((p) => typeof p.kv_cache_bytes === 'number');
  if (kv.length) series.push({ key: 'kv', points: kv.map((p) => [p.context_len, p.kv_cache_bytes]) });
  return series;
}

/** The x-axis ticks of a series: its x values in order, without repeats. */
export function xValues(series) {
  return [...new Set(series.flatMap((s) => s.points.map(([x]) => x)))].sort((a, b) => a - b);
}

/** GPU counts on the sweep chart's axis. */
export const GPU_TICKS = Object.freeze([1, 2, 4, 8, 16, 32, 64, 128, 256, 512, 1024]);

/** SVG path data through points: "M x y L x y …". */
export function pathData(points) {
  return points.map(([px, py], i) => (i ? 'L' : 'M') + px.toFixed(1) + ' ' + py.toFixed(1)).join(' ');
}

/**
 * The stacked bar: parts [[key, bytes]] and the GPU capacity (bytes or 0) on one scale whose 100% is the
 * larger of the total and the capacity. Returns {segments: [{key, percent}] (zero parts left out),
 * capacityPercent (null without a capacity)}.
 */
export function barGeometry(parts, total, capacity) {
  const scale = Math.max(total, capacity || 0) || 1;
  return {
    segments: parts.filter(([, bytes]) => bytes).map(([key, bytes]) => ({ key, percent: 100 * bytes / scale })),
    capacityPercent: capacity ? Math.min(100, 100 * capacity / scale) : null,
  };
}
