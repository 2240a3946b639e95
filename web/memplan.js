// memplan — the JavaScript API of the WebAssembly core (dist/memplan.js).
//   import { load } from './memplan.js';
//   const mp = await load();
//   mp.modelStateBytes(7e9, 8, 1);   // 38500000000
//   mp.estimate({ model: { params: 7e9, ... }, parallel: { gpus: 8 } });
//   mp.estimate({ mode: 'infer' }, { hfConfig: configJsonTextOrObject });  // a Hugging Face config.json
//   mp.presets();                      // the stored models (core/data/models.json), parsed once
//   mp.schema();                       // every configuration field: range, default, label, help
//   mp.gpus();                         // the GPU catalogue (core/data/gpus.json), parsed once
//   mp.parseQuantity('80 GiB', 'gpu.memory_bytes');  // 85899345920; throws MemplanError naming the field
//   mp.recipes();                      // the fine-tuning recipes (core/data/recipes.json), parsed once
//   mp.explanations().train;           // how each breakdown row is computed (core/data/explanations.json)
//   mp.engines().engines;              // the serving engines reproduced, with their budget's terms
//   const fast = await loadFastEstimator();  // totals only, numbers in: for many configurations
// Works in browsers (served over http) and in Node 20. Every failure throws an Error whose message
// names the field; `error.errors` holds the core's [{field, message}] list.
import createMemplanCore from './memplan-core.js';

/** Thrown for invalid input; `errors` lists every problem the core found. */
export class MemplanError extends Error {
  constructor(message, errors) {
    super(message);
    this.name = 'MemplanError';
    this.errors = errors;
    this.field = errors.length ? errors[0].field : undefined;
  }
}

// Estimate errors read "parallel.tp: must divide ..."; the ZeRO card's functions raise like its
// Python ValueError: "stage must be 0, 1, 2 or 3".
function fail(errors, separator) {
  const message = errors.map((e) => e.field + separator + e.message).join('; ');
  throw new MemplanError(message, errors);
}

/** The dotted path of the first NaN or infinity in `value` (JSON.stringify would silently write null), or null. */
function nonFinitePath(value, path, depth = 0) {
  if (typeof value === 'number') return Number.isFinite(value) ? null : path;
  if (!value || typeof value !== 'object' || depth > 32) return null;
  for (const [key, inner] of Object.entries(value)) {
    const found = nonFinitePath(inner, path ? path + '.' + key : key, depth + 1);
    if (found !== null) return found;
  }
  return null;
}

function configText(config, field = 'config') {
  if (typeof config === 'string') return config;
  if (config === null || typeof config !== 'object' || Array.isArray(config))
    fail([{ field, message: 'must be a JSON object' }], ': ');
  const bad = nonFinitePath(config, field === 'config' ? '' : field);
  if (bad !== null) fail([{ field: bad, message: 'must be a finite number (NaN and infinities have no JSON form)' }], ': ');
  try {
    return JSON.stringify(config);
  } catch (cause) {  // BigInt values, cycles
    fail([{ field, message: 'cannot be serialised as JSON (' + cause.message + ')' }], ': ');
  }
  return '';
}

/** The Hugging Face config of the options ({hfConfig}) as text; '' when none is given. */
function hfText(options) {
  if (options === undefined || options === null) return '';
  if (typeof options !== 'object' || Array.isArray(options))
    fail([{ field: 'options', message: 'must be an object such as {hfConfig}' }], ': ');
  const hf = options.hfConfig;
  if (hf === undefined || hf === null || hf === '') return '';
  return configText(hf, 'hf_config');
}

function deepFreeze(value) {
  if (value && typeof value === 'object') {
    for (const inner of Object.values(value)) deepFreeze(inner);
    Object.freeze(value);
  }
  return value;
}

function asNumber(value) {
  // The core rejects NaN, infinities, fractions and out-of-range values by name; other types become NaN.
  return typeof value === 'number' ? value : NaN;
}

/** Wraps a loaded core module in the public API. */
export function wrap(core) {
  const seed = (text) => {
    const out = JSON.parse(text);
    if (out.errors.length) fail(out.errors, ' ');
    return out.value;
  };
  const checked = (text) => {
    const out = JSON.parse(text);
    if (out.errors.length) fail(out.errors, ': ');
    return out;
  };
  /** A stored document read the first time it is asked for, then frozen and kept. */
  const once = (read) => {
    let value = null;
    return () => (value ??= deepFreeze(read()));
  };
  return Object.freeze({
    /** Model-state bytes per GPU of mixed-precision Adam under ZeRO: 16Ψ, 4Ψ+12Ψ/N, 2Ψ+14Ψ/N, 16Ψ/N. */
    modelStateBytes: (params, gpus, stage) =>
      seed(core.modelStateBytes(asNumber(params), asNumber(gpus), asNumber(stage))),
    /** Largest parameter count whose model states fit in gpuBytes per GPU (exact, rounded down). */
    maxParams: (gpuBytes, gpus, stage) =>
      seed(core.maxParams(asNumber(gpuBytes), asNumber(gpus), asNumber(stage))),
    /**
     * The CLI's `memplan estimate` result object for a configuration object (schema v1);
     * options.hfConfig (a Hugging Face config.json, object or text) replaces the model, as --hf-config.
     */
    estimate: (config, options) => checked(core.estimate(configText(config), hfText(options))),
    /** The page's derived views: {estimate, stages, suggestions, sweep, limits, errors}; options as estimate. */
    analyze: (config, options) => checked(core.analyze(configText(config), hfText(options))),
    /**
     * The layout planner (`memplan plan --json`): request {config, gpu: id, gpus | min_gpus & max_gpus,
     * global_batch (training), top_n, gemm_efficiency, attention_efficiency, tp_within_node} →
     * {mode, gpu, top: [ranked layouts with memory and step-time rows], considered, fitting, rejected, empty_reason, errors}.
     */
    plan: (request) => checked(core.plan(JSON.stringify(request ?? {}))),
    /** memplan beside DeepSpeed, Megatron-LM, EleutherAI's calculators and accelerate: {memplan, tools, deepspeed_buffers, errors}. */
    compare: (config, options) => checked(core.compare(configText(config), hfText(options))),
    /** Preset ids matching what a person typed ("llama3 70b", "meta-llama/Llama-3.1-8B"), best first. */
    searchPresets: (query) => JSON.parse(core.searchPresets(String(query ?? ''))),
    /** GPU ids of mp.gpus() matching what a person typed ("h100 sxm", "4090"), best first. */
    searchGpus: (query) => JSON.parse(core.searchGpus(String(query ?? ''))),
    /** JSON text in, JSON text out, errors as data: exactly what `memplan estimate` prints (without its newline). */
    estimateJson: (text, hfConfigText = '') => core.estimate(String(text), String(hfConfigText ?? '')),
    /** analyze() as JSON text in and out, errors as data. */
    analyzeJson: (text, hfConfigText = '') => core.analyze(String(text), String(hfConfigText ?? '')),
    /**
     * Which stored models fit this setup: every preset estimated with the rest of the configuration
     * unchanged: [{id, name, params, total_bytes, fits, beyond_context_limit}] in catalogue order (fits null without a GPU
     * size); presets the setup cannot hold are left out. An invalid configuration throws MemplanError.
     */
    presetFits: (config) => checked(core.presetFits(configText(config))).models,
    /** The stored model presets (core/data/models.json's `models`), parsed once and frozen. */
    presets: once(() => JSON.parse(core.presets()).models),
    /** The configuration schema: {version, fields: [{path, type, min, max, default, choices, label, help, unit, modes, message}], limits}, parsed once. */
    schema: once(() => JSON.parse(core.schema())),
    /** The GPU catalogue (core/data/gpus.json's `gpus`, each with the core's capacity_bytes for fit verdicts), parsed once and frozen. */
    gpus: once(() => JSON.parse(core.gpus()).gpus),
    /**
     * The fine-tuning recipes (core/data/recipes.json's `recipes`: [{id, label, source, values}], values
     * mapping configuration paths to values), parsed once and frozen; `memplan recipes`, `--recipe ID`.
     */
    recipes: once(() => JSON.parse(core.recipes()).recipes),
    /**
     * How each row of the per-GPU breakdown is computed, per run mode (core/data/explanations.json):
     * {train: [{key, label, formula, source}], infer: [...]}, rows in the order of per_gpu, the total
     * last; parsed once and frozen (`memplan explain`).
     */
    explanations: once(() => JSON.parse(core.explanations()).modes),
    /**
     * The serving engines reproduced (`memplan engines`): {engines: [{id, label, version, share_field,
     * share_flag, share_of, budget}], budget_terms: [{key, label, formula}]}, parsed once and frozen.
     */
    engines: once(() => JSON.parse(core.engines())),
    /**
     * A number as people write it ("8B", "8k", "80 GiB", "8,000,000,000", "1.5M"), read by the core's
     * parser (the CLI's): a whole number from 0 to max (default 2^53), or a MemplanError naming `field`.
     */
    parseQuantity: (text, field = 'value', max = 9007199254740992) => {
      const name = String(field);
      if (typeof text !== 'string') fail([{ field: name, message: 'must be text such as "80 GiB" or "7e9"' }], ': ');
      return checked(core.parseQuantity(text, name, asNumber(max))).value;
    },
    /**
     * The model a configuration describes (preset, Hugging Face config, overrides applied) as explicit
     * memplan model keys, with its exact parameter counts: {model, params, params_active}.
     */
    resolveModel: (config, options) => {
      const out = checked(core.resolveModel(configText(config), hfText(options)));
      delete out.errors;
      return out;
    },
  });
}

const isNode = typeof process === 'object' && !!(process.versions && process.versions.node) &&
  typeof window === 'undefined';

// Node 20's fetch cannot load file paths for Emscripten 3.1.6: the binary is read from the file next to
// this module. The module name is not a literal, so that browser bundlers (esbuild, Vite, webpack) do not
// try to bundle a Node built-in; browsers never reach this line.
const NODE_FS = 'node:fs/promises';
async function readWasmFile() {
  const fs = await import(/* @vite-ignore */ /* webpackIgnore: true */ NODE_FS);
  return fs.readFile(new URL('./memplan-core.wasm', import.meta.url));
}

/** A new instance of the core module. Options: {wasmBinary, wasmUrl}. */
async function instantiateCore(options) {
  const settings = {};
  if (options.wasmBinary) {
    settings.wasmBinary = options.wasmBinary;
  } else if (isNode) {
    settings.wasmBinary = await readWasmFile();
  }
  if (options.wasmUrl) settings.locateFile = () => String(options.wasmUrl);
  return createMemplanCore(settings);
}

async function instantiate(options) {
  return wrap(await instantiateCore(options));
}

let loading = null;

/** Loads the module once; later calls return the same promise. Options: {wasmBinary, wasmUrl}. */
export function load(options = {}) {
  if (!loading) {
    loading = instantiate(options);
    loading.catch(() => { loading = null; });  // allow a retry after a failed load
  }
  return loading;
}

/**
 * A totals-only estimator for evaluating many configurations (searches, benchmarks). estimate(config)
 * returns exactly {params, data_parallel, per_gpu, gpu?, warnings} of mp.estimate(config) — the same
 * numbers — without JSON text: each configuration field goes to the core as one number (a model
 * section is read once per distinct model and remembered). Whatever the numbers cannot carry (text
 * fields, out-of-range values, warnings, errors, serving engines, options.hfConfig) goes through the
 * JSON path, which throws a MemplanError naming the field as mp.estimate() does.
 * Loads its own instance of the module; options as load().
 */
export async function loadFastEstimator(options = {}) {
  const core = await instantiateCore(options);
  const fast = new core.FastEstimator();
  // The configuration fields the input numbers address, and the output's slots by name, as the core
  // numbers them (memplan/api/fast_estimate.hpp numeric_slot).
  const { fields, slots } = JSON.parse(fast.fields());
  // Field indices by section and key ("" = the top level), looked up without building paths.
  const bySection = new Map([['', new Map()]]);
  fields.forEach((f, i) => {
    const dot = f.path.lastIndexOf('.');
    const section = dot < 0 ? '' : f.path.slice(0, dot);
    if (!bySection.has(section)) bySection.set(section, new Map());
    bySection.get(section).set(f.path.slice(dot + 1), i);
  });
  const topLevel = bySection.get('');
  const models = new Map();
  const finiteOnly = (key, value) => (typeof value === 'number' && !Number.isFinite(value) ? { non_finite: String(value) } : value);
  const count = fields.length;
  const at = Object.fromEntries(slots.map((s, i) => [s, i]));
  const inBase = fast.inputAddress() / 8;
  const outBase = fast.outputAddress() / 8;
  const slow = (config) => {
    const out = JSON.parse(core.estimate(configText(config), ''));
    if (out.errors.length) fail(out.errors, ': ');
    const result = { params: out.params, data_parallel: out.data_parallel, per_gpu: out.per_gpu };
    if (out.gpu) result.gpu = out.gpu;
    result.warnings = out.warnings;
    return result;
  };
  // One field's number, or undefined when only the JSON path can read it. Kinds: 0 integer or bytes,
  // 1 boolean, 2 choice, 3 anything else (text).
  const kinds = fields.map((f) => (f.type === 'integer' || f.type === 'bytes' ? 0 : f.type === 'boolean' ? 1 : f.type === 'choice' ? 2 : 3));
  const encode = (i, value) => {
    const field = fields[i];
    if (value === null && field.optional) return NaN;
    switch (kinds[i]) {
      case 0: return Number.isFinite(value) ? value : undefined;
      case 1: return value === true ? 1 : value === false ? 0 : undefined;
      case 2: {
        const k = typeof value === 'string' ? field.choices.indexOf(value) : -1;
        return k < 0 ? undefined : k;
      }
      default: return undefined;
    }
  };
  const put = (heap, keys, key, value) => {
    const i = keys.get(key);
    if (i === undefined) return false;
    const v = encode(i, value);
    if (v === undefined) return false;
    heap[inBase + i] = v;
    return true;
  };
  // run() through its plain export (embind's method call costs as much as the estimate itself).
  const self = fast.address();
  core._memplan_fast_run(self, -1);  // the first call swaps Emscripten's forwarding stub for the export itself
  const run = core._memplan_fast_run;
  // The model's id: its JSON text looked up (read once per distinct text). A model object seen before
  // whose own keys and values (numbers, strings, booleans only) are all unchanged, compared one by one,
  // reuses its id without JSON.stringify (a third of the JS time of an estimate).
  const seen = new WeakMap();
  const plain = (v) => (typeof v === 'number' && Number.isFinite(v)) || typeof v === 'string' || typeof v === 'boolean';
  const unchanged = (m, entry) => {
    let n = 0;
    for (const k in m) {
      if (!Object.hasOwn(m, k)) return false;
      if (n >= entry.keys.length || entry.keys[n] !== k || m[k] !== entry.values[n]) return false;
      n++;
    }
    return n === entry.keys.length;
  };
  const modelId = (m) => {
    const object = m !== null && typeof m === 'object' && !Array.isArray(m);
    const entry = object ? seen.get(m) : undefined;
    if (entry !== undefined && unchanged(m, entry)) return entry.id;
    // JSON.stringify writes NaN and ±Infinity as null: where a null appears, they are marked instead,
    // so that such a model never matches a cached one and is refused (the JSON path names the field).
    let modelText = JSON.stringify(m === undefined ? {} : m);
    if (modelText.includes('null')) modelText = JSON.stringify(m, finiteOnly);
    let id = models.get(modelText);
    if (id === undefined) {
      id = models.size < 4096 ? fast.addModel(modelText) : -1;
      if (models.size < 4096) models.set(modelText, id);
    }
    if (object) {
      const keys = [], values = [];
      let cacheable = true;
      for (const k in m) {
        if (!Object.hasOwn(m, k) || !plain(m[k])) { cacheable = false; break; }
        keys.push(k);
        values.push(m[k]);
      }
      if (cacheable) seen.set(m, { keys, values, id });
    }
    return id;
  };
  return Object.freeze({
    estimate(config, estimateOptions) {
      if (config === null || typeof config !== 'object' || Array.isArray(config) || estimateOptions?.hfConfig !== undefined)
        return slow(config);
      const model = modelId(config.model);
      if (model < 0) return slow(config);
      const heap = core.HEAPF64;  // re-read: memory growth replaces the view
      heap.fill(NaN, inBase, inBase + count);
      for (const key of Object.keys(config)) {
        const value = config[key];
        if (key === 'model') continue;
        if (key === 'version') { if (value === 1) continue; return slow(config); }
        const keys = key === '' ? undefined : bySection.get(key);
        if (keys !== undefined && value !== null && typeof value === 'object' && !Array.isArray(value)) {
          for (const sub in value) if (Object.hasOwn(value, sub) && !put(heap, keys, sub, value[sub])) return slow(config);
        } else if (!put(heap, topLevel, key, value)) return slow(config);
      }
      if (run(self, model) !== 1) return slow(config);
      const o = core.HEAPF64;
      const b = outBase;
      const result = {
        params: o[b + at.params], data_parallel: o[b + at.data_parallel],
        per_gpu: {
          weights: o[b + at.weights], gradients: o[b + at.gradients], optimizer_states: o[b + at.optimizer_states],
          activations: o[b + at.activations], logits: o[b + at.logits], communication: o[b + at.communication],
          kv_cache: o[b + at.kv_cache], dequant_workspace: o[b + at.dequant_workspace], misc: o[b + at.misc],
          total: o[b + at.total],
        },
      };
      if (o[b + at.has_capacity] === 1)
        result.gpu = { fits: o[b + at.fits] === 1, headroom_bytes: o[b + at.headroom_bytes],
          shortfall_bytes: o[b + at.shortfall_bytes], capacity_bytes: o[b + at.capacity_bytes] };
      result.warnings = [];
      return result;
    },
  });
}
