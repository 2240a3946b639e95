// memplan page — draws the line chart (SVG) from the geometry of chart.js: training, per-GPU memory of
// the four ZeRO stages against the GPU count (analyze().sweep); inference, the per-GPU total (and KV
// cache) against the context length (analyze().context_sweep). The current configuration is marked;
// every point has its value on hover and keyboard focus (read out under the chart). No estimate of its own.
import { $, el, svg } from './dom.js';
import { CHART, GPU_TICKS, contextSeries, lineGeometry, pathData, sweepSeries, xValues } from './chart.js';
import { formatBytes, formatCount, formatTick, inUnit, unitLabel } from './format.js';
import { capacityBytes, neededBytes, usedValue } from './state.js';
import { chosenStage } from './analysis-views.js';

const seriesName = (train, key) => (train ? `ZeRO ${key}` : key === 'kv' ? 'KV cache' : 'per-GPU total');

export function renderChart(spec, analysis, config, unit) {
  const capacity = capacityBytes(analysis.estimate);
  const train = config.mode === 'train';
  // Inference holds no gradients or optimizer states, so the four ZeRO stages coincide and replicas do
  // not change the per-GPU memory: chart what grows instead, the context.
  const raw = (train ? sweepSeries(analysis.sweep) : contextSeries(analysis.context_sweep || []))
    .map((s) => ({ ...s, points: s.points.filter(([, b]) => b) }));  // lineGeometry leaves 0-byte points out too
  // The current setup at the figure its verdict decides on, as the sweep's points are (neededBytes).
  const est = analysis.estimate;
  const here = [Number(usedValue(est, train ? 'parallel.gpus' : 'infer.context_len')), neededBytes(est)];
  const ticks = train ? GPU_TICKS : xValues(raw);
  const inRange = here[0] >= ticks[0] && here[0] <= ticks[ticks.length - 1];
  const g = lineGeometry(inRange ? [...raw, { key: 'current', points: [here] }] : raw, ticks, capacity, (bytes) => inUnit(bytes, unit));
  const chart = $('chart');
  const title = chart.querySelector('title');
  title.textContent = train ? 'Per-GPU memory for ZeRO stages 0 to 3 against 1 to 1024 GPUs, with the GPU\'s capacity and this setup marked'
    : 'Per-GPU total and KV cache against the context length at the chosen batch, with the GPU\'s capacity and this setup marked';
  $('chart-heading').textContent = train ? 'Per-GPU memory against the number of GPUs' : 'Per-GPU memory against the context length';
  const nodes = [title];
  const xLabel = (x) => (train ? `${formatCount(x)} GPUs` : `${formatCount(x)} tokens`);
  if (g) {
    const { width, height, left, right, top, bottom } = CHART;
    for (const t of g.yTicks) {
      nodes.push(svg('line', { x1: left, x2: width - right, y1: t.y, y2: t.y, class: 'grid' }));
      nodes.push(svg('text', { x: left - 6, y: t.y + 4, class: 'tick', 'text-anchor': 'end' }, formatTick(t.value)));
    }
    for (const t of g.xTicks) {
      nodes.push(svg('line', { x1: t.x, x2: t.x, y1: top, y2: height - bottom, class: 'grid' }));
      nodes.push(svg('text', { x: t.x, y: height - bottom + 16, class: 'tick', 'text-anchor': 'middle' }, t.label));
    }
    const middleY = (top + height - bottom) / 2;
    nodes.push(svg('text', { x: (left + width - right) / 2, y: height - 4, class: 'axis', 'text-anchor': 'middle' }, train ? 'GPUs (log scale)' : 'context length in tokens (log scale)'));
    nodes.push(svg('text', { x: 12, y: middleY, class: 'axis', 'text-anchor': 'middle', transform: `rotate(-90 12 ${middleY})` }, `${unitLabel(unit)} per GPU (log scale)`));
    if (g.capacityY !== null)
      nodes.push(svg('line', { x1: left, x2: width - right, y1: g.capacityY, y2: g.capacityY, class: 'capacity-line' }));
    const current = train ? chosenStage(analysis) : null;
    const dots = [];
    const labels = [];
    g.series.forEach((s, i) => {
      if (!s.points.length || s.key === 'current') return;
      if (train) nodes.push(svg('path', { d: pathData(s.points), class: 'series s' + s.key + (current === s.key ? ' chosen' : ''), 'data-stage': s.key }));
      else nodes.push(svg('path', { d: pathData(s.points), class: 'series ' + (s.key === 'kv' ? 'kv' : 's0 chosen'), 'data-series': s.key }));
      const [lx, ly] = s.points[s.points.length - 1];
      labels.push({ x: lx - 4, y: ly - 6, text: seriesName(train, s.key) });
      s.points.forEach(([px, py], j) => {
        const [x, bytes] = raw[i].points[j];
        const text = `${seriesName(train, s.key)}, ${xLabel(x)}: ${formatBytes(bytes, unit)} per GPU`;
        const dot = svg('circle', { cx: px, cy: py, r: 6, class: 'point', tabindex: '0', role: 'img', 'aria-label': text, 'data-value': text });
        dot.append(svg('title', {}, text));
        dots.push(dot);
      });
    });
    // Line labels at their right ends, pushed apart so that close lines keep readable names (12 units apart).
    labels.sort((a, b) => a.y - b.y);
    labels.forEach((l, i) => {
      if (i && l.y < labels[i - 1].y + 12) l.y = labels[i - 1].y + 12;
      nodes.push(svg('text', { x: l.x, y: l.y, class: 'series-label', 'text-anchor': 'end' }, l.text));
    });
    const mark = g.series.find((s) => s.key === 'current');
    if (mark && mark.points.length) {
      const [px, py] = mark.points[0];
      const text = `This setup, ${xLabel(here[0])}: ${formatBytes(here[1], unit)} per GPU`;
      const node = svg('circle', { cx: px, cy: py, r: 7, class: 'current-mark', tabindex: '0', role: 'img', 'aria-label': text, 'data-value': text });
      node.append(svg('title', {}, text));
      nodes.push(svg('line', { x1: px, x2: px, y1: top, y2: height - bottom, class: 'current-line' }), node);
    }
    nodes.push(...dots);
  } else if (!train) {
    nodes.push(svg('text', { x: CHART.width / 2, y: CHART.height / 2, class: 'axis', 'text-anchor': 'middle' }, 'The core reported no context sweep for this configuration.'));
  }
  chart.replaceChildren(...nodes);
  $('chart-readout').textContent = 'Hover or focus a point for its value.';
  const key = (cls, text) => {
    const item = el('span', null, { class: 'key' });
    item.append(el('span', null, { class: 'swatch ' + cls, 'aria-hidden': 'true' }), text);
    return item;
  };
  const legend = train ? [0, 1, 2, 3].map((s) => key('s' + s, `ZeRO ${s}`))
    : [key('s0', `per-GPU total at batch ${formatCount(usedValue(analysis.estimate, 'infer.batch'))}`),
      ...(raw.some((s) => s.key === 'kv') ? [key('kv', 'KV cache')] : [])];
  if (capacity) legend.push(key('capacity-key', `GPU capacity ${formatBytes(capacity, unit)}`));
  legend.push(key('current-key', 'this setup'));
  $('chart-legend').replaceChildren(...legend);
}

/** Hover and focus on a point show its value under the chart. */
export function wireChartReadout() {
  const show = (event) => {
    const value = event.target.getAttribute && event.target.getAttribute('data-value');
    if (value) $('chart-readout').textContent = value;
  };
  $('chart').addEventListener('mouseover', show);
  $('chart').addEventListener('focusin', show);
}
