// memplan page — DOM wiring: reads the form into the page state, asks the core (memplan.js) for the
// analysis and renders it with textContent / replaceChildren. Every number shown comes from the core.
import { load } from './memplan.js';
import { GPU_PRESETS, MODEL_PRESETS } from './presets.js';
import { CHOICES, buildConfig, decodeState, defaultState, encodeState, modelPresetFields } from './state.js';
import { formatBytes, formatCount, formatExactBytes, formatParams, formatPercent } from './format.js';
import { ROWS, explain } from './explain.js';
import { CHART, chartGeometry, pathData } from './chart.js';

const $ = (id) => document.getElementById(id);
const form = $('form');
const SVG = 'http://www.w3.org/2000/svg';
const embed = new URLSearchParams(location.search).get('embed') === '1' ||
  new URLSearchParams(location.hash.slice(1)).get('embed') === '1';

/** Creates an element with text and attributes. */
function el(tag, text, attrs = {}) {
  const node = document.createElement(tag);
  if (text !== undefined && text !== null) node.textContent = text;
  for (const [k, v] of Object.entries(attrs)) node.setAttribute(k, v);
  return node;
}
function svg(tag, attrs = {}, text) {
  const node = document.createElementNS(SVG, tag);
  for (const [k, v] of Object.entries(attrs)) node.setAttribute(k, String(v));
  if (text !== undefined) node.textContent = text;
  return node;
}

// ---------------------------------------------------------------------------------------------
// Form <-> state

function fillOptions() {
  $('model-preset').replaceChildren(...MODEL_PRESETS.map((p) => el('option', p.label, { value: p.id })),
    el('option', 'custom', { value: 'custom' }));
  $('gpu-preset').replaceChildren(...GPU_PRESETS.map((p) => el('option', p.label, { value: p.id })),
    el('option', 'custom size', { value: 'custom' }));
  for (const select of form.querySelectorAll('select.dtype'))
    select.replaceChildren(...CHOICES['train.weight_dtype'].map((d) => el('option', d, { value: d })));
}

function writeForm(state) {
  for (const input of form.elements) {
    if (!input.name || !(input.name in state)) continue;
    const value = state[input.name];
    if (input.type === 'checkbox') input.checked = value === true;
    else if (input.type === 'radio') input.checked = input.value === value;
    else input.value = value;
  }
}

function readForm() {
  const state = defaultState();
  for (const input of form.elements) {
    if (!input.name || !(input.name in state)) continue;
    if (input.type === 'checkbox') state[input.name] = input.checked;
    else if (input.type === 'radio') { if (input.checked) state[input.name] = input.value; }
    else state[input.name] = input.value.trim();
  }
  return state;
}

function showModeAndGpu(state) {
  document.body.dataset.mode = state.mode;
  $('custom-gpu').hidden = state['gpu.preset'] !== 'custom';
}

// ---------------------------------------------------------------------------------------------
// Rendering

/** Form field that an error names (the core speaks of bytes where the form asks for GB). */
const FIELD_INPUT = { 'gpu.memory_bytes': 'gpu.custom_gb', 'overhead.misc_bytes': 'overhead.misc_gb' };

function showErrors(errors) {
  for (const input of form.querySelectorAll('[aria-invalid]')) input.removeAttribute('aria-invalid');
  const box = $('errors');
  box.hidden = errors.length === 0;
  if (!errors.length) return box.replaceChildren();
  const list = el('ul');
  for (const e of errors) {
    list.append(el('li', `${e.field}: ${e.message}`));
    const input = form.elements.namedItem(FIELD_INPUT[e.field] || e.field);
    if (input && input.setAttribute) input.setAttribute('aria-invalid', 'true');
  }
  box.replaceChildren(el('strong', 'Cannot compute:'), list);
  $('output').classList.add('stale');
}

function renderVerdict(result, unit) {
  const total = result.per_gpu.total;
  const out = $('verdict');
  if (!result.gpu) {
    out.className = 'verdict';
    out.textContent = `${formatBytes(total, unit)} per GPU (no GPU capacity given)`;
    return;
  }
  const capacity = total + result.gpu.headroom_bytes - result.gpu.shortfall_bytes;
  out.className = 'verdict ' + (result.gpu.fits ? 'fits' : 'no-fit');
  out.textContent = result.gpu.fits
    ? `Fits: ${formatBytes(total, unit)} of ${formatBytes(capacity, unit)} per GPU, ${formatBytes(result.gpu.headroom_bytes, unit)} headroom.`
    : `Does not fit: ${formatBytes(total, unit)} per GPU needs ${formatBytes(result.gpu.shortfall_bytes, unit)} more than the GPU's ${formatBytes(capacity, unit)}.`;
  out.dataset.fits = String(result.gpu.fits);
}

function renderBreakdown(result, unit) {
  const b = result.per_gpu;
  const rows = [];
  const segments = [];
  const capacity = result.gpu ? b.total + result.gpu.headroom_bytes - result.gpu.shortfall_bytes : 0;
  const scale = Math.max(b.total, capacity) || 1;
  for (const [key, label] of ROWS) {
    if (b[key] === 0 && key !== 'weights') continue;
    rows.push(row(key, label, b[key], b.total, unit));
    const seg = el('span', null, { class: 'seg seg-' + key, title: `${label}: ${formatBytes(b[key], unit)}` });
    seg.style.width = (100 * b[key] / scale) + '%';
    segments.push(seg);
  }
  const totalRow = row('total', 'Total', b.total, b.total, unit);
  totalRow.classList.add('total');
  rows.push(totalRow);
  $('breakdown').tBodies[0].replaceChildren(...rows);
  const bar = $('bar');
  if (capacity) {
    const mark = el('span', null, { class: 'capacity', title: `GPU capacity ${formatBytes(capacity, unit)}` });
    mark.style.left = Math.min(100, 100 * capacity / scale) + '%';
    segments.push(mark);
  }
  bar.replaceChildren(...segments);
  bar.setAttribute('aria-label', `Stacked bar of the parts, total ${formatBytes(b.total, unit)}` +
    (capacity ? `, GPU capacity ${formatBytes(capacity, unit)}` : ''));
}

function row(key, label, bytes, total, unit) {
  const tr = el('tr', null, { 'data-row': key });
  const name = el('th', null, { scope: 'row' });
  name.append(el('span', null, { class: 'swatch seg-' + key, 'aria-hidden': 'true' }), label);
  const how = explain(key);
  const details = el('details');
  details.append(el('summary', 'how this is computed'), el('p', how.formula), el('p', 'Source: ' + how.source, { class: 'source' }));
  tr.append(name, el('td', formatBytes(bytes, unit), { class: 'num', title: formatExactBytes(bytes) }),
    el('td', total ? formatPercent(bytes / total) : '', { class: 'num' }), el('td', null, { class: 'how' }));
  tr.lastChild.append(details);
  return tr;
}

function renderZero(analysis, state, unit) {
  const section = $('zero-section');
  section.hidden = state.mode !== 'train';
  const current = Number(state['parallel.zero_stage']);
  const head = el('tr');
  head.append(el('th', 'Stage', { scope: 'col' }), ...analysis.stages.map((s) =>
    el('th', `ZeRO ${s.stage}` + (s.stage === current ? ' (chosen)' : ''), { scope: 'col', class: s.stage === current ? 'num current' : 'num' })));
  const line = (label, cell) => {
    const tr = el('tr');
    tr.append(el('th', label, { scope: 'row' }), ...analysis.stages.map((s) => {
      const td = el('td', cell(s), { class: s.stage === current ? 'num current' : 'num' });
      return td;
    }));
    return tr;
  };
  const yesNo = (v) => (v === null ? '—' : v ? 'fits' : 'does not fit');
  const params = (v) => (v === null ? '—' : v === 0 ? 'none' : formatParams(v));
  $('zero').tHead.replaceChildren(head);
  $('zero').tBodies[0].replaceChildren(
    line('Per-GPU total', (s) => (s.total === null ? '—' : formatBytes(s.total, unit))),
    line('Fits the GPU', (s) => yesNo(s.fits)),
    line('Largest model, model states only (ZeRO paper, 16 B/param)', (s) => params(s.model_states_max_params)),
    line('Largest model.params that fits, this configuration', (s) => params(s.max_params)),
    line('Fewest GPUs that fit', (s) => (analysis.estimate.gpu ? (s.fewest_gpus === null ? 'never (≤ 2^20 GPUs)' : formatCount(s.fewest_gpus)) : '—')),
  );
}

const FIELD_LABEL = {
  'parallel.zero_stage': 'ZeRO stage', 'train.recompute': 'Recompute', 'train.flash_attention': 'FlashAttention',
  'parallel.sequence_parallel': 'Sequence parallel', 'train.micro_batch': 'Micro-batch', 'parallel.gpus': 'GPUs',
  'parallel.tp': 'Tensor parallel',
};

function renderSuggestions(analysis, unit) {
  const fits = analysis.estimate.gpu && analysis.estimate.gpu.fits;
  $('suggestions-title').textContent = fits ? 'What would save memory' : 'What would make it fit';
  const items = analysis.suggestions.map((s) => {
    const li = el('li');
    const label = `${FIELD_LABEL[s.field] || s.field}: ${s.from} → ${s.to}`;
    const verdict = s.fits === null ? '' : s.fits ? ' — fits' : ' — still does not fit';
    li.append(el('strong', label), ` saves ${formatBytes(s.saving_bytes, unit)}, ${formatBytes(s.total, unit)} per GPU${verdict} `);
    const apply = el('button', 'apply', { type: 'button', 'data-field': s.field, 'data-value': String(s.to) });
    li.append(apply);
    if (s.fits) li.classList.add('fits');
    return li;
  });
  if (!items.length) items.push(el('li', 'No single change among ZeRO stage, recompute, FlashAttention, sequence parallel, micro-batch 1, twice the GPUs or twice the tensor parallelism lowers the total.'));
  $('suggestions').replaceChildren(...items);
}

function renderChart(analysis, state, unit) {
  const capacity = analysis.estimate.gpu ? analysis.estimate.per_gpu.total + analysis.estimate.gpu.headroom_bytes - analysis.estimate.gpu.shortfall_bytes : 0;
  const divisor = unit === 'GB' ? 1e9 : 2 ** 30;
  const g = chartGeometry(analysis.sweep, capacity, divisor);
  const chart = $('chart');
  const title = chart.querySelector('title');
  const nodes = [title];
  if (g) {
    const { width, height, left, right, top, bottom } = CHART;
    for (const t of g.yTicks) {
      nodes.push(svg('line', { x1: left, x2: width - right, y1: t.y, y2: t.y, class: 'grid' }));
      nodes.push(svg('text', { x: left - 6, y: t.y + 4, class: 'tick', 'text-anchor': 'end' }, formatCount(t.value)));
    }
    for (const t of g.xTicks) {
      nodes.push(svg('line', { x1: t.x, x2: t.x, y1: top, y2: height - bottom, class: 'grid' }));
      nodes.push(svg('text', { x: t.x, y: height - bottom + 16, class: 'tick', 'text-anchor': 'middle' }, t.label));
    }
    nodes.push(svg('text', { x: (left + width - right) / 2, y: height - 4, class: 'axis', 'text-anchor': 'middle' }, 'GPUs (log scale)'));
    nodes.push(svg('text', { x: 12, y: (top + height - bottom) / 2, class: 'axis', 'text-anchor': 'middle', transform: `rotate(-90 12 ${(top + height - bottom) / 2})` }, `${unit} per GPU (log scale)`));
    if (g.capacityY !== null)
      nodes.push(svg('line', { x1: left, x2: width - right, y1: g.capacityY, y2: g.capacityY, class: 'capacity-line' }));
    for (const s of g.series) {
      if (!s.points.length) continue;
      const cls = 'series s' + s.stage + (state.mode === 'train' && Number(state['parallel.zero_stage']) === s.stage ? ' chosen' : '');
      nodes.push(svg('path', { d: pathData(s.points), class: cls, 'data-stage': s.stage }));
    }
  }
  chart.replaceChildren(...nodes);
  const legend = [0, 1, 2, 3].map((s) => {
    const item = el('span', null, { class: 'key' });
    item.append(el('span', null, { class: 'swatch s' + s, 'aria-hidden': 'true' }), `ZeRO ${s}`);
    return item;
  });
  if (capacity) {
    const item = el('span', null, { class: 'key' });
    item.append(el('span', null, { class: 'swatch capacity-key', 'aria-hidden': 'true' }), `GPU capacity ${formatBytes(capacity, unit)}`);
    legend.push(item);
  }
  $('chart-legend').replaceChildren(...legend);
}

function renderWarnings(result) {
  $('warnings').replaceChildren(...result.warnings.map((w) => el('li', `${w.field}: ${w.message}`)));
}

// ---------------------------------------------------------------------------------------------
// Compute loop

let mp = null;

function update() {
  const state = readForm();
  showModeAndGpu(state);
  history.replaceState(null, '', location.pathname + location.search + encodeState(state));
  $('share').href = location.href;
  if (!mp) return;
  const { config, errors } = buildConfig(state);
  if (errors.length) return showErrors(errors);
  let analysis;
  try {
    analysis = mp.analyze(config);
  } catch (error) {
    return showErrors(error.errors || [{ field: 'config', message: String(error.message) }]);
  }
  showErrors([]);
  const unit = state.unit;
  renderVerdict(analysis.estimate, unit);
  renderWarnings(analysis.estimate);
  renderBreakdown(analysis.estimate, unit);
  if (!embed) {
    renderZero(analysis, state, unit);
    renderSuggestions(analysis, unit);
    renderChart(analysis, state, unit);
  }
  $('output').classList.remove('stale');
  $('output').hidden = false;
  $('loading').hidden = true;
  // For scripts/measure-budgets.mjs: time from navigation to the first rendered result.
  if (!performance.getEntriesByName('memplan:first-result').length) performance.mark('memplan:first-result');
}

let timer = 0;
function scheduleUpdate() {
  clearTimeout(timer);
  timer = setTimeout(update, 60);
}

function onInput(event) {
  const name = event.target.name;
  if (name === 'model.preset') {
    writeForm(modelPresetFields(event.target.value));
  } else if (name && name.startsWith('model.')) {
    form.elements.namedItem('model.preset').value = 'custom';
  }
  if (event.type === 'change' && event.target.type !== 'text') update();
  else scheduleUpdate();
}

function applySuggestion(event) {
  const button = event.target.closest('button[data-field]');
  if (!button) return;
  const input = form.elements.namedItem(button.dataset.field);
  if (!input) return;
  if (input.type === 'checkbox') input.checked = button.dataset.value === 'true';
  else input.value = button.dataset.value;
  update();
}

function applyTheme(value) {
  if (value === 'auto') delete document.documentElement.dataset.theme;
  else document.documentElement.dataset.theme = value;
}

function start() {
  if (embed) document.body.classList.add('embed');
  fillOptions();
  const { state, rejected } = decodeState(location.hash);
  if (rejected.length) {
    const notice = $('notice');
    notice.textContent = `Some settings in the link were not understood and were replaced by defaults: ${rejected.join(', ')}.`;
    notice.hidden = false;
  }
  writeForm(state);
  showModeAndGpu(state);
  form.addEventListener('input', onInput);
  form.addEventListener('change', onInput);
  form.addEventListener('submit', (e) => e.preventDefault());
  $('suggestions').addEventListener('click', applySuggestion);
  $('theme').addEventListener('change', (e) => applyTheme(e.target.value));
  load().then((api) => {
    mp = api;
    update();
  }, (error) => {
    $('loading').textContent = 'The calculator could not be loaded: ' + error.message;
  });
}

start();
