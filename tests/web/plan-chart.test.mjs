// Geometry of the Plan view's chart (web/plan-chart.js): the 640 × 404 chart's GPU axis runs from
// x = 64 to 624; the value panel from y = 24 to 160, the memory panel from y = 220 to 356.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { PANELS, PLAN_CHART, linearTicks, logTicks, planChartGeometry } from '../../web/plan-chart.js';
import { inUnit } from '../../web/format.js';

const gib = (bytes) => inUnit(bytes, 'GiB');
const step = (best) => best.step_s;
const row = (gpus, stepS, gibs) => ({ gpus, considered: 10, fitting: 3, best: { step_s: stepS, total_bytes: gibs * 2 ** 30, text: `layout at ${gpus}` } });
const counts = [64, 128, 256, 512, 1024];

test('the panels: 136 units each, 60 apart, 24 above for the title, 48 below for the GPU labels', () => {
  assert.deepEqual(PANELS.value, [24, 160]);
  assert.deepEqual(PANELS.memory, [220, 356]);
  assert.equal(PANELS.memory[1] + PLAN_CHART.bottom, PLAN_CHART.height);
});

test('x: the counts the core searches on a log2 axis, 140 units per doubling over 64 to 1,024 GPUs', () => {
  const g = planChartGeometry(counts, [row(64, 20, 70)], step, 80e9, gib);
  assert.deepEqual(g.xTicks.map((t) => t.x), [64, 204, 344, 484, 624]);
  assert.deepEqual(g.xTicks.map((t) => t.label), ['64', '128', '256', '512', '1K']);
  // A row streamed in sits at its count's tick; counts not yet searched have no point.
  assert.equal(g.value.points.length, 1);
  assert.equal(g.value.points[0].x, 64);
  // One count alone: the middle of the axis.
  assert.equal(planChartGeometry([8], [row(8, 1, 40)], step, 80e9, gib).xTicks[0].x, 344);
  assert.equal(planChartGeometry([], [], step, 0, gib), null);
});

test('above: step times on a log axis of 1-2-5 ticks that enclose them, one point per count with a best', () => {
  const rows = [row(64, 16, 70), row(128, 8, 60), row(256, 4, 50), row(512, 2.5, 45)];
  const g = planChartGeometry(counts, rows, step, 0, gib);
  assert.deepEqual(g.value.yTicks.map((t) => t.value), [2, 5, 10, 20]);
  assert.equal(g.value.yTicks[0].y, 160);
  assert.equal(g.value.yTicks[3].y, 24);
  assert.equal(g.value.points.length, 4);
  // 16 s sits log10(16 / 2) of the one decade from 2 s to 20 s up; each halving drops by the same distance.
  assert.ok(Math.abs(g.value.points[0].y - (160 - 136 * Math.log10(16 / 2))) < 1e-9);
  assert.ok(Math.abs((g.value.points[1].y - g.value.points[0].y) - (g.value.points[2].y - g.value.points[1].y)) < 1e-9);
  assert.deepEqual(g.value.points.map((p) => p.gpus), [64, 128, 256, 512]);
});

test('below: memory per GPU from 0 with the capacity as a line; a count where nothing fits is listed apart', () => {
  const rows = [{ gpus: 64, considered: 5, fitting: 0, best: null }, row(128, 8, 60), row(256, 4, 40)];
  const g = planChartGeometry(counts, rows, step, 80 * 2 ** 30, gib);
  assert.deepEqual(g.memory.yTicks.map((t) => t.value), [0, 20, 40, 60, 80]);
  assert.equal(g.memory.yTicks[0].y, 356);
  assert.equal(g.memory.capacityY, 220);  // 80 GiB: the top tick
  assert.deepEqual(g.memory.points.map((p) => p.y), [356 - 136 * 0.75, 356 - 136 * 0.5]);
  assert.deepEqual(g.none, [{ x: 64, gpus: 64 }]);
  assert.equal(g.value.points.length, 2);
});

test('a single value: a factor of two either side; serving throughput charted the same way', () => {
  const rows = [{ gpus: 8, considered: 4, fitting: 2, best: { decode_tokens_per_s_per_gpu: 300, total_bytes: 2 ** 36 } }];
  const g = planChartGeometry([8], rows, (b) => b.decode_tokens_per_s_per_gpu, 0, gib);
  assert.deepEqual(g.value.yTicks.map((t) => t.value), [100, 200, 500, 1000]);
  assert.deepEqual(g.memory.yTicks.map((t) => t.value), [0, 20, 40, 60, 80]);
});

test('ticks: 1-2-5 log ticks and linear ticks of 1, 2 or 5 × 10^k', () => {
  assert.deepEqual(logTicks(2.1, 40), [2, 5, 10, 20, 50]);
  assert.deepEqual(logTicks(0.013, 0.09), [0.01, 0.02, 0.05, 0.1]);
  assert.deepEqual(linearTicks(79.6), [0, 20, 40, 60, 80]);
  assert.deepEqual(linearTicks(141), [0, 50, 100, 150]);
  assert.deepEqual(linearTicks(0.7), [0, 0.2, 0.4, 0.6, 0.8]);
});
