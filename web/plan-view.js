// memplan page — the Plan view: the core's layout planner run in a worker when asked, one GPU count at
// a time (mp.planSteps, core/src/search/plan.cpp plan_stream): after each count the core's ranking of
// the counts searched so far replaces the table, and its per-count row (by_gpus) joins the chart of the
// best time or throughput and memory per GPU against the GPU count (geometry: plan-chart.js); the last
// answer is mp.plan()'s. "apply" writes a layout's fields to the form (app.js applySuggestion). A form
// change or a new plan stops a running one. Every number is the core's.
import { $, el, svg } from './dom.js';
import { formatBytes, formatCount, formatTick, inUnit, unitLabel } from './format.js';
import { PANELS, PLAN_CHART, pathOf, planChartGeometry } from './plan-chart.js';

let current = null;  // {config, gpu, mode} of the last update
let stopRunning = null;  // while a plan runs: stops it (the worker client's cancel)

const seconds = (s) => (s >= 1 ? `${s.toFixed(2)} s` : `${(s * 1e3).toFixed(1)} ms`);

/** Remembers the page's configuration and GPU for the next plan; shows the batch field in training only. */
export function notePlanSetup(config, gpu) {
  const changed = !current || current.gpu !== gpu || JSON.stringify(current.config) !== JSON.stringify(config);
  current = { config, gpu, mode: config.mode || 'train' };
  $('plan-batch-box').hidden = current.mode !== 'train';
  if (changed && stopRunning) stopRunning('The form changed: the plan was stopped; press Plan for this setup.');
}

/** The fields a layout sets, as the apply button's data-field / data-value / data-also. */
function applyAttributes(l, mode) {
  const also = mode === 'train'
    ? { 'parallel.gpus': l.gpus, 'parallel.pp': l.pp, 'parallel.cp': l.cp, 'parallel.ep': l.ep, 'parallel.virtual_stages': l.virtual_stages,
      'parallel.zero_stage': l.zero_stage, 'parallel.sequence_parallel': l.tp > 1, 'train.recompute': l.recompute, 'train.micro_batch': l.micro_batch }
    : { 'parallel.gpus': l.tp * l.pp, 'parallel.pp': l.pp, 'infer.weight_dtype': l.weight_dtype, 'infer.kv_dtype': l.kv_dtype };
  return { type: 'button', 'data-field': 'parallel.tp', 'data-value': String(l.tp), 'data-also': JSON.stringify(also), 'aria-label': `Apply ${l.text}` };
}

const tokens = (v) => formatCount(Math.round(v));

/** The charted value of a best layout and its words: training its step time, serving its decode throughput. */
const charted = (train) => (train
  ? { of: (l) => l.step_s, text: (v) => seconds(v), axis: 'best step time (log scale)', name: 'step time' }
  : { of: (l) => l.decode_tokens_per_s_per_gpu, text: (v) => `${tokens(v)} tokens/s per GPU`, axis: 'best decode tokens/s per GPU (log scale)', name: 'decode throughput' });

/** The chart of the core's by_gpus rows: one point per GPU count with a fitting layout, in both panels. */
function renderChart(result, unit) {
  const train = result.mode === 'train';
  const metric = charted(train);
  const g = planChartGeometry(result.gpu_counts, result.by_gpus, metric.of, result.gpu_memory_bytes, (b) => inUnit(b, unit));
  $('plan-chart-box').hidden = !g;
  if (!g) return;
  const { width, left, right, height } = PLAN_CHART;
  const chart = $('plan-chart');
  const title = chart.querySelector('title');
  title.textContent = `The best layout's ${metric.name} and memory per GPU at each GPU count searched`;
  const nodes = [title];
  const panel = (name, ticks, format, label) => {
    const [t, b] = PANELS[name];
    for (const tk of ticks) {
      nodes.push(svg('line', { x1: left, x2: width - right, y1: tk.y, y2: tk.y, class: 'grid' }));
      nodes.push(svg('text', { x: left - 6, y: tk.y + 4, class: 'tick', 'text-anchor': 'end' }, format(tk.value)));
    }
    for (const tk of g.xTicks) nodes.push(svg('line', { x1: tk.x, x2: tk.x, y1: t, y2: b, class: 'grid' }));
    const middle = (t + b) / 2;
    nodes.push(svg('text', { x: 12, y: middle, class: 'axis', 'text-anchor': 'middle', transform: `rotate(-90 12 ${middle})` }, label));
  };
  panel('value', g.value.yTicks, (v) => (!train ? formatTick(v) : v >= 1 ? `${formatTick(v)} s` : `${formatTick(v * 1e3)} ms`), train ? 'step time' : 'tokens/s per GPU');
  panel('memory', g.memory.yTicks, formatTick, `${unitLabel(unit)} per GPU`);
  nodes.push(svg('text', { x: left, y: PANELS.value[0] - 10, class: 'axis panel-title' }, metric.axis));
  nodes.push(svg('text', { x: left, y: PANELS.memory[0] - 10, class: 'axis panel-title' }, 'its memory per GPU'));
  for (const tk of g.xTicks) {
    nodes.push(svg('text', { x: tk.x, y: PANELS.value[1] + 16, class: 'tick', 'text-anchor': 'middle' }, tk.label));
    nodes.push(svg('text', { x: tk.x, y: PANELS.memory[1] + 16, class: 'tick', 'text-anchor': 'middle' }, tk.label));
  }
  nodes.push(svg('text', { x: (left + width - right) / 2, y: height - 6, class: 'axis', 'text-anchor': 'middle' }, 'GPUs (log scale)'));
  if (g.memory.capacityY !== null)
    nodes.push(svg('line', { x1: left, x2: width - right, y1: g.memory.capacityY, y2: g.memory.capacityY, class: 'capacity-line' }));
  const byGpus = new Map(result.by_gpus.map((r) => [r.gpus, r]));
  nodes.push(svg('path', { d: pathOf(g.value.points), class: 'series s0 chosen', 'data-series': 'value' }));
  nodes.push(svg('path', { d: pathOf(g.memory.points), class: 'series s2', 'data-series': 'memory' }));
  const dot = (p, cls, text) => {
    const node = svg('circle', { cx: p.x, cy: p.y, r: 5, class: cls, tabindex: '0', role: 'img', 'aria-label': text, 'data-value': text, 'data-gpus': p.gpus });
    node.append(svg('title', {}, text));
    return node;
  };
  for (const p of g.value.points)
    nodes.push(dot(p, 'plan-point value-point', `${formatCount(p.gpus)} GPUs: ${metric.text(p.value)}, ${byGpus.get(p.gpus).best.text}`));
  for (const p of g.memory.points)
    nodes.push(dot(p, 'plan-point memory-point', `${formatCount(p.gpus)} GPUs: ${formatBytes(p.bytes, unit)} per GPU, ${byGpus.get(p.gpus).best.text}`));
  for (const n of g.none) {
    const text = `${formatCount(n.gpus)} GPUs: no layout fits`;
    const mark = svg('text', { x: n.x, y: PANELS.memory[1] - 6, class: 'tick no-fit', 'text-anchor': 'middle', 'aria-label': text }, '×');
    mark.append(svg('title', {}, text));
    nodes.push(mark);
  }
  chart.replaceChildren(...nodes);
  chart.dataset.points = String(g.value.points.length);
  const key = (cls, text) => {
    const item = el('span', null, { class: 'key' });
    item.append(el('span', null, { class: 'swatch ' + cls, 'aria-hidden': 'true' }), text);
    return item;
  };
  $('plan-chart-legend').replaceChildren(key('s0', metric.axis.replace(' (log scale)', '')), key('s2', 'its memory per GPU'),
    key('capacity-key', `GPU capacity ${formatBytes(result.gpu_memory_bytes, unit)}`));
  // The text alternative: the same rows as a table.
  const rows = result.by_gpus.map((r) => {
    const tr = el('tr', null, { 'data-gpus': String(r.gpus) });
    tr.append(el('td', formatCount(r.gpus), { class: 'num' }), el('td', formatCount(r.considered), { class: 'num' }),
      el('td', formatCount(r.fitting), { class: 'num' }), el('td', r.best ? r.best.text : 'no layout fits'),
      el('td', r.best ? metric.text(metric.of(r.best)) : '', { class: 'num' }),
      el('td', r.best ? formatBytes(r.best.total_bytes, unit) : '', { class: 'num' }));
    return tr;
  });
  $('plan-by-gpus-value').textContent = train ? 'Best step time' : 'Best decode throughput';
  $('plan-by-gpus').tBodies[0].replaceChildren(...rows);
  $('plan-by-gpus').hidden = !rows.length;
  labelCells($('plan-by-gpus'));
}

/** Names each cell of a table's rows by its column's heading (the stacked rows of a phone have no header row). */
function labelCells(table) {
  const names = [...table.tHead.rows[0].cells].map((th) => th.textContent);
  for (const tr of table.tBodies[0].rows) [...tr.cells].forEach((td, i) => { if (names[i]) td.dataset.label = names[i]; });
}

function render(result, unit) {
  const train = result.mode === 'train';
  const rows = result.top.map((l, i) => {
    const tr = el('tr', null, { 'data-rank': String(i + 1) });
    tr.append(el('td', String(i + 1), { class: 'num' }), el('td', formatCount(l.gpus), { class: 'num' }), el('td', l.text),
      el('td', train ? seconds(l.step_s) : `${seconds(l.decode_step_s)} a decode step`, { class: 'num' }),
      el('td', formatCount(Math.round(train ? l.tokens_per_s_per_gpu : l.decode_tokens_per_s_per_gpu)), { class: 'num' }),
      el('td', formatBytes(l.total_bytes, unit), { class: 'num' }),
      el('td', train ? `${l.bottleneck} (MFU ${(100 * l.mfu).toFixed(1)} %)` : 'HBM bandwidth'));
    const cell = el('td');
    cell.append(el('button', 'apply', applyAttributes(l, result.mode)));
    tr.append(cell);
    return tr;
  });
  $('plan-table').tBodies[0].replaceChildren(...rows);
  $('plan-table').hidden = !rows.length;
  labelCells($('plan-table'));
  $('plan-rejected').replaceChildren(...result.rejected.map((r) => el('li', `${formatCount(r.count)} × ${r.reason} (e.g. ${r.example})`)));
  $('plan-warnings').replaceChildren(...(result.warnings || []).map((w) => el('li', w.message)));
  const searched = result.by_gpus.map((r) => r.gpus);
  $('plan-status').textContent = (result.done ? '' : `Searching: ${formatCount(searched.length)} of ${formatCount(result.gpu_counts.length)} GPU counts so far (up to ${formatCount(searched[searched.length - 1])} GPUs); `) +
    `${formatCount(result.considered)} layouts tried, ${formatCount(result.fitting)} fit` +
    (result.empty_reason ? `; no layout: ${result.empty_reason}` : result.done ? '.' : '…');
  renderChart(result, unit);
}

/** The Plan view's own fields, by the request member the core names in its errors (plan.min_gpus, …). */
const PLAN_FIELDS = { 'plan.min_gpus': 'plan-min-gpus', 'plan.max_gpus': 'plan-max-gpus', 'plan.gpus': 'plan-min-gpus', 'plan.global_batch': 'plan-global-batch' };

/** The core's refusal in the form's words: a Plan field's error names its label and marks that field. */
function showErrors(errors) {
  const words = errors.map((e) => {
    const input = PLAN_FIELDS[e.field] ? $(PLAN_FIELDS[e.field]) : null;
    if (!input) return `${e.field}: ${e.message}`;
    input.setAttribute('aria-invalid', 'true');
    const label = input.closest('label').firstChild.textContent.trim();
    return `${label}: ${e.message.replace(/plan\.(min_gpus|max_gpus|global_batch)/g, (m) => labelOf(m) || m)}`;
  });
  $('plan-status').textContent = 'No plan: ' + words.join('; ');
  $('plan-warnings').replaceChildren();
}

function labelOf(field) {
  const input = PLAN_FIELDS[field] ? $(PLAN_FIELDS[field]) : null;
  return input ? input.closest('label').firstChild.textContent.trim() : null;
}

/**
 * Wires the Plan button: runPlan(request, onPartial) → Promise of {analysis: plan result} | {errors} |
 * {timedOut} | {superseded}, onPartial(answer) called with each partial answer; runPlan.cancel() stops it.
 * #plan-panel[data-stream] is "partial" while partial answers are shown and "done" with the last; the
 * performance measures memplan:plan-first-rows (the first rows drawn) and memplan:plan-all (the whole
 * plan drawn) start at the click.
 */
export function wirePlan(runPlan, unitOf) {
  const panel = $('plan-panel');
  let said = null;  // why a running plan was stopped, for its status line
  stopRunning = null;
  const stop = (why) => {
    said = why;
    if (runPlan.cancel) runPlan.cancel();
  };
  for (const id of Object.values(PLAN_FIELDS)) $(id).addEventListener('input', () => { if (stopRunning) stopRunning('The plan was stopped: a plan field changed; press Plan again.'); });
  $('plan-run').addEventListener('click', async () => {
    if (!current) return;
    const request = { config: current.config, gpu: current.gpu, min_gpus: Number($('plan-min-gpus').value),
      max_gpus: Number($('plan-max-gpus').value), top_n: 10 };
    if (current.mode === 'train') request.global_batch = Number($('plan-global-batch').value);
    for (const id of Object.values(PLAN_FIELDS)) $(id).removeAttribute('aria-invalid');
    $('plan-status').textContent = 'Planning…';
    panel.dataset.pending = '';
    delete panel.dataset.stream;
    panel.dataset.partials = '0';
    said = null;
    stopRunning = stop;
    const started = performance.now();
    let first = true;
    const unit = unitOf();
    const drawn = () => {
      if (!first) return;
      first = false;
      performance.measure('memplan:plan-first-rows', { start: started, end: performance.now() });
    };
    const outcome = await runPlan(request, (partial) => {
      render(partial, unit);
      drawn();
      panel.dataset.stream = 'partial';
      panel.dataset.partials = String(Number(panel.dataset.partials || 0) + 1);
    });
    if (outcome.superseded) {
      if (said) {
        $('plan-status').textContent = said;
        panel.dataset.stream = 'stopped';
        delete panel.dataset.pending;
        stopRunning = null;
      }
      return;  // else a newer plan runs, and its answers replace these
    }
    stopRunning = null;
    delete panel.dataset.pending;
    if (outcome.analysis) {
      render(outcome.analysis, unit);
      drawn();
      performance.measure('memplan:plan-all', { start: started, end: performance.now() });
      panel.dataset.stream = 'done';
    } else if (outcome.timedOut) $('plan-status').textContent = 'The plan was stopped after its time limit: narrow the GPU range (memplan plan computes any range).' +
      (panel.dataset.stream === 'partial' ? ' The rows above rank the GPU counts searched by then.' : '');
    else showErrors(outcome.errors);
    panel.dataset.planned = String(Number(panel.dataset.planned || 0) + 1);
  });
}
