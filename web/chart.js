// memplan page — geometry of the page's line charts (both axes logarithmic): per-GPU memory of the
// four ZeRO stages against the number of GPUs (training), and the per-GPU total and KV cache against
// the context length (inference). Pure: turns the core's numbers into coordinates; app.js draws them.
// No DOM here.

export const CHART = Object.freeze({ width: 640, height: 300, left: 64, right: 16, top: 12, bottom: 40 });

const log2 = Math.log2;

/**
 * series: [{key, points: [[x, bytes]]}] with x > 0 on a log2 axis from xTicks[0] to the last tick;
 * capacity: bytes or 0; divisor: bytes per display unit. Returns {series: [{key, points: [[px, py]]}],
 * xTicks: [{x, label}], yTicks: [{y, value}], capacityY} in SVG user units, or null when there is nothing to draw.
 */
export function lineGeometry(series, xTickValues, capacity, divisor) {
  const values = [];
  for (const s of series) for (const [, b] of s.points) if (b) values.push(b / divisor);
  if (capacity) values.push(capacity / divisor);
  if (!values.length || xTickValues.length < 2) return null;
  const { width, height, left, right, top, bottom } = CHART;
  // y: decades that enclose every value.
  const yMinExp = Math.floor(Math.log10(Math.min(...values)));
  const yMaxExp = Math.max(yMinExp + 1, Math.ceil(Math.log10(Math.max(...values))));
  const y = (v) => top + (height - top - bottom) * (1 - (Math.log10(v) - yMinExp) / (yMaxExp - yMinExp));
  const x0 = log2(xTickValues[0]);
  const span = log2(xTickValues[xTickValues.length - 1]) - x0;
  const x = (g) => left + (width - left - right) * ((log2(g) - x0) / span);
  const out = series.map((s) => ({ key: s.key, points: s.points.filter(([, b]) => b).map(([g, b]) => [x(g), y(b / divisor)]) }));
  const xTicks = xTickValues.map((g) => ({ x: x(g), label: g >= 1024 && g % 1024 === 0 ? g / 1024 + 'K' : String(g) }));
  const yTicks = [];
  for (let e = yMinExp; e <= yMaxExp; e++) yTicks.push({ y: y(10 ** e), value: 10 ** e });
  return { series: out, xTicks, yTicks, capacityY: capacity ? y(capacity / divisor) : null };
}

/** The ZeRO sweep [{gpus, totals: [4 × bytes | null]}] as the series of lineGeometry (key = stage). */
export function sweepSeries(sweep) {
  return [0, 1, 2, 3].map((stage) => ({ key: stage, points: sweep.filter((p) => p.totals[stage]).map((p) => [p.gpus, p.totals[stage]]) }));
}

/** GPU counts on the sweep chart's axis. */
export const GPU_TICKS = Object.freeze([1, 2, 4, 8, 16, 32, 64, 128, 256, 512, 1024]);

/** Context lengths on the inference chart's axis: 512 … 1M tokens. */
export const CONTEXT_TICKS = Object.freeze([512, 1024, 2048, 4096, 8192, 16384, 32768, 65536, 131072, 262144, 524288, 1048576]);

/** SVG path data through points: "M x y L x y …". */
export function pathData(points) {
  return points.map(([px, py], i) => (i ? 'L' : 'M') + px.toFixed(1) + ' ' + py.toFixed(1)).join(' ');
}
