// memplan page — the form: its controls built from the core's schema (label, control type, choices,
// range, default), reading and writing the page state, the model preset list, and marking the fields
// an error names.
import { $, el } from './dom.js';
import { GB_INPUTS, fieldOf, nullable } from './schema.js';
import { formatParams } from './format.js';

/** The form element (looked up when used: this module is also loaded by the analysis worker, which has no DOM). */
export const form = () => $('form');

/** Integer fields with at most this many values are offered as a list. */
const LIST_MAX_VALUES = 8;

/** The control of a field: select (choices, small integer ranges, booleans without a default), checkbox or text. */
function control(spec, key) {
  const field = fieldOf(spec, key);
  const gb = key in GB_INPUTS;
  const unset = nullable(spec, key);
  const options = (values, labels = values) => values.map((v, i) => el('option', labels[i], { value: v }));
  let input;
  if (field.type === 'boolean' && !unset) {
    input = el('input', null, { type: 'checkbox' });
  } else if (field.type === 'boolean') {
    input = el('select');
    input.append(...options(['', 'true', 'false'], ['— (model family)', 'yes', 'no']));
  } else if (field.type === 'choice') {
    input = el('select');
    if (unset) input.append(el('option', '— (not set)', { value: '' }));
    input.append(...options(field.choices));
  } else if (field.type === 'integer' && field.max - field.min < LIST_MAX_VALUES) {
    input = el('select');
    const values = Array.from({ length: field.max - field.min + 1 }, (_, i) => String(field.min + i));
    input.append(...options(values));
  } else {
    input = el('input', null, { inputmode: field.type === 'text' ? 'text' : 'decimal', spellcheck: 'false' });
    if (!gb && field.min !== undefined) { input.setAttribute('min', String(field.min)); input.setAttribute('max', String(field.max)); }
    if (unset && field.type !== 'text') input.placeholder = 'not set';
  }
  input.name = key;
  input.title = field.help || field.label;
  return input;
}

/** The text of a field's label: the schema's label (a GB input says so). */
function labelText(spec, key) {
  const field = fieldOf(spec, key);
  return key in GB_INPUTS ? `${field.label} (GB)` : field.label;
}

/** Fills a label slot (`<label data-field="path">`) with its control. */
function fillSlot(spec, slot, key) {
  const field = fieldOf(spec, key);
  const input = control(spec, key);
  if (input.type === 'checkbox') {
    slot.classList.add('check');
    slot.replaceChildren(input, ' ' + labelText(spec, key));
  } else {
    slot.replaceChildren(labelText(spec, key) + ' ', input);
  }
  if (field.modes && field.modes.length === 1 && !slot.closest('.mode-train, .mode-infer')) slot.classList.add('mode-' + field.modes[0]);
}

/**
 * Builds the form from the schema: every `<label data-field>` slot of the page gets its control, and
 * every schema field the page has no slot for gets one under "Other settings" (so a field added to the
 * core appears without a page change). Also fills the GPU list.
 */
export function buildForm(spec) {
  const placed = new Set();
  for (const slot of form().querySelectorAll('label[data-field]')) {
    const key = slot.dataset.field;
    if (!fieldOf(spec, key)) { slot.remove(); continue; }  // not in this core's schema
    fillSlot(spec, slot, key);
    placed.add(key);
  }
  const more = $('more-fields');
  for (const key of spec.keys) {
    if (placed.has(key) || !fieldOf(spec, key) || form().elements.namedItem(key)) continue;
    const slot = el('label', null, { 'data-field': key });
    fillSlot(spec, slot, key);
    more.append(slot);
  }
  $('more-box').hidden = !more.querySelector('label');
  const mode = form().elements.namedItem('mode');
  if (mode && mode.tagName === 'SELECT')
    for (const option of mode.options) option.textContent = TASK_NAMES[option.value] || option.value;
  filterGpus(spec, '');
}

/** How the run modes read in the task picker (the values are the schema's choices). */
const TASK_NAMES = Object.freeze({ infer: 'inference / serving', train: 'training (fine-tune / pre-train)' });

/** The GPU list: the core's catalogue (mp.gpus()), narrowed by the core's search (ids best first); the chosen one stays listed. */
export function filterGpus(spec, query, search = null) {
  const select = $('gpu-preset');
  const chosen = select.value || spec.defaults['gpu.preset'];
  const ids = query && search ? search(query) : null;
  const byId = new Map(spec.gpus.map((g) => [g.id, g]));
  let list = ids ? ids.map((id) => byId.get(id)).filter(Boolean) : [...spec.gpus];
  if (chosen && chosen !== 'custom' && !list.some((g) => g.id === chosen) && byId.has(chosen)) list.push(byId.get(chosen));
  select.replaceChildren(...list.map((g) => el('option', `${g.name} — ${g.memory_text}`, { value: g.id })),
    el('option', 'custom size', { value: 'custom' }));
  select.value = chosen;
}

export function writeForm(state) {
  for (const input of form().elements) {
    if (!input.name || !(input.name in state)) continue;
    const value = state[input.name];
    if (input.type === 'checkbox') input.checked = value === true;
    else if (input.type === 'radio') input.checked = input.value === value;
    else input.value = String(value);
  }
}

/** The state the form shows, starting from `base` (the keys it does not show keep base's values). */
export function readForm(spec, base) {
  const state = { ...base };
  for (const input of form().elements) {
    if (!input.name || !(input.name in state)) continue;
    const field = fieldOf(spec, input.name);
    if (input.type === 'checkbox') state[input.name] = input.checked;
    else if (input.type === 'radio') { if (input.checked) state[input.name] = input.value; }
    else if (field && field.type === 'boolean') state[input.name] = input.value === '' ? '' : input.value === 'true';
    else state[input.name] = input.value.trim();
  }
  return state;
}

/** Shows the controls of the run mode, the custom GPU size when chosen, and whether a preset was edited. */
export function showModeAndGpu(spec, state, preset, presetFields) {
  document.body.dataset.mode = state.mode;
  $('custom-gpu').hidden = state['gpu.preset'] !== 'custom';
  const gpu = spec.gpus.find((g) => g.id === state['gpu.preset']);
  $('gpu-source').textContent = gpu ? `${gpu.memory_text}; the fit uses ${gpu.usable_text ? 'the driver-reported ' + gpu.usable_text : 'the vendor figure'}` : '';
  const zero = form().elements.namedItem('parallel.zero_stage');
  if (zero) zero.disabled = !!state['parallel.fsdp'];  // an FSDP strategy names the stage (the core resolves it)
  const fields = preset ? presetFields : null;
  const edited = fields ? Object.keys(fields).filter((k) => state[k] !== fields[k]) : [];
  $('preset-source').textContent = preset
    ? `${preset.name}: ${preset.source}` + (edited.length ? ` — edited: ${edited.map((k) => k.slice(6)).join(', ')}` : '')
    : '';
}

function presetOption(p) {
  const count = typeof p.params === 'number' ? ` — ${formatParams(p.params).split(' ')[0]} params` : '';
  return el('option', p.name + count, { value: p.id });
}

/**
 * Fills the preset list with the presets matching the search text, best first as the core ranks them
 * (`search`: mp.searchPresets, query → preset ids; all presets for an empty query); the chosen one stays
 * listed. Enter in the search box picks the top match.
 */
export function filterPresets(presets, search) {
  const select = $('model-preset');
  const box = $('preset-search');
  if (!box.dataset.enterPicks) {
    box.dataset.enterPicks = '1';
    box.addEventListener('keydown', (event) => {
      if (event.key !== 'Enter') return;
      event.preventDefault();
      const top = [...select.options].find((o) => o.value);
      if (!top || !box.value.trim()) return;
      select.value = top.value;
      select.dispatchEvent(new Event('change', { bubbles: true }));
    });
  }
  const chosen = select.value;
  const query = box.value.trim();
  const byId = new Map(presets.map((p) => [p.id, p]));
  // The core's search (mp.searchPresets: ids, best first) is the one search.
  const matches = !query ? presets : search(query).map((id) => byId.get(id)).filter(Boolean);
  const options = [el('option', matches.length ? 'custom (architecture below, or pasted)' : 'no preset matches', { value: '' }), ...matches.map(presetOption)];
  if (chosen && !matches.some((p) => p.id === chosen)) {
    const p = byId.get(chosen);
    if (p) options.push(presetOption(p));
  }
  select.replaceChildren(...options);
  select.value = chosen;
}

/** Form field that an error names (the core speaks of bytes where the form asks for GB). */
const INPUT_OF = Object.fromEntries(Object.entries(GB_INPUTS).map(([page, path]) => [path, page]));

/** Lists the errors above the output and marks the fields they name; [] clears them. */
export function showErrors(errors, spec = null) {
  for (const input of form().querySelectorAll('[aria-invalid]')) input.removeAttribute('aria-invalid');
  const box = $('errors');
  box.hidden = errors.length === 0;
  if (!errors.length) return box.replaceChildren();
  const list = el('ul');
  for (const e of errors) {
    const name = INPUT_OF[e.field] || e.field;
    const field = spec && fieldOf(spec, name);
    list.append(el('li', `${field ? labelText(spec, name) : e.field} ${e.message}`));
    const input = form().elements.namedItem(name);
    if (input && input.setAttribute) input.setAttribute('aria-invalid', 'true');
  }
  box.replaceChildren(el('strong', 'Cannot compute:'), list);
  $('output').classList.add('stale');
  const verdict = $('verdict');
  verdict.className = 'verdict error';
  verdict.textContent = 'Cannot compute: ' + errors.map((e) => {
    const name = INPUT_OF[e.field] || e.field;
    return (spec && fieldOf(spec, name) ? labelText(spec, name) : e.field) + ' ' + e.message;
  }).join('; ');
}
