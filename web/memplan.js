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
  let presets = null;
  let schema = null;
  let gpus = null;
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
    /** JSON text in, JSON text out, errors as data: exactly what `memplan estimate` prints (without its newline). */
    estimateJson: (text, hfConfigText = '') => core.estimate(String(text), String(hfConfigText ?? '')),
    /** analyze() as JSON text in and out, errors as data. */
    analyzeJson: (text, hfConfigText = '') => core.analyze(String(text), String(hfConfigText ?? '')),
    /** The stored model presets (core/data/models.json's `models`), parsed once and frozen. */
    presets: () => {
      if (!presets) presets = deepFreeze(JSON.parse(core.presets()).models);
      return presets;
    },
    /** The configuration schema: {version, fields: [{path, type, min, max, default, choices, label, help, unit, modes, message}], limits}, parsed once. */
    schema: () => {
      if (!schema) schema = deepFreeze(JSON.parse(core.schema()));
      return schema;
    },
    /** The GPU catalogue (core/data/gpus.json's `gpus`, each with the core's capacity_bytes for fit verdicts), parsed once and frozen. */
    gpus: () => {
      if (!gpus) gpus = deepFreeze(JSON.parse(core.gpus()).gpus);
      return gpus;
    },
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

async function instantiate(options) {
  const settings = {};
  if (options.wasmBinary) {
    settings.wasmBinary = options.wasmBinary;
  } else if (isNode) {
    // Node 20's fetch cannot load file paths for Emscripten 3.1.6: read the binary ourselves.
    const fs = await import('node:fs/promises');
    settings.wasmBinary = await fs.readFile(new URL('./memplan-core.wasm', import.meta.url));
  }
  if (options.wasmUrl) settings.locateFile = () => String(options.wasmUrl);
  return wrap(await createMemplanCore(settings));
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
