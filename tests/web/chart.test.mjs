// Geometry of the page's charts (web/chart.js): positions in SVG user units of the 640 × 300 chart
// whose plot area runs from x = 64 to 624 and from y = 12 to 260.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { CHART, GPU_TICKS, barGeometry, contextSeries, lineGeometry, pathData, sweepSeries, tickLabel, xValues } from '../../web/chart.js';
import { inUnit } from '../../web/format.js';

const gib = (bytes) => inUnit(bytes, 'GiB');

test('x: 1 to 1024 GPUs on a log2 axis, 56 units per doubling (560 / 10)', () => {
  const g = lineGeometry([{ key: 0, points: [[1, 2 ** 30], [1024, 2 ** 30]] }], GPU_TICKS, 0, gib);
  assert.deepEqual(g.xTicks.map((t) => t.x), [64, 120, 176, 232, 288, 344, 400, 456, 512, 568, 624]);
  assert.deepEqual(g.xTicks.map((t) => t.label), ['1', '2', '4', '8', '16', '32', '64', '128', '256', '512', '1K']);
  assert.equal(CHART.width - CHART.right, 624);
});

test('y: the decades that enclose the values, 10 GiB at the bottom (y = 260) and 1000 GiB at the top (y = 12)', () => {
  const g = lineGeometry([{ key: 0, points: [[1, 20 * 2 ** 30], [2, 500 * 2 ** 30]] }], GPU_TICKS, 80e9, gib);
  assert.deepEqual(g.yTicks, [{ y: 260, value: 10 }, { y: 136, value: 100 }, { y: 12, value: 1000 }]);
  // 100 GiB sits one decade up: 260 − 124; the capacity 74.505... GiB just below it.
  assert.equal(g.capacityY, 12 + 248 * (1 - (Math.log10(80e9 / 2 ** 30) - 1) / 2));
  assert.ok(g.capacityY > 136 && g.capacityY < 260);
  assert.equal(g.series[0].points[0][0], 64);
  assert.equal(g.series[0].points[1][0], 120);
});

test('the same bytes in GB move the points: the unit is applied by format.js inUnit', () => {
  const bytes = 1e11;  // 100 GB, 93.13 GiB
  const inGb = lineGeometry([{ key: 0, points: [[1, bytes]] }], GPU_TICKS, 0, (b) => inUnit(b, 'GB'));
  assert.deepEqual(inGb.yTicks.map((t) => t.value), [100, 1000]);
  assert.equal(inGb.series[0].points[0][1], 260);  // exactly the bottom decade
});

test('nothing to draw: no values, or fewer than two ticks; zero-byte points are left out', () => {
  assert.equal(lineGeometry([{ key: 0, points: [[1, 0]] }], GPU_TICKS, 0, gib), null);
  assert.equal(lineGeometry([{ key: 0, points: [[1, 5]] }], [1], 0, gib), null);
  const g = lineGeometry([{ key: 0, points: [[1, 0], [2, 2 ** 30]] }], GPU_TICKS, 0, gib);
  assert.equal(g.series[0].points.length, 1);
});

test('the ZeRO sweep: one series per stage, GPU counts where the stage has a total', () => {
  const sweep = [{ gpus: 1, totals: [10, 10, null, 10] }, { gpus: 2, totals: [10, 8, 7, 6] }];
  assert.deepEqual(sweepSeries(sweep), [
    { key: 0, points: [[1, 10], [2, 10]] }, { key: 1, points: [[1, 10], [2, 8]] },
    { key: 2, points: [[2, 7]] }, { key: 3, points: [[1, 10], [2, 6]] }]);
});

test('the context sweep of analyze(): the total, and the KV cache where the core reports it', () => {
  const sweep = [{ context_len: 512, total_bytes: 100, fits: true }, { context_len: 1024, total_bytes: 200, fits: false }];
  assert.deepEqual(contextSeries(sweep), [{ key: 'total', points: [[512, 100], [1024, 200]] }]);
  const withKv = sweep.map((p, i) => ({ ...p, kv_cache_bytes: 10 * (i + 1) }));
  assert.deepEqual(contextSeries(withKv)[1], { key: 'kv', points: [[512, 10], [1024, 20]] });
  assert.deepEqual(xValues(contextSeries(withKv)), [512, 1024]);
  assert.equal(tickLabel(1048576), '1024K');
  assert.equal(tickLabel(512), '512');
});

test('path data with one decimal', () => {
  assert.equal(pathData([[64, 260], [120.04, 136.06]]), 'M64.0 260.0 L120.0 136.1');
});

test('the stacked bar: parts on the scale of the larger of total and capacity', () => {
  // 60 of a 80-byte GPU: the parts fill 75%, the capacity mark at 100%.
  assert.deepEqual(barGeometry([['weights', 30], ['gradients', 0], ['activations', 30]], 60, 80),
    { segments: [{ key: 'weights', percent: 37.5 }, { key: 'activations', percent: 37.5 }], capacityPercent: 100 });
  // 100 on an 80-byte GPU: the parts fill the bar, the capacity mark at 80%.
  assert.deepEqual(barGeometry([['weights', 100]], 100, 80), { segments: [{ key: 'weights', percent: 100 }], capacityPercent: 80 });
  assert.equal(barGeometry([['weights', 100]], 100, 0).capacityPercent, null);
});
