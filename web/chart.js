// memplan page — geometry of the chart "per-GPU memory against the number of GPUs" (both axes
// logarithmic). Pure: turns the core's sweep into coordinates; app.js draws them. No DOM here.

export const CHART = Object.freeze({ width: 640, height: 300, left: 64, right: 16, top: 12, bottom: 40 });

const log2 = Math.log2;

/**
 * sweep: [{gpus, totals: [4 × bytes | null]}]; capacity: bytes or 0; divisor: bytes per display unit.
 * Returns {series: [{stage, points: [[x, y]]}], xTicks, yTicks, capacityY} in SVG user units, or null.
 */
export function chartGeometry(sweep, capacity, divisor) {
  const values = [];
  for (const p of sweep) for (const t of p.totals) if (t) values.push(t / divisor);
  if (capacity) values.push(capacity / divisor);
  if (!sweep.length || !values.length) return null;
  const { width, height, left, right, top, bottom } = CHART;
  // y: decades that enclose every value.
  const yMinExp = Math.floor(Math.log10(Math.min(...values)));
  const yMaxExp = Math.max(yMinExp + 1, Math.ceil(Math.log10(Math.max(...values))));
  const y = (v) => top + (height - top - bottom) * (1 - (Math.log10(v) - yMinExp) / (yMaxExp - yMinExp));
  // x: GPUs 1 … 1024 on a log2 axis.
  const x = (g) => left + (width - left - right) * (log2(g) / 10);
  const series = [0, 1, 2, 3].map((stage) => ({
    stage,
    points: sweep.filter((p) => p.totals[stage]).map((p) => [x(p.gpus), y(p.totals[stage] / divisor)]),
  }));
  const xTicks = [1, 2, 4, 8, 16, 32, 64, 128, 256, 512, 1024].map((g) => ({ x: x(g), label: String(g) }));
  const yTicks = [];
  for (let e = yMinExp; e <= yMaxExp; e++) yTicks.push({ y: y(10 ** e), value: 10 ** e });
  return { series, xTicks, yTicks, capacityY: capacity ? y(capacity / divisor) : null };
}

/** SVG path data through points: "M x y L x y …". */
export function pathData(points) {
  return points.map(([px, py], i) => (i ? 'L' : 'M') + px.toFixed(1) + ' ' + py.toFixed(1)).join(' ');
}
