// memplan page — pinned setups side by side: each pin keeps its label, configuration and the core's
// result; the view draws one stacked bar per setup on a shared scale and a table of the breakdown rows
// and settings that differ. Every figure is the core's; the bar widths come from chart.js barGeometry.
import { $, el } from './dom.js';
import { partsOf } from './explain.js';
import { barGeometry } from './chart.js';
import { formatBytes, formatCount, formatParams } from './format.js';
import { capacityBytes, neededBytes, usedValue } from './state.js';

/** Flattens a configuration into "section.key" → value text, for the differing-settings rows. */
function flatten(config, out = {}, prefix = '') {
  for (const [key, value] of Object.entries(config || {})) {
    if (value && typeof value === 'object' && !Array.isArray(value)) flatten(value, out, prefix + key + '.');
    else out[prefix + key] = String(value);
  }
  return out;
}

/**
 * The setup an answer is about, in one line, from the values the core used (its resolved-config echo):
 * "Llama 3.1 70B · inference · 8 × 32,768 tokens · 2× NVIDIA H100 SXM (80 GB HBM3), tp 2". Shown above
 * the verdict (so that a screenshot or a shared link explains itself) and as a pin's label.
 */
export function pinLabel(state, spec, presets, result = null) {
  const preset = presets.find((p) => p.id === state['model.preset']);
  const gpu = spec.gpus.find((g) => g.id === state['gpu.preset']);
  const used = (path) => {
    const value = result ? usedValue(result, path) : null;
    return value === null ? state[path] : value;
  };
  const count = (path) => (typeof used(path) === 'number' ? formatCount(used(path)) : String(used(path)));
  const model = preset ? preset.name : result ? `custom model of ${formatParams(result.params).split(' ')[0]} parameters` : 'custom model';
  const capacity = capacityBytes(result);
  const gpuName = gpu ? `${gpu.name} (${gpu.memory_text})` : capacity ? `GPU of ${formatBytes(capacity, 'GB')}` : 'GPU of no given size';
  const train = state.mode === 'train';
  const work = train ? `micro-batch ${count('train.micro_batch')} × ${count('train.seq_len')} tokens`
    : `${count('infer.batch')} × ${count('infer.context_len')} tokens`;
  const layout = ['tp', 'pp', 'cp', 'ep'].map((k) => [k, used('parallel.' + k)]).filter(([, v]) => v !== undefined && String(v) !== '1')
    .map(([k, v]) => `${k} ${v}`);
  if (train) layout.push(`ZeRO ${used('parallel.zero_stage')}`);
  // Two contexts, one answer each: the verdict is for the context length; a serving engine reserves for
  // its max model length, said here when it is another number.
  const engine = !train && used('infer.engine');
  const longest = !train && used('infer.max_model_len');
  if (engine && engine !== 'none') layout.push(`engine ${engine}` + (longest && longest !== used('infer.context_len')
    ? ` reserving for ${count('infer.max_model_len')} tokens (max model length)` : ''));
  return `${model} · ${train ? 'training' : 'inference'} · ${work} · ${count('parallel.gpus')}× ${gpuName}` +
    (layout.length ? ', ' + layout.join(', ') : '');
}

/** Draws the pinned setups (and the current one, last) side by side (`explained`: the core's explanation rows, for the labels). */
export function renderPins(spec, pins, current, unit, explained) {
  const section = $('compare');
  section.hidden = pins.length === 0;
  if (!pins.length) return;
  const setups = [...pins, { ...current, label: 'current: ' + current.label }];
  // What differs between the setups, per setup: "Batch 4, KV cache fp8" (the settings' labels and values).
  const flatAll = setups.map((s) => flatten(s.config));
  const differing = [...new Set(flatAll.flatMap((f) => Object.keys(f)))].filter((k) => flatAll.some((f) => (f[k] ?? '—') !== (flatAll[0][k] ?? '—')));
  const nameOf = (key) => (spec.fields.get(key) ? spec.fields.get(key).label : key);
  const differs = (i) => differing.map((k) => `${nameOf(k)} ${flatAll[i][k] ?? '—'}`).join(', ');
  // One scale for every bar: the largest total or capacity among the setups (a comparison, no arithmetic).
  let scale = 0;
  // Each setup's figure is the one its verdict decides on (neededBytes).
  for (const s of setups) scale = Math.max(scale, neededBytes(s.result), capacityBytes(s.result));
  const bars = setups.map((s, i) => {
    const figure = el('div', null, { class: 'compare-row', 'data-pin': String(i) });
    const geometry = barGeometry(partsOf(explained).map(({ key }) => [key, s.result.per_gpu[key]]), scale, 0);
    const bar = el('div', null, { class: 'bar', role: 'img',
      'aria-label': `${s.label}: ${formatBytes(neededBytes(s.result), unit)} needed per GPU` });
    bar.replaceChildren(...geometry.segments.map((g) => {
      const seg = el('span', null, { class: 'seg seg-' + g.key });
      seg.style.width = g.percent + '%';
      return seg;
    }));
    const fits = s.result.gpu ? (s.result.gpu.fits ? 'fits' : 'does not fit') : 'no GPU size';
    const name = i === setups.length - 1 ? 'current' : `pin ${i + 1}`;
    const text = el('p', `${name}${differing.length ? ': ' + differs(i) : ''} — ${formatBytes(neededBytes(s.result), unit)} needed per GPU, ${fits}`);
    text.append(el('small', s.label.replace(/^current: /, ''), { class: 'block setup-of' }));
    figure.append(text, bar);
    return figure;
  });
  $('compare-bars').replaceChildren(...bars);
  const head = el('tr');
  head.append(el('th', 'Row', { scope: 'col' }), ...setups.map((s, i) => el('th', i === setups.length - 1 ? 'current' : `pin ${i + 1}`, { scope: 'col', class: 'num' })));
  const rows = [];
  const columns = setups.map((s, i) => (i === setups.length - 1 ? 'current' : `pin ${i + 1}`));
  const line = (label, cells) => {
    const tr = el('tr');
    tr.append(el('th', label, { scope: 'row' }), ...cells.map((c, i) => el('td', c, { class: 'num', 'data-label': columns[i] })));
    rows.push(tr);
  };
  for (const { key, label } of explained) {
    const values = setups.map((s) => s.result.per_gpu[key]);
    if (key === 'total' || values.some((v) => v !== values[0])) line(label, values.map((v) => formatBytes(v, unit)));
  }
  const flat = setups.map((s) => flatten(s.config));
  const keys = [...new Set(flat.flatMap((f) => Object.keys(f)))];
  for (const key of keys) {
    const values = flat.map((f) => f[key] ?? '—');
    if (values.some((v) => v !== values[0])) {
      const field = spec.fields.get(key);
      line(field ? field.label : key, values);
    }
  }
  $('compare-table').tHead.replaceChildren(head);
  $('compare-table').tBodies[0].replaceChildren(...rows);
}
