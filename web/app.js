// memplan page — DOM wiring: reads the form into the page state, asks the core (memplan.js) for the
// analysis and renders it with textContent / replaceChildren. Every number shown comes from the core.
import { load } from './memplan.js';
import { GPU_PRESETS, MODEL_DEFAULTS } from './presets.js';
import { CHOICES, buildConfig, chosenStage, decodeState, defaultState, encodeState, modelFields, parseHfConfig,
  searchPresets } from './state.js';
import { formatBytes, formatCount, formatExactBytes, formatParams, formatPercent } from './format.js';
import { ROWS, explain } from './explain.js';
import { CHART, CONTEXT_TICKS, GPU_TICKS, lineGeometry, pathData, sweepSeries } from './chart.js';

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

// Model presets come from the core (mp.presets(), core/data/models.json); their fields are the
// explicit model keys the core resolves them to, so a preset and its fields give the same numbers.
let presets = [];
const presetCache = new Map();
function presetFields(id) {
  if (!presetCache.has(id)) {
    let fields = null;
    if (presets.some((p) => p.id === id)) {
      try { fields = modelFields(mp.resolveModel({ model: { preset: id } }).model); } catch { fields = null; }
    }
    presetCache.set(id, fields);
  }
  return presetCache.get(id);
}

function presetOption(p) {
  const count = p.published_params ? ` — ${formatParams(p.published_params).split(' ')[0]}` : '';
  return el('option', p.name + count, { value: p.id });
}

/** Fills the preset list with the presets matching the search text (the chosen one stays listed). */
function filterPresets() {
  const select = $('model-preset');
  const chosen = select.value;
  const matches = searchPresets(presets, $('preset-search').value);
  const options = [el('option', matches.length ? 'custom / pasted' : 'no preset matches', { value: '' }), ...matches.map(presetOption)];
  if (chosen && !matches.some((p) => p.id === chosen)) {
    const p = presets.find((q) => q.id === chosen);
    if (p) options.push(presetOption(p));
  }
  select.replaceChildren(...options);
  select.value = chosen;
}

function fillOptions() {
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
  const zero = form.elements.namedItem('parallel.zero_stage');
  zero.disabled = state['parallel.fsdp'] !== '';
  const preset = presets.find((p) => p.id === state['model.preset']);
  const fields = preset ? presetFields(preset.id) : null;
  const edited = fields ? Object.keys(MODEL_DEFAULTS).filter((k) => state[k] !== fields[k]) : [];
  $('preset-source').textContent = preset
    ? `${preset.name}: ${preset.source}` + (edited.length ? ` — edited: ${edited.map((k) => k.slice(6)).join(', ')}` : '')
    : '';
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

function renderBreakdown(result, unit, mode) {
  const b = result.per_gpu;
  const rows = [];
  const segments = [];
  const capacity = result.gpu ? b.total + result.gpu.headroom_bytes - result.gpu.shortfall_bytes : 0;
  const scale = Math.max(b.total, capacity) || 1;
  for (const [key, label] of ROWS) {
    const tr = row(key, label, b[key], b.total, unit, mode);
    if (b[key] === 0) tr.classList.add('zero');
    rows.push(tr);
    if (b[key] === 0) continue;
    const seg = el('span', null, { class: 'seg seg-' + key, title: `${label}: ${formatBytes(b[key], unit)}` });
    seg.style.width = (100 * b[key] / scale) + '%';
    segments.push(seg);
  }
  const totalRow = row('total', 'Total', b.total, b.total, unit, mode);
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

function row(key, label, bytes, total, unit, mode) {
  const tr = el('tr', null, { 'data-row': key });
  const name = el('th', null, { scope: 'row' });
  name.append(el('span', null, { class: 'swatch seg-' + key, 'aria-hidden': 'true' }), label);
  const how = explain(key, mode);
  const details = el('details');
  details.append(el('summary', 'formula and source'), el('p', how.formula), el('p', 'Source: ' + how.source, { class: 'source' }));
  tr.append(name, el('td', formatBytes(bytes, unit), { class: 'num', title: formatExactBytes(bytes) }),
    el('td', total ? formatPercent(bytes / total) : '', { class: 'num' }), el('td', null, { class: 'how' }));
  tr.lastChild.append(details);
  return tr;
}

/** Which stage is reported and why, parameter counts, offload host memory, KV bytes per token. */
function renderDetails(result, config, unit) {
  const d = result.details;
  const pp = config.parallel.pp || 1;
  const items = [];
  const add = (term, value, key) => items.push(el('dt', term), el('dd', value, { 'data-detail': key }));
  const why = pp === 1 ? 'no pipeline parallelism: one stage holds every layer'
    : d.stage === 0 ? 'the first stage holds embeddings and the most micro-batches in flight'
      : d.stage === pp - 1 ? 'the last stage holds the output layer and the logits, which outweigh the first stage\'s activations'
        : 'this stage holds the most';
  add('Pipeline stage reported', `${formatCount(d.stage)} of 0…${formatCount(pp - 1)} (the most loaded: ${why})`, 'stage');
  add('Layers on this GPU', formatCount(d.layers_on_gpu), 'layers_on_gpu');
  add('Parameters', formatParams(result.params), 'params');
  if (d.params_active !== result.params) add('Active per token (MoE)', formatParams(d.params_active), 'params_active');
  add('Parameters on this GPU (its tp/ep slice of the stage, before ZeRO)', formatParams(d.params_on_gpu), 'params_on_gpu');
  add('Data-parallel degree', formatCount(result.data_parallel), 'data_parallel');
  if (config.mode === 'train') {
    add('Micro-batches in flight', formatCount(d.microbatches_in_flight), 'microbatches_in_flight');
    add('One layer\'s activations, one micro-batch', formatBytes(d.layer_activation_bytes, unit), 'layer_activation_bytes');
  } else {
    add('KV cache per token of one sequence, this GPU', formatExactBytes(d.kv_cache_bytes_per_token), 'kv_cache_bytes_per_token');
    add('Quantization overhead (scales and zero points, in weights)', formatBytes(d.quantization_overhead_bytes, unit) +
      ` (${formatExactBytes(d.quantization_overhead_bytes)})`, 'quantization_overhead_bytes');
  }
  if (d.host_bytes_per_node) add('Host RAM per node for offloaded states', formatBytes(d.host_bytes_per_node, unit), 'host_bytes_per_node');
  if (d.nvme_bytes_per_node) add('NVMe per node for offloaded states', formatBytes(d.nvme_bytes_per_node, unit), 'nvme_bytes_per_node');
  $('details').replaceChildren(...items);
  const table = $('layer-activations');
  table.hidden = !d.layer_activations.length;
  table.tBodies[0].replaceChildren(...d.layer_activations.map((t) => {
    const tr = el('tr');
    tr.append(el('td', t.name, { class: 'mono' }), el('td', formatBytes(t.bytes, unit), { class: 'num', title: formatExactBytes(t.bytes) }), el('td', t.note));
    return tr;
  }));
}

/** The inverse queries: largest workload, largest model and fewest GPUs that fit. */
function renderLimits(analysis, state, config, unit) {
  const items = [];
  const add = (label, value, key) => {
    const li = el('li', null, { 'data-limit': key });
    li.append(el('span', label + ': '), el('strong', value));
    items.push(li);
  };
  if (!analysis.estimate.gpu) {
    $('limits').replaceChildren(el('li', 'Give a GPU size to see what fits.'));
    return;
  }
  const none = 'none — even 1 does not fit';
  const count = (v, what) => (v === null ? none : formatCount(v) + what);
  const l = analysis.limits;
  if (state.mode === 'train') {
    add(`Largest micro-batch at ${formatCount(config.train.seq_len ?? 2048)} tokens`, count(l.max_micro_batch, ''), 'max_micro_batch');
    add(`Longest sequence at micro-batch ${formatCount(config.train.micro_batch ?? 1)}`, count(l.max_seq_len, ' tokens'), 'max_seq_len');
  } else {
    add(`Largest batch at ${formatCount(config.infer.context_len ?? 2048)} tokens of context`, count(l.max_batch, ' sequences'), 'max_batch');
    add(`Longest context at batch ${formatCount(config.infer.batch ?? 1)}`, count(l.max_context_len, ' tokens'), 'max_context_len');
  }
  const s = analysis.stages[state.mode === 'train' ? chosenStage(state) : 0];
  add('Largest model that fits (this configuration, model.params varied)', s.max_params ? formatParams(s.max_params) : 'none', 'max_params');
  add('Fewest GPUs that fit', s.fewest_gpus === null ? 'none up to 2^20 GPUs' : formatCount(s.fewest_gpus), 'fewest_gpus');
  $('limits').replaceChildren(...items);
  void unit;
}

/** Parameter count and KV cache of the model alone, next to its inputs. */
function renderModelSummary(result, config, state, unit) {
  const out = $('model-summary');
  const parts = [`${formatParams(result.params)} parameters`];
  if (result.details.params_active !== result.params) parts.push(`${formatParams(result.details.params_active)} active per token`);
  out.dataset.params = String(result.params);
  out.dataset.paramsActive = String(result.details.params_active);
  delete out.dataset.kvBytes;
  // The KV cache of one replica on one GPU at the inference settings (batch, context, KV dtype).
  try {
    const infer = { ...config.infer };
    if (config.mode !== 'infer') {
      for (const key of ['batch', 'context_len', 'kv_dtype']) {
        const value = state['infer.' + key];
        if (value !== '') infer[key] = key === 'kv_dtype' ? value : Number(value);
      }
    }
    delete infer.prefill_tokens;
    const kv = mp.estimate({ mode: 'infer', model: config.model, infer });
    const batch = infer.batch ?? 1, context = infer.context_len ?? 2048, dtype = infer.kv_dtype ?? 'bf16';
    parts.push(`KV cache ${formatBytes(kv.per_gpu.kv_cache, unit)} for ${formatCount(batch)} × ${formatCount(context)} tokens in ${dtype} ` +
      `(${formatCount(kv.details.kv_cache_bytes_per_token)} bytes per token, unsharded)`);
    out.dataset.kvBytes = String(kv.per_gpu.kv_cache);
  } catch { /* the inference settings are invalid: their error shows in inference mode */ }
  out.textContent = parts.join(' · ');
}

function renderZero(analysis, state, unit) {
  const section = $('zero-section');
  section.hidden = state.mode !== 'train';
  const current = chosenStage(state);
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

/** Inference: per-GPU total and KV cache against the context length at the chosen batch (estimate() per point). */
function contextSeries(config) {
  const total = [], kv = [];
  for (const context of CONTEXT_TICKS) {
    const infer = { ...config.infer, context_len: context };
    if (infer.prefill_tokens > context) infer.prefill_tokens = context;
    try {
      const r = mp.estimate({ ...config, infer });
      total.push([context, r.per_gpu.total]);
      kv.push([context, r.per_gpu.kv_cache]);
    } catch { /* beyond the core's range: no point */ }
  }
  return [{ key: 'total', points: total }, { key: 'kv', points: kv }];
}

function renderChart(analysis, state, config, unit) {
  const capacity = analysis.estimate.gpu ? analysis.estimate.per_gpu.total + analysis.estimate.gpu.headroom_bytes - analysis.estimate.gpu.shortfall_bytes : 0;
  const divisor = unit === 'GB' ? 1e9 : 2 ** 30;
  const train = state.mode === 'train';
  // Inference holds no gradients or optimizer states, so the four ZeRO stages coincide and replicas do
  // not change the per-GPU memory: chart what grows instead, the context.
  const series = train ? sweepSeries(analysis.sweep) : contextSeries(config);
  const g = lineGeometry(series, train ? GPU_TICKS : CONTEXT_TICKS, capacity, divisor);
  const chart = $('chart');
  const title = chart.querySelector('title');
  title.textContent = train ? 'Per-GPU memory for ZeRO stages 0 to 3 against 1 to 1024 GPUs, with the GPU\'s capacity'
    : 'Per-GPU total and KV cache against the context length at the chosen batch, with the GPU\'s capacity';
  $('chart-heading').textContent = train ? 'Per-GPU memory against the number of GPUs' : 'Per-GPU memory against the context length';
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
    nodes.push(svg('text', { x: (left + width - right) / 2, y: height - 4, class: 'axis', 'text-anchor': 'middle' }, train ? 'GPUs (log scale)' : 'context length in tokens (log scale)'));
    nodes.push(svg('text', { x: 12, y: (top + height - bottom) / 2, class: 'axis', 'text-anchor': 'middle', transform: `rotate(-90 12 ${(top + height - bottom) / 2})` }, `${unit} per GPU (log scale)`));
    if (g.capacityY !== null)
      nodes.push(svg('line', { x1: left, x2: width - right, y1: g.capacityY, y2: g.capacityY, class: 'capacity-line' }));
    for (const s of g.series) {
      if (!s.points.length) continue;
      if (train) {
        const cls = 'series s' + s.key + (chosenStage(state) === s.key ? ' chosen' : '');
        nodes.push(svg('path', { d: pathData(s.points), class: cls, 'data-stage': s.key }));
      } else {
        nodes.push(svg('path', { d: pathData(s.points), class: 'series ' + (s.key === 'kv' ? 'kv' : 's0 chosen'), 'data-series': s.key }));
      }
    }
  }
  chart.replaceChildren(...nodes);
  const key = (cls, text) => {
    const item = el('span', null, { class: 'key' });
    item.append(el('span', null, { class: 'swatch ' + cls, 'aria-hidden': 'true' }), text);
    return item;
  };
  const legend = train ? [0, 1, 2, 3].map((s) => key('s' + s, `ZeRO ${s}`))
    : [key('s0', `per-GPU total at batch ${formatCount(config.infer.batch ?? 1)}`), key('kv', 'KV cache')];
  if (capacity) legend.push(key('capacity-key', `GPU capacity ${formatBytes(capacity, unit)}`));
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
  history.replaceState(null, '', location.pathname + location.search + encodeState(state, presetFields));
  $('share').href = location.href;
  if (!mp) return;
  const { config, errors } = buildConfig(state);
  if (errors.length) return showErrors(errors);
  let result;
  try {
    result = mp.estimate(config);
  } catch (error) {
    return showErrors(error.errors || [{ field: 'config', message: String(error.message) }]);
  }
  showErrors([]);
  const unit = state.unit;
  renderVerdict(result, unit);
  renderWarnings(result);
  renderBreakdown(result, unit, state.mode);
  renderModelSummary(result, config, state, unit);
  $('output').classList.remove('stale');
  $('output').hidden = false;
  $('loading').hidden = true;
  // For scripts/measure-budgets.mjs: time from navigation to the first rendered result.
  if (!performance.getEntriesByName('memplan:first-result').length) performance.mark('memplan:first-result');
  // The derived views (analyze: every ZeRO stage, inverse searches, sweep) in the next task, so that
  // the answer paints first; data-computed tells tests which state the views show.
  delete $('output').dataset.computed;
  clearTimeout(extrasTimer);
  extrasTimer = setTimeout(() => {
    if (!embed) {
      const analysis = mp.analyze(config);
      renderLimits(analysis, state, config, unit);
      renderDetails(analysis.estimate, config, unit);
      renderZero(analysis, state, unit);
      renderSuggestions(analysis, unit);
      renderChart(analysis, state, config, unit);
    }
    $('output').dataset.computed = String(++computed);
  }, 0);
}

let extrasTimer = 0;
let computed = 0;

let timer = 0;
function scheduleUpdate() {
  clearTimeout(timer);
  timer = setTimeout(update, 60);
}

function onInput(event) {
  const target = event.target;
  if (target.id === 'preset-search') {
    filterPresets();
    return;
  }
  if (target.id === 'hf-config' || target.id === 'hf-file') return;  // handled by their own listeners
  const name = target.name;
  if (name === 'model.preset') {
    if (target.value) writeForm(presetFields(target.value) || {});
  }
  if (event.type === 'change' && target.type !== 'text') update();
  else scheduleUpdate();
}

// ---------------------------------------------------------------------------------------------
// A pasted or dropped Hugging Face config.json: read by the core, then shown as the model fields.

function showHfErrors(errors) {
  const box = $('hf-errors');
  box.hidden = errors.length === 0;
  box.replaceChildren(...errors.map((e) => el('span', `${e.field}: ${e.message}`, { class: 'line' })));
  if (errors.length) $('hf-config').setAttribute('aria-invalid', 'true');
  else $('hf-config').removeAttribute('aria-invalid');
}

function applyHfConfig(text) {
  const parsed = parseHfConfig(text);
  if (!parsed.text) return showHfErrors(parsed.error ? [parsed.error] : []);
  let resolved;
  try {
    resolved = mp.resolveModel({}, { hfConfig: parsed.text });
  } catch (error) {
    return showHfErrors((error.errors || [{ field: 'config.json', message: error.message }])
      .map((e) => {
        const key = e.field.replace(/^(hf_config|model|config)\.?/, '');
        return { field: key ? 'config.json ' + key : 'config.json', message: e.message };
      }));
  }
  if (resolved.params === null)
    return showHfErrors([{ field: 'config.json', message: 'needs num_hidden_layers, hidden_size and num_attention_heads' }]);
  showHfErrors([]);
  writeForm({ ...modelFields(resolved.model), 'model.preset': '' });
  update();
}

function readHfFile(file) {
  if (!file) return;
  file.text().then((text) => {
    $('hf-config').value = text;
    applyHfConfig(text);
  }, (error) => showHfErrors([{ field: 'config.json', message: 'cannot be read (' + error.message + ')' }]));
}

let hfTimer = 0;
function wireHfInput() {
  const area = $('hf-config');
  area.addEventListener('input', () => {
    clearTimeout(hfTimer);
    hfTimer = setTimeout(() => applyHfConfig(area.value), 150);
  });
  $('hf-file').addEventListener('change', (e) => readHfFile(e.target.files[0]));
  const box = $('hf-box');
  box.addEventListener('dragover', (e) => { e.preventDefault(); box.classList.add('drop'); });
  box.addEventListener('dragleave', () => box.classList.remove('drop'));
  box.addEventListener('drop', (e) => {
    e.preventDefault();
    box.classList.remove('drop');
    box.open = true;
    readHfFile(e.dataTransfer.files[0]);
  });
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
  form.addEventListener('input', onInput);
  form.addEventListener('change', onInput);
  form.addEventListener('submit', (e) => e.preventDefault());
  wireHfInput();
  writeForm(defaultState());
  $('suggestions').addEventListener('click', applySuggestion);
  $('theme').addEventListener('change', (e) => applyTheme(e.target.value));
  load().then((api) => {
    mp = api;
    presets = mp.presets();
    filterPresets();
    // The link is read once the presets are known: it names a preset and the fields that differ from it.
    const { state, rejected } = decodeState(location.hash, presetFields);
    if (rejected.length) {
      const notice = $('notice');
      notice.textContent = `Some settings in the link were not understood and were replaced by defaults: ${rejected.join(', ')}.`;
      notice.hidden = false;
    }
    writeForm(state);
    update();
  }, (error) => {
    $('loading').textContent = 'The calculator could not be loaded: ' + error.message;
  });
}

start();
