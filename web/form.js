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

/** The readout under a number field: what the core read there ("= 8,192 tokens") or what is wrong with it. */
const readoutId = (key) => 'parsed-' + key;

/** Fills a label slot (`<label data-field="path">`) with its control (a number field also gets its readout). */
function fillSlot(spec, slot, key) {
  const field = fieldOf(spec, key);
  const input = control(spec, key);
  if (input.type === 'checkbox') {
    slot.classList.add('check');
    slot.replaceChildren(input, ' ' + labelText(spec, key));
  } else {
    slot.replaceChildren(labelText(spec, key) + ' ', input);
  }
  if (input.tagName === 'INPUT' && input.type !== 'checkbox' && (field.type === 'integer' || field.type === 'bytes')) {
    const old = document.getElementById(readoutId(key));
    if (old) old.remove();
    slot.after(el('small', '', { class: 'parsed', id: readoutId(key), 'data-parsed-for': key }));
    input.setAttribute('aria-describedby', readoutId(key));
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
    more.append(slot);  // in place first: a number field's readout goes after it
    fillSlot(spec, slot, key);
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
    else {
      // A GB input shows its value to the thousandth (0.28704768 as 0.287); the exact text stays in
      // data-exact, and readForm keeps it while the box shows what writeForm put there.
      const text = String(value);
      input.value = input.dataset.shown = input.name in GB_INPUTS && /\.\d{4}/.test(text) ? String(+(+text).toFixed(3)) : text;
      input.dataset.exact = text;
    }
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
    else state[input.name] = input.value === input.dataset.shown ? input.dataset.exact : input.value.trim();
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

/** A field's name as the form shows it: its label ("Tensor parallel"), or the key when the schema has none. */
function nameOf(spec, key) {
  const name = INPUT_OF[key] || key;
  return spec && fieldOf(spec, name) ? labelText(spec, name) : key;
}

/** A core message in the form's words: the schema paths it names become their labels ("parallel.tp" → "Tensor parallel"). */
export function inWords(spec, text) {
  return String(text).replace(/\b[a-z_]+\.[a-z_0-9]+\b/g, (path) => (spec && fieldOf(spec, INPUT_OF[path] || path) ? nameOf(spec, path) : path));
}

/**
 * Where an error is shown and what it says there, in the form's words: on the field it names, or, when
 * the field the user just changed (`touched`) is the one its message is about ("GPUs must be a multiple
 * of parallel.tp × parallel.pp" after tensor parallel changed), on that field, naming the other one and
 * its value. {key, text}.
 */
export function placeError(spec, error, state = {}, touched = null) {
  const key = INPUT_OF[error.field] || error.field;
  const text = `${nameOf(spec, error.field)} ${inWords(spec, error.message)}`;
  const mentioned = touched && touched !== key && new RegExp(`\\b${touched.replace(/\./g, '\\.')}\\b`).test(error.message);
  if (!mentioned) return { key, text };
  const value = state[key] !== undefined && state[key] !== '' ? ` (${state[key]})` : '';
  return { key: touched, text: `${nameOf(spec, error.field)}${value} ${inWords(spec, error.message)}` };
}

/**
 * Shows under each number field what the core read there ("= 8,192 tokens", with a note on how it was
 * read where another reading is common) or the error placed on it (placeError); clears the others.
 */
export function showParsed(parsed = {}, placed = []) {
  for (const out of form().ownerDocument.querySelectorAll('small.parsed')) {
    const key = out.dataset.parsedFor;
    const error = placed.find((p) => p.key === key);
    const read = parsed[key];
    const text = error ? error.text : read ? `= ${read.text}` + (read.note ? ` (${read.note})` : '') : '';
    out.classList.toggle('bad', !!error);
    if (out.textContent !== text) out.textContent = text;
  }
}

/**
 * Lists the errors above the output in the form's words, marks the field each is placed on (placeError:
 * the one the user changed when the message is about it) and writes it under that field; [] clears them.
 * Returns the placed errors.
 */
export function showErrors(errors, spec = null, state = {}, touched = null) {
  // form().elements, not a query inside the form: the serving and fine-tuning panels' fields are attached
  // to it by their form= attribute and sit outside its subtree.
  for (const input of form().elements) if (input.hasAttribute('aria-invalid')) input.removeAttribute('aria-invalid');
  const box = $('errors');
  box.hidden = errors.length === 0;
  if (!errors.length) { box.replaceChildren(); return []; }
  const placed = errors.map((e) => placeError(spec, e, state, touched));
  const list = el('ul');
  for (const p of placed) {
    list.append(el('li', p.text));
    const input = form().elements.namedItem(p.key);
    if (input && input.setAttribute) input.setAttribute('aria-invalid', 'true');
  }
  box.replaceChildren(el('strong', 'Cannot compute:'), list);
  $('output').classList.add('stale');
  const verdict = $('verdict');
  verdict.className = 'verdict error';
  delete verdict.dataset.approximate;
  verdict.textContent = 'Cannot compute: ' + placed.map((p) => p.text).join('; ');
  return placed;
}
