// memplan page — the derived views of analyze(): what fits (inverse queries), the details of the
// reported GPU, the ZeRO stages side by side and the suggestions. Every number is the core's; labels
// of configuration fields are the schema's.
import { $, el } from './dom.js';
import { formatBytes, formatCount, formatCountOf, formatExactBytes, formatParams } from './format.js';
import { usedValue } from './state.js';

/** The ZeRO stage the core used (an FSDP strategy resolved to its stage by the core). */
export function chosenStage(analysis) {
  return Number(usedValue(analysis.estimate, 'parallel.zero_stage'));
}

/** The inverse queries: largest workload, largest model and fewest GPUs that fit. */
export function renderLimits(spec, analysis, config) {
  if (!analysis.estimate.gpu) {
    $('limits').replaceChildren(el('li', 'Give a GPU size to see what fits.'));
    return;
  }
  const items = [];
  const add = (label, value, key) => {
    const li = el('li', null, { 'data-limit': key });
    li.append(el('span', label + ': '), el('strong', value));
    items.push(li);
  };
  const used = (path) => formatCount(usedValue(analysis.estimate, path));
  const none = 'none — even 1 does not fit';
  const count = (v, one, many = one) => (v === null ? none : one ? formatCountOf(v, one, many) : formatCount(v));
  const l = analysis.limits;
  if (config.mode === 'train') {
    add(`Largest micro-batch at ${used('train.seq_len')} tokens`, count(l.max_micro_batch), 'max_micro_batch');
    add(`Longest sequence at micro-batch ${used('train.micro_batch')}`, count(l.max_seq_len, 'token', 'tokens'), 'max_seq_len');
  } else {
    add(`Largest batch at ${used('infer.context_len')} tokens of context`, count(l.max_batch, 'sequence', 'sequences'), 'max_batch');
    add(`Longest context at batch ${used('infer.batch')}`, count(l.max_context_len, 'token', 'tokens'), 'max_context_len');
  }
  // The core flags a longest sequence/context beyond the model's max_position_embeddings.
  if (l.beyond_context_limit && l.context_limit_tokens !== null && l.context_limit_tokens !== undefined)
    items.at(-1).append(el('em', ` — beyond the model's context limit of ${formatCount(l.context_limit_tokens)} tokens (max_position_embeddings): memory fits, the model is not made for it`, { class: 'beyond-limit' }));
  const fitting = (analysis.preset_fits || []).filter((p) => p.fits && !p.beyond_context_limit);  // at a context it is made for
  let largest = null;
  for (const p of fitting) if (!largest || p.params > largest.params) largest = p;  // a comparison, no arithmetic
  add('Largest listed model that fits this setup', largest ? `${largest.name} (${formatParams(largest.params).split(' ')[0]} parameters)` : 'none of the listed models', 'largest_model');
  const maxGpus = formatCount(spec.limits.max_gpu_count ?? spec.fields.get('parallel.gpus').max);
  // The one inverse search's answer: training over tp, pp, dp and the ZeRO stage; serving one replica's tp · pp.
  add('Fewest GPUs that fit', analysis.fewest ? `${formatCount(analysis.fewest.gpus)} (${layoutText(analysis.fewest, config.mode)})` : `none up to ${maxGpus} GPUs`, 'fewest_gpus');
  $('limits').replaceChildren(...items);
}

/** "tp 4 × pp 1" (serving) or "tp 2 × pp 1 × dp 8, ZeRO 3" (training) for a layout the core found. */
function layoutText(l, mode) {
  const model = `tp ${formatCount(l.tp)} × pp ${formatCount(l.pp)}`;
  return mode === 'train' ? `${model} × dp ${formatCount(l.dp)}, ZeRO ${l.zero_stage}` : model;
}

/** The listed models with their per-GPU total on this setup, those that fit first (largest first). */
export function renderFitModels(fits, chosen, unit) {
  const sorted = [...fits].sort((a, b) => (Number(b.fits) - Number(a.fits)) || (b.params - a.params));
  $('fit-models').replaceChildren(...sorted.map((p) => {
    const li = el('li', null, { 'data-preset': p.id, class: p.fits ? 'fits' : 'no-fit' });
    li.append(el('strong', p.name), ` — ${formatBytes(p.total_bytes, unit)} needed per GPU, ${p.fits === null ? 'no GPU size' : p.fits ? 'fits' : 'does not fit'}` +
      (p.beyond_context_limit ? ', but the context is beyond its limit (max_position_embeddings)' : '') +
      (p.id === chosen ? ' (this model)' : ''));
    return li;
  }));
}

/** Which stage is reported and why, parameter counts, offload host memory, KV bytes per token. */
export function renderDetails(result, config, unit) {
  const d = result.details;
  const pp = Number(usedValue(result, 'parallel.pp'));
  const items = [];
  const add = (term, value, key) => items.push(el('dt', term), el('dd', value, { 'data-detail': key }));
  const last = pp - 1;  // pipeline stages are numbered 0 … pp − 1
  const why = pp === 1 ? 'no pipeline parallelism: one stage holds every layer'
    : d.stage === 0 ? 'the first stage holds embeddings and the most micro-batches in flight'
      : d.stage === last ? 'the last stage holds the output layer and the logits, which outweigh the first stage\'s activations'
        : 'this stage holds the most';
  add('Pipeline stage reported', `${formatCount(d.stage)} of 0…${formatCount(last)} (the most loaded: ${why})`, 'stage');
  add('Layers on this GPU', formatCount(d.layers_on_gpu), 'layers_on_gpu');
  add('Parameters', formatParams(result.params), 'params');
  if (d.params_active !== result.params) add('Active per token (MoE)', formatParams(d.params_active), 'params_active');
  add('Parameters on this GPU (its tp/ep slice of the stage, before ZeRO)', formatParams(d.params_on_gpu), 'params_on_gpu');
  add('Data-parallel degree', formatCount(result.data_parallel), 'data_parallel');
  if (config.mode === 'train') {
    add('Micro-batches in flight', formatCount(d.microbatches_in_flight), 'microbatches_in_flight');
    add('One layer\'s activations, one micro-batch', formatBytes(d.layer_activation_bytes, unit), 'layer_activation_bytes');
  } else {
    add('KV cache growth per token of one sequence (layers that keep every token), this GPU', formatExactBytes(d.kv_cache_bytes_per_token), 'kv_cache_bytes_per_token');
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

export function renderZero(spec, analysis, config, unit) {
  $('zero-section').hidden = config.mode !== 'train';
  const current = chosenStage(analysis);
  const cls = (s) => (s.stage === current ? 'num current' : 'num');
  const head = el('tr');
  head.append(el('th', 'Stage', { scope: 'col' }), ...analysis.stages.map((s) =>
    el('th', `ZeRO ${s.stage}` + (s.stage === current ? ' (chosen)' : ''), { scope: 'col', class: cls(s) })));
  const line = (label, cell, title = null) => {
    const tr = el('tr');
    tr.append(el('th', label, { scope: 'row' }), ...analysis.stages.map((s) => {
      const td = el('td', cell(s), { class: cls(s) });
      if (title && title(s)) td.title = title(s);
      return td;
    }));
    return tr;
  };
  const exact = (v) => (v ? formatCount(v) + ' parameters' : '');
  const yesNo = (v) => (v === null ? '—' : v ? 'fits' : 'does not fit');
  // Parameter counts short in the cells ("20B"), exact in their title: four stages fit a phone's width.
  const params = (v) => (v === null ? '—' : v === 0 ? 'none' : formatParams(v).split(' ')[0]);
  const maxGpus = formatCount(spec.limits.max_gpu_count ?? spec.fields.get('parallel.gpus').max);
  $('zero').tHead.replaceChildren(head);
  $('zero').tBodies[0].replaceChildren(
    line('Needed per GPU', (s) => (s.total === null ? '—' : formatBytes(s.total, unit))),
    line('Fits the GPU', (s) => yesNo(s.fits)),
    line('Largest model, model states only (ZeRO paper, 16 B/param)', (s) => params(s.model_states_max_params), (s) => exact(s.model_states_max_params)),
    line('Largest parameter count that fits, this configuration', (s) => params(s.max_params), (s) => exact(s.max_params)),
    line('Fewest GPUs that fit (tp × pp searched)', (s) => (analysis.estimate.gpu ? (s.fewest_gpus === null ? `never (≤ ${maxGpus} GPUs)`
      : `${formatCount(s.fewest_gpus)} (tp ${formatCount(s.fewest_tp)} × pp ${formatCount(s.fewest_pp)})`) : '—')),
  );
}

/** A suggested value as its field shows it: counts grouped ("32,768"), thousandths as a fraction (0.95), choices as they are. */
const grouped = (v, f) => (typeof v !== 'number' ? v : f?.unit === 'permille' ? String(v / 1000) : formatCount(v));

/** A change as a label and an apply button carrying every field it sets (data-also: the others), the label
 * naming them too ("Tensor parallel: 2 → 4, GPUs → 4"), so that its full cost is in sight. */
function changeItem(spec, s, text) {
  const li = el('li');
  const field = spec.fields.get(s.field);
  const also = Object.entries(s.also || {}).map(([path, v]) => `, ${spec.fields.get(path)?.label ?? path} → ${grouped(v, spec.fields.get(path))}`);
  const label = `${field ? field.label : s.field}: ${grouped(s.from, field)} → ${grouped(s.to, field)}${also.join('')}`;
  li.append(el('strong', label), text);
  const attrs = { type: 'button', 'data-field': s.field, 'data-value': String(s.to), 'aria-label': `Apply ${label}` };
  if (Object.keys(s.also).length) attrs['data-also'] = JSON.stringify(s.also);
  li.append(el('button', 'apply', attrs));
  if (s.fits || s.serves) li.classList.add('fits');
  return li;
}

/** What the change gives: the saving and total, and with an engine the KV tokens and whether it serves. */
function changeText(s, unit) {
  if (s.kv_capacity_tokens) return ` ${s.serves ? 'serves' : 'does not serve'}; ${formatCount(s.kv_capacity_tokens)} KV tokens, ${formatBytes(s.total, unit)} per GPU `;
  const verdict = s.fits === null ? '' : s.fits ? ' — fits' : ' — still does not fit';
  return ` saves ${formatBytes(s.saving_bytes, unit)}, ${formatBytes(s.total, unit)} per GPU${verdict} `;
}

/** The core's limits and fewest GPUs as applicable changes (analysis.limits, analysis.fewest), those that differ from the setup. */
function wayOut(spec, analysis) {
  const used = analysis.estimate.config || {};
  const at = (path) => path.split('.').reduce((o, k) => (o == null ? o : o[k]), used);
  const out = [];
  const offer = (path, to, also = {}) => {
    if (to === null || to === undefined || to < 1 || to === at(path)) return;
    out.push(changeItem(spec, { field: path, from: at(path), to, also, fits: true }, ' — the limit that fits '));
  };
  const l = analysis.limits || {};
  offer('train.seq_len', l.max_seq_len);
  offer('train.micro_batch', l.max_micro_batch);
  offer('infer.context_len', l.max_context_len);
  offer('infer.batch', l.max_batch);
  const f = analysis.fewest;
  if (f) {
    const also = Object.fromEntries([['parallel.tp', f.tp], ['parallel.pp', f.pp], ['parallel.zero_stage', f.zero_stage]]
      .filter(([path, v]) => at(path) !== undefined && at(path) !== v));
    offer('parallel.gpus', f.gpus, also);
  }
  return out;
}

/** The one inverse search's single changes and its best combined plan (the core lists only the
 * changes that belong to the task). */
export function renderSuggestions(spec, analysis, unit, mode = 'train') {
  const fits = analysis.estimate.gpu && analysis.estimate.gpu.fits;
  $('suggestions-title').textContent = fits ? 'What would save memory' : 'What would make it fit';
  const items = analysis.suggestions.map((s) => changeItem(spec, s, changeText(s, unit)));
  // When no single change makes it fit, the core's own limits and fewest GPUs are ways out too, each
  // applicable: the longest sequence or context and the largest batch that fit here, the fewest GPUs.
  if (!fits && analysis.estimate.gpu && !analysis.suggestions.some((s) => s.fits || s.serves)) items.push(...wayOut(spec, analysis));
  if (!items.length) items.push(el('li', mode === 'train'
    ? 'No single change the core tries (ZeRO stage, activation checkpointing, FlashAttention, sequence parallel, fine-tuning recipes, micro-batch, GPUs, tensor and pipeline parallelism) lowers the total, and nothing smaller fits on this GPU.'
    : 'No single serving change the core tries (weight and KV-cache precision, tensor and pipeline parallelism, batch, context, the engine\'s share) helps, and nothing smaller fits on this GPU.'));
  const plan = analysis.plan && analysis.plan.changes;
  if (plan && plan.length > 1) {  // a single change that fits is already first in the list
    const li = el('li', null, { class: 'plan' + (analysis.plan.fits ? ' fits' : ''), 'data-plan': String(plan.length) });
    li.append(el('strong', 'Combined plan: '), plan.map((s) => { const f = spec.fields.get(s.field); return `${f ? f.label : s.field} → ${grouped(s.to, f)}`; }).join(', then '),
      ` — ${formatBytes(plan.at(-1).total, unit)} per GPU, ${analysis.plan.fits ? 'fits' : 'still does not fit'}`);
    items.push(li);
  }
  // A redraw must not take the keyboard focus away from a suggestion's button (a user tabbing from a
  // field to "apply" while the views redraw): the same suggestion's new button takes it over.
  const focused = document.activeElement;
  const kept = focused && $('suggestions').contains(focused) && focused.dataset.field !== undefined
    ? items.map((li) => li.querySelector('button')).find((b) => b && b.dataset.field === focused.dataset.field && b.dataset.value === focused.dataset.value)
    : null;
  $('suggestions').replaceChildren(...items);
  if (kept) kept.focus();
}
