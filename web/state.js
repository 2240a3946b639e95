// memplan page — the page state (form field name → text or boolean), its URL form and the
// configuration object it describes. No DOM here; no formula either: numbers go to the core as given.
import { DEFAULTS, GPU_PRESETS, MODEL_DEFAULTS } from './presets.js';

const DTYPES = ['fp32', 'bf16', 'fp16', 'fp8', 'int8', 'int4'];
const OFFLOAD = ['none', 'cpu', 'nvme'];

/** Allowed values of the fields that are choices (the core's names, docs/schema.md). */
export const CHOICES = Object.freeze({
  'mode': ['train', 'infer'],
  'model.norm': ['layernorm', 'rmsnorm'],
  'model.mlp': ['plain', 'gated'],
  'parallel.zero_stage': ['0', '1', '2', '3'],
  'parallel.fsdp': ['', 'full_shard', 'shard_grad_op', 'hybrid_shard', 'hybrid_shard_zero2', 'no_shard'],
  'parallel.offload_optimizer': OFFLOAD,
  'parallel.offload_params': OFFLOAD,
  'train.recompute': ['none', 'selective', 'full'],
  'train.weight_dtype': DTYPES,
  'train.grad_dtype': DTYPES,
  'train.optimizer': ['adam', 'adam_8bit', 'sgd', 'sgd_momentum', 'lion', 'adafactor', 'none'],
  'infer.weight_dtype': DTYPES,
  'infer.kv_dtype': DTYPES,
  'gpu.preset': [...GPU_PRESETS.map((p) => p.id), 'custom'],
  'unit': ['GiB', 'GB'],
});

/** ZeRO stage that each FSDP sharding strategy names (Zhao et al. 2023 §3.2; the core maps them the same way). */
export const FSDP_STAGE = Object.freeze({ full_shard: 3, hybrid_shard: 3, shard_grad_op: 2, hybrid_shard_zero2: 2, no_shard: 0 });

/** Fields that are not part of the configuration object (page settings and presets). */
const PAGE_ONLY = new Set(['model.preset', 'gpu.preset', 'gpu.custom_gb', 'overhead.misc_gb', 'unit']);

/** Decimal number text: 7e9, 7000000000, 1.5, .5 — at most 32 characters. */
const NUMBER_TEXT = /^(?=.{1,32}$)(\d+\.?\d*|\.\d+)(e[+]?\d{1,3})?$/i;
/** Names: preset ids and Hugging Face model types. */
const NAME_TEXT = /^[a-z0-9][a-z0-9_.-]{0,63}$/i;

export function defaultState() {
  return { ...DEFAULTS };
}

function validValue(key, value) {
  const fallback = DEFAULTS[key];
  if (typeof fallback === 'boolean') return value === '1' || value === '0' ? value === '1' : undefined;
  if (CHOICES[key]) return CHOICES[key].includes(value) ? value : undefined;
  if (key === 'model.model_type' || key === 'model.preset') return value === '' || NAME_TEXT.test(value) ? value : undefined;
  return value === '' || NUMBER_TEXT.test(value) ? value : undefined;
}

/** State entries of a model object as the core resolved it (mp.resolveModel().model): every model field set. */
export function modelFields(model) {
  const out = { ...MODEL_DEFAULTS };
  for (const [name, value] of Object.entries(model || {})) {
    const key = 'model.' + name;
    if (!(key in out)) continue;
    out[key] = typeof value === 'boolean' ? value : String(value);
  }
  return out;
}

/**
 * Reads state from a URL hash ("#mode=infer&parallel.gpus=16"). `presetFields(id)` gives the model
 * fields of a preset (or null for an unknown id): a link names the preset and only the fields that
 * differ from it. Unknown keys and malformed values are ignored, keeping the default, and listed in
 * `rejected` for the page to show.
 */
export function decodeState(hash, presetFields = () => null) {
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
  const preset = params.get('model.preset');
  if (preset) {
    const fields = validValue('model.preset', preset) !== undefined ? presetFields(preset) : null;
    if (fields) Object.assign(state, fields, { 'model.preset': preset });
    else rejected.push('model.preset');
  }
  for (const [key, value] of params) {
    if (key === 'embed' || key === 'model.preset') continue;  // page mode, read by the page itself
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

/** The state's URL hash: only the fields that differ from the defaults (or from the named preset's fields). */
export function encodeState(state, presetFields = () => null) {
  const base = { ...DEFAULTS };
  const fields = state['model.preset'] ? presetFields(state['model.preset']) : null;
  if (fields) Object.assign(base, fields);
  const params = new URLSearchParams();
  if (fields) params.set('model.preset', state['model.preset']);
  for (const key of Object.keys(DEFAULTS)) {
    const value = state[key];
    if (key === 'model.preset' || value === base[key]) continue;
    params.set(key, typeof value === 'boolean' ? (value ? '1' : '0') : String(value));
  }
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
    } else if (key === 'parallel.zero_stage') {
      if (!state['parallel.fsdp']) config.parallel.zero_stage = Number(value);  // an FSDP strategy names the stage
    } else if (CHOICES[key] || key === 'model.model_type') {
      if (value !== '') config[section][name] = value;
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

/** The ZeRO stage the state chooses (an FSDP strategy names one). */
export function chosenStage(state) {
  return state['parallel.fsdp'] ? FSDP_STAGE[state['parallel.fsdp']] : Number(state['parallel.zero_stage']);
}

/** Presets whose id, name or source contain every word of `query` (case-insensitive). */
export function searchPresets(presets, query) {
  const words = String(query || '').toLowerCase().split(/\s+/).filter(Boolean);
  return presets.filter((p) => {
    const text = `${p.id} ${p.name} ${p.config.model_type || ''}`.toLowerCase();
    return words.every((w) => text.includes(w));
  });
}

/**
 * A pasted Hugging Face config.json read with JSON.parse: {text, object} or {error} naming what is wrong.
 * The core reads the keys (mp.resolveModel); this only checks that it is one JSON object.
 */
export function parseHfConfig(text) {
  const trimmed = String(text || '').trim();
  if (!trimmed) return { error: null };
  let object;
  try {
    object = JSON.parse(trimmed);
  } catch (cause) {
    return { error: { field: 'config.json', message: 'is not valid JSON (' + cause.message + ')' } };
  }
  if (object === null || typeof object !== 'object' || Array.isArray(object))
    return { error: { field: 'config.json', message: 'must be a JSON object ({"model_type": …, "hidden_size": …})' } };
  return { text: JSON.stringify(object), object };
}
