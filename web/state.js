// memplan page — the page state (form field name → text or boolean), its URL form and the
// configuration object it describes. No DOM here; no formula either: numbers go to the core as given.
import { DEFAULTS, GPU_PRESETS, MODEL_PRESETS } from './presets.js';

const DTYPES = ['fp32', 'bf16', 'fp16', 'fp8', 'int8', 'int4'];

/** Allowed values of the fields that are choices. */
export const CHOICES = Object.freeze({
  'mode': ['train', 'infer'],
  'model.preset': [...MODEL_PRESETS.map((p) => p.id), 'custom'],
  'parallel.zero_stage': ['0', '1', '2', '3'],
  'train.recompute': ['none', 'selective', 'full'],
  'train.weight_dtype': DTYPES,
  'train.grad_dtype': DTYPES,
  'train.optimizer': ['adam', 'adam_8bit', 'sgd', 'sgd_momentum', 'lion', 'none'],
  'infer.weight_dtype': DTYPES,
  'infer.kv_dtype': DTYPES,
  'gpu.preset': [...GPU_PRESETS.map((p) => p.id), 'custom'],
  'unit': ['GiB', 'GB'],
});

/** Fields that are not part of the configuration object (page settings and presets). */
const PAGE_ONLY = new Set(['model.preset', 'gpu.preset', 'gpu.custom_gb', 'overhead.misc_gb', 'unit']);

/** Decimal number text: 7e9, 7000000000, 1.5, .5 — at most 32 characters. */
const NUMBER_TEXT = /^(?=.{1,32}$)(\d+\.?\d*|\.\d+)(e[+]?\d{1,3})?$/i;

export function defaultState() {
  return { ...DEFAULTS };
}

function validValue(key, value) {
  const fallback = DEFAULTS[key];
  if (typeof fallback === 'boolean') return value === '1' || value === '0' ? value === '1' : undefined;
  if (CHOICES[key]) return CHOICES[key].includes(value) ? value : undefined;
  return value === '' || NUMBER_TEXT.test(value) ? value : undefined;
}

/**
 * Reads state from a URL hash ("#mode=infer&parallel.gpus=16"). Unknown keys and malformed values
 * are ignored, keeping the default, and listed in `rejected` for the page to show.
 */
export function decodeState(hash) {
  const state = defaultState();
  const rejected = [];
  const text = String(hash || '').replace(/^#/, '');
  if (text.length > 4096) return { state, rejected: ['(the whole link: too long)'] };
  let params;
  try {
    params = new URLSearchParams(text);
  } catch {
    return { state, rejected: ['(the whole link)'] };
  }
  for (const [key, value] of params) {
    if (key === 'embed') continue;  // page mode, read by the page itself
    if (!Object.prototype.hasOwnProperty.call(DEFAULTS, key)) {
      rejected.push(key.slice(0, 40));
      continue;
    }
    const parsed = validValue(key, value);
    if (parsed === undefined) rejected.push(key);
    else state[key] = parsed;
  }
  return { state, rejected };
}

/** The state's URL hash: only the fields that differ from the defaults. */
export function encodeState(state, extra = {}) {
  const params = new URLSearchParams();
  for (const key of Object.keys(DEFAULTS)) {
    const value = state[key];
    if (value === DEFAULTS[key]) continue;
    params.set(key, typeof value === 'boolean' ? (value ? '1' : '0') : String(value));
  }
  for (const [key, value] of Object.entries(extra)) params.set(key, value);
  const text = params.toString();
  return text ? '#' + text : '';
}

/** Capacity of one GPU in bytes, or an error for the custom size. */
function gpuBytes(state, errors) {
  const preset = GPU_PRESETS.find((p) => p.id === state['gpu.preset']);
  if (preset) return preset.bytes;
  return gigabytes(state['gpu.custom_gb'], 'gpu.memory_bytes', errors, 1);
}

/** A size typed in GB (10^9 bytes) as a whole number of bytes; unit conversion only. */
function gigabytes(text, field, errors, min) {
  const value = Number(text);
  if (text === '' || !NUMBER_TEXT.test(text) || !Number.isFinite(value) || value * 1e9 < min || value > 9e6) {
    errors.push({ field, message: `must be a size in GB from ${min ? '0.000000001' : '0'} to 9000000` });
    return undefined;
  }
  return Math.round(value * 1e9);
}

/**
 * The configuration object (schema v1) the state describes. Number fields are sent as typed
 * (the core checks ranges and integrality); text that is not a number is an error here.
 */
export function buildConfig(state) {
  const errors = [];
  const mode = state.mode;
  const config = { mode, model: {}, parallel: {}, [mode]: {} };
  for (const [key, value] of Object.entries(state)) {
    if (PAGE_ONLY.has(key) || key === 'mode') continue;
    const [section, name] = key.split('.');
    if (!config[section]) continue;  // the other mode's section
    if (typeof value === 'boolean') {
      config[section][name] = value;
    } else if (CHOICES[key]) {
      config[section][name] = key === 'parallel.zero_stage' ? Number(value) : value;
    } else if (value !== '') {
      const number = Number(value);
      if (!NUMBER_TEXT.test(value) || !Number.isFinite(number))
        errors.push({ field: key, message: 'must be a number such as 7e9 or 4096' });
      else config[section][name] = number;
    }
  }
  const misc = gigabytes(state['overhead.misc_gb'], 'overhead.misc_bytes', errors, 0);
  if (misc) config.overhead = { misc_bytes: misc };
  const capacity = gpuBytes(state, errors);
  if (capacity !== undefined) config.gpu = { memory_bytes: capacity };
  return { config, errors };
}

/** The model fields of a preset, as state entries. */
export function modelPresetFields(id) {
  const preset = MODEL_PRESETS.find((p) => p.id === id);
  if (!preset) return {};
  const out = {};
  for (const [name, value] of Object.entries(preset.model)) out['model.' + name] = value;
  return out;
}
