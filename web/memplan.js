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
//   mp.parseField('32K', 'infer.context_len');       // {value: 32768, text: '32,768 tokens', note: ''}
//   mp.recipes();                      // the fine-tuning recipes (core/data/recipes.json), parsed once
//   mp.explanations().train;           // how each breakdown row is computed (core/data/explanations.json)
//   mp.engines().engines;              // the serving engines reproduced, with their budget's terms
//   const fast = await loadFastEstimator();  // totals only, numbers in: for many configurations
// Works in browsers (served over http) and in Node 20. Every failure throws an Error whose message
// names the field; `error.errors` holds the core's [{field, message}] list.
import createMemplanCore from './memplan-core.js';
import { MemplanError, configText, coreLoader, fail, hfText, recipeText, wrap } from './memplan-api.js';

export { MemplanError, wrap };

const core = coreLoader(createMemplanCore, () => new URL('./memplan-core.wasm', import.meta.url));
const instantiateCore = core.instantiate;

/** Loads the module once; later calls return the same promise. Options: {wasmBinary, wasmUrl}. */
export const load = core.load;

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
  const slow = (config, estimateOptions) => {
    const out = JSON.parse(core.estimate(configText(config), hfText(estimateOptions), recipeText(estimateOptions)));
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
      if (config === null || typeof config !== 'object' || Array.isArray(config) || estimateOptions !== undefined)
        return slow(config, estimateOptions);
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
        result.gpu = { fits: o[b + at.fits] === 1, needed_bytes: o[b + at.needed_bytes], headroom_bytes: o[b + at.headroom_bytes],
          shortfall_bytes: o[b + at.shortfall_bytes], capacity_bytes: o[b + at.capacity_bytes] };
      result.warnings = [];
      return result;
    },
  });
}
