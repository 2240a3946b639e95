// memplan page — the page state (form field name → text or boolean), its URL form and the
// configuration object it describes. Field names, types, allowed values and defaults come from the
// core's schema through a form spec (schema.js formSpec). No DOM here; no formula either: numbers go to
// the core as typed, and the core checks them.
import { STARTING_EXAMPLE } from './presets.js';
import { GB_INPUTS, PAGE_ONLY, fieldOf, inMode, modelKeys, nullable } from './schema.js';

/**
 * Number text as people type it, at most 32 characters: 7e9, 7000000000, 1.5, .5, 32,768, 32K, 80 GiB,
 * 90% (the core reads it as the field reads it, and says what is wrong with it).
 */
const NUMBER_TEXT = /^(?=.{1,32}$)(\d[\d,]*\.?\d*|\.\d+)(e[+]?\d{1,3})? ?([a-z]{1,3}|%)?$/i;
/** Names: preset ids and Hugging Face model types. */
const NAME_TEXT = /^[a-z0-9][a-z0-9_.-]{0,63}$/i;
/** The link key of a pinned setup: its own state's hash (encodeState without '#'), once per pin. */
export const PIN_KEY = 'pin';
/** The link key of a model loaded from the Hugging Face Hub: "org/name" or "org/name@revision" (hub.js), fetched again on opening. */
export const HUB_KEY = 'hub';
/** Longest link the page reads. */
const MAX_LINK_CHARS = 4096;
/**
 * Guards of the page's own JSON.parse / JSON.stringify of a pasted config.json (both recurse, and a deep
 * enough text throws RangeError): the deepest nesting and the longest text it reads. The core's limits
 * (schema limits max_json_depth and max_config_bytes) are used instead where the schema exports them.
 */
export const MAX_JSON_DEPTH = 64;
export const MAX_JSON_CHARS = 4194304;

/** The page's starting state: the core's defaults with the page's example workload. */
export function defaultState(spec) {
  const state = { ...spec.defaults };
  for (const [key, value] of Object.entries(STARTING_EXAMPLE)) if (key in state) state[key] = value;
  return state;
}

/** The value of a link entry for a state key, or undefined when it is not one the field allows. */
function validValue(spec, key, value, fallback) {
  const field = fieldOf(spec, key);
  // A model key left empty is "not set": the core derives it (the form shows a resolved model's keys only).
  const unset = value === '' && (key.startsWith('model.') || nullable(spec, key) || fallback === '');
  if (typeof fallback === 'boolean' || field && field.type === 'boolean') {
    if (unset) return '';
    return value === '1' || value === '0' ? value === '1' : undefined;
  }
  if (spec.choices[key]) return unset || spec.choices[key].includes(value) ? value : undefined;
  if (field && field.type === 'text' || key === 'model.preset') return value === '' || NAME_TEXT.test(value) ? value : undefined;
  return value === '' || NUMBER_TEXT.test(value) ? value : undefined;
}

/**
 * State entries of a model object as the core resolved it (mp.resolveModel().model, which lists every
 * key it sets): every model field, '' (not set, the core derives it) for a key the model leaves out; a
 * checkbox cannot show "not set", so a boolean left out keeps the schema default.
 */
export function modelFields(spec, model) {
  const out = {};
  for (const key of modelKeys(spec)) out[key] = typeof spec.defaults[key] === 'boolean' ? spec.defaults[key] : '';
  for (const [name, value] of Object.entries(model || {})) {
    const key = 'model.' + name;
    if (!(key in out)) continue;
    out[key] = typeof value === 'boolean' ? value : value === null ? '' : String(value);
  }
  return out;
}

/**
 * Reads state from a URL hash ("#mode=infer&parallel.gpus=16"). `presetFields(id)` gives the model
 * fields of a preset (or null for an unknown id): a link names the preset and only the fields that
 * differ from it. Unknown keys and malformed values are ignored, keeping the default, and listed in
 * `rejected` for the page to show.
 */
export function decodeState(spec, hash, presetFields = () => null) {
  const start = defaultState(spec);
  const state = { ...start };
  const rejected = [];
  const text = String(hash || '').replace(/^#/, '');
  if (text.length > MAX_LINK_CHARS) return { state, rejected: ['(the whole link: too long)'] };
  let params;
  try {
    params = new URLSearchParams(text);
  } catch {
    return { state, rejected: ['(the whole link)'] };
  }
  // The starting state names a preset: its fields apply unless the link names another (or none: '').
  const preset = params.has('model.preset') ? params.get('model.preset') : start['model.preset'];
  if (!preset) state['model.preset'] = '';
  else {
    const fields = validValue(spec, 'model.preset', preset, '') !== undefined ? presetFields(preset) : null;
    // An unknown preset in a link keeps the starting model (listed as rejected).
    const fallback = fields ? null : start['model.preset'] && presetFields(start['model.preset']);
    if (fields) Object.assign(state, fields, { 'model.preset': preset });
    else if (fallback) Object.assign(state, fallback);
    else state['model.preset'] = '';
    if (!fields && params.has('model.preset')) rejected.push('model.preset');
  }
  for (const [key, value] of params) {
    if (key === 'embed' || key === 'model.preset' || key === PIN_KEY || key === HUB_KEY) continue;  // page mode, pins and the Hub model, read by the page itself
    if (!Object.prototype.hasOwnProperty.call(start, key)) {
      rejected.push(key.slice(0, 40));
      continue;
    }
    const parsed = validValue(spec, key, value, start[key]);
    if (parsed === undefined) rejected.push(key);
    else state[key] = parsed;
  }
  return { state, rejected };
}

/**
 * True when the link (a URL hash) sets nothing, so that decodeState gives the starting state with nothing
 * rejected: an empty hash, or only the page-mode key `embed`. The page draws the answer computed at build
 * time for the starting state only then (first-result.js), before the core has loaded.
 */
export function linkSetsNothing(hash) {
  const text = String(hash || '').replace(/^#/, '');
  if (text.length > MAX_LINK_CHARS) return false;
  for (const key of new URLSearchParams(text).keys()) if (key !== 'embed') return false;
  return true;
}

/** The state's URL hash: only the fields that differ from the starting state (or from the named preset's fields). */
export function encodeState(spec, state, presetFields = () => null) {
  const base = defaultState(spec);
  const startPreset = base['model.preset'] && presetFields(base['model.preset']) ? base['model.preset'] : '';
  const fields = state['model.preset'] ? presetFields(state['model.preset']) : null;
  if (fields) Object.assign(base, fields);
  else for (const key of Object.keys(base)) if (key.startsWith('model.')) base[key] = spec.defaults[key];
  const params = new URLSearchParams();
  if (fields && state['model.preset'] !== startPreset) params.set('model.preset', state['model.preset']);
  else if (!fields && startPreset) params.set('model.preset', '');
  for (const key of spec.keys) {
    const value = state[key];
    if (key === 'model.preset' || value === base[key] || value === undefined) continue;
    params.set(key, typeof value === 'boolean' ? (value ? '1' : '0') : String(value));
  }
  const text = params.toString();
  return text ? '#' + text : '';
}

/** Bare decimal text ("80", "0.5"): a GB input reads it in GB. */
const BARE_NUMBER = /^\s*[\d,]*\.?\d*(e[+]?\d{1,3})?\s*$/i;

/** What a GB input allows, in words (the core's byte field reads units; the page adds GB to a bare number). */
const GB_ALLOWED = 'a size such as 80, 80GB or 74.5GiB (a bare number is GB, 10⁹ bytes); K, M, B and T are counts, not sizes';

/**
 * A number field's text read by the core as that field reads it (`parse` = mp.parseField: (text, schema
 * path) → {value, text, note}; "32K" tokens, "0.9" or "90%" for a fraction, "80GB" for a size, "7B"
 * parameters), which throws with the field's own message; a GB input reads bare numbers in GB (the text
 * gets the unit; the core multiplies). Errors name the state key; the page shows the field's label.
 * What the core understood goes to `parsed` (state key → {text, note}) for the form to show.
 */
function quantity(spec, key, text, errors, parse, parsed) {
  const gb = key in GB_INPUTS;
  const path = GB_INPUTS[key] || key;
  const refuse = (message) => { errors.push({ field: key, message }); return undefined; };
  try {
    const out = parse(gb && BARE_NUMBER.test(text) ? text.trim() + ' GB' : text.trim(), path);
    if (parsed) parsed[key] = { text: out.text, note: out.note || '' };
    return out.value;
  } catch (error) {
    const first = error && error.errors && error.errors[0];
    return refuse(gb ? 'must be ' + GB_ALLOWED : first ? first.message : String(error && error.message));
  }
}

/**
 * The configuration object (schema v1) the state describes: the fields of its run mode. Number fields
 * are read by the core as each field reads them (`parse`: (text, schema path) → {value, text, note},
 * mp.parseField, which throws for text the field does not take) and sent as numbers (the core checks
 * ranges again); text it cannot read is an error here, naming the field. `parsed` (state key → {text,
 * note}) says what each number field was read as, for the form to show. The GPU picked is the core's catalogue
 * entry (spec.gpus, its capacity_bytes). With `modelBase` (the model the core resolved for a preset or a
 * pasted config.json) the model sent is that model with the form's edits on top (see onModelBase).
 */
export function buildConfig(spec, state, parse, modelBase = null) {
  const errors = [];
  const parsed = {};
  const mode = state.mode;
  const config = { mode, model: {}, parallel: {} };
  for (const key of spec.keys) {
    if (PAGE_ONLY.has(key) || key === 'mode') continue;
    const field = spec.fields.get(key);
    const value = state[key];
    if (!field || !inMode(field, mode) || value === '' || value === undefined) continue;
    if (key === 'parallel.zero_stage' && state['parallel.fsdp']) continue;  // the form disables it: the strategy names the stage
    const [section, name] = key.split('.');
    let out;
    if (field.type === 'boolean') out = value === true || value === 'true';
    else if (field.type === 'choice' || field.type === 'text') out = value;
    else {
      out = quantity(spec, key, String(value), errors, parse, parsed);
      if (out === undefined) continue;
    }
    (config[section] ||= {})[name] = out;
  }
  if (modelBase) config.model = onModelBase(spec, state, modelBase, config.model);
  const misc = quantity(spec, 'overhead.misc_gb', String(state['overhead.misc_gb']), errors, parse, parsed);
  if (misc !== undefined) config.overhead = { misc_bytes: misc };
  const gpu = (spec.gpus || []).find((g) => g.id === state['gpu.preset']);
  const capacity = gpu ? gpu.capacity_bytes : quantity(spec, 'gpu.custom_gb', String(state['gpu.custom_gb']), errors, parse, parsed);
  // A catalogue GPU also gives its id as gpu.name: the core reads engine defaults that depend on the GPU's
  // name from it (vLLM's A100 rule), and warns when a large GPU has none.
  if (capacity !== undefined) config.gpu = gpu ? { memory_bytes: capacity, name: gpu.id } : { memory_bytes: capacity };
  return { config, errors, parsed };
}

/**
 * The model sent for a preset or a pasted config.json: the model object the core resolved (modelBase,
 * mp.resolveModel().model, which also holds what the form cannot show: per-layer lists such as
 * DeepSeek's mlp_layer_types, and flags its model_type implies, such as Qwen3's qk_norm) with only the
 * fields the form changed from it on top. Sending every form field instead would send a left-out flag
 * as false and drop the lists: a silently different model.
 */
function onModelBase(spec, state, modelBase, typed) {
  const shown = modelFields(spec, modelBase);
  const model = { ...modelBase };
  for (const [name, value] of Object.entries(typed)) {
    const key = 'model.' + name;
    if (key in shown && state[key] === shown[key]) continue;  // as the base has it (or leaves it to the core)
    model[name] = value;
  }
  for (const key of Object.keys(shown)) {  // a field emptied in the form: not set, the core derives it
    const name = key.slice(6);
    if (state[key] === '' && shown[key] !== '' && !(name in typed)) delete model[name];
  }
  return model;
}

/**
 * A value of the configuration the core used, from a result's resolved-config echo (result.config: every
 * field, defaults filled in, an FSDP strategy resolved to its ZeRO stage); null when the result has none.
 */
export function usedValue(result, path) {
  const [section, name] = path.split('.');
  const value = result && result.config && result.config[section] ? result.config[section][name] : undefined;
  return value === undefined ? null : value;
}

/**
 * Deepest nesting of objects and arrays in JSON text, counted without parsing (strings skipped), stopping
 * as soon as it passes `limit`. JSON.parse and JSON.stringify recurse, and a deep enough text makes them
 * throw RangeError: this lets the page refuse it with a message instead.
 */
export function jsonDepth(text, limit = Infinity) {
  let depth = 0, deepest = 0, inString = false;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (inString) {
      if (c === 92) i++;  // backslash: skip the escaped character
      else if (c === 34) inString = false;
    } else if (c === 34) inString = true;
    else if (c === 123 || c === 91) {  // { [
      if (++depth > deepest && (deepest = depth) > limit) return deepest;
    } else if (c === 125 || c === 93) depth--;  // } ]
  }
  return deepest;
}

/**
 * The bare words Python's json module writes for non-finite floats (Infinity, -Infinity, NaN: transformers
 * saves a config.json so), outside strings, quoted so that JSON.parse reads them; {text, found}. The core
 * reads the original text, where such a value on a key it reads is refused naming the key.
 */
export function quotePythonWords(text) {
  let out = '', inString = false, found = false, last = 0;
  for (let i = 0; i < text.length; i++) {
    const c = text[i];
    if (inString) {
      if (c === '\\') i++;
      else if (c === '"') inString = false;
      continue;
    }
    if (c === '"') { inString = true; continue; }
    for (const word of ['-Infinity', 'Infinity', 'NaN']) {
      const after = text[i + word.length];
      if (text.startsWith(word, i) && (after === undefined || /[\s,\]}]/.test(after))) {
        out += text.slice(last, i) + '"' + word + '"';
        i += word.length - 1;
        last = i + 1;
        found = true;
        break;
      }
    }
  }
  return { text: found ? out + text.slice(last) : text, found };
}

/**
 * A pasted Hugging Face config.json: {text, object}, {error} naming what is wrong, or {error: null} when
 * empty. The core reads the keys (mp.resolveModel); this only checks that it is one JSON object of
 * bounded size and depth. Python's bare Infinity / NaN are read as the words (the text the core gets keeps them).
 */
export function parseHfConfig(text, limits = {}) {
  const trimmed = String(text || '').trim();
  if (!trimmed) return { error: null };
  const error = (message) => ({ error: { field: 'config.json', message } });
  const maxChars = limits.max_config_bytes ?? MAX_JSON_CHARS;
  const maxDepth = limits.max_json_depth ?? MAX_JSON_DEPTH;
  if (trimmed.length > maxChars) return error(`is longer than ${maxChars} characters`);
  if (jsonDepth(trimmed, maxDepth) > maxDepth) return error(`is nested deeper than ${maxDepth} levels`);
  let object;
  const quoted = quotePythonWords(trimmed);
  try {
    object = JSON.parse(quoted.text);
  } catch (cause) {
    return error('is not valid JSON (' + cause.message + ')');
  }
  if (object === null || typeof object !== 'object' || Array.isArray(object))
    return error('must be a JSON object ({"model_type": …, "hidden_size": …})');
  return { text: quoted.found ? trimmed : JSON.stringify(object), object };
}

/** One GPU's capacity in bytes as the core states it (result.gpu.capacity_bytes); 0 when none was given. */
export function capacityBytes(result) {
  return result && result.gpu ? result.gpu.capacity_bytes : 0;
}

/** The per-GPU bytes the verdict decides on (gpu.needed_bytes: in training the step's peak where it is above
 * the sum), the figure every view shows beside a verdict; the sum of the parts without a GPU size. */
export function neededBytes(result) {
  return result.gpu ? result.gpu.needed_bytes : result.per_gpu.total;
}
