// memplan — the JavaScript API of the WebAssembly core (dist/memplan.js).
//   import { load } from './memplan.js';
//   const mp = await load();
//   mp.modelStateBytes(7e9, 8, 1);   // 38500000000
//   mp.estimate({ model: { params: 7e9, ... }, parallel: { gpus: 8 } });
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

function configText(config) {
  if (typeof config === 'string') return config;
  if (config === null || typeof config !== 'object' || Array.isArray(config))
    fail([{ field: 'config', message: 'must be a JSON object' }], ': ');
  try {
    return JSON.stringify(config);
  } catch (cause) {  // BigInt values, cycles
    fail([{ field: 'config', message: 'cannot be serialised as JSON (' + cause.message + ')' }], ': ');
  }
  return '';
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
  return Object.freeze({
    /** Model-state bytes per GPU of mixed-precision Adam under ZeRO: 16Ψ, 4Ψ+12Ψ/N, 2Ψ+14Ψ/N, 16Ψ/N. */
    modelStateBytes: (params, gpus, stage) =>
      seed(core.modelStateBytes(asNumber(params), asNumber(gpus), asNumber(stage))),
    /** Largest parameter count whose model states fit in gpuBytes per GPU (exact, rounded down). */
    maxParams: (gpuBytes, gpus, stage) =>
      seed(core.maxParams(asNumber(gpuBytes), asNumber(gpus), asNumber(stage))),
    /** The CLI's `memplan estimate` result object for a configuration object (schema v1). */
    estimate: (config) => checked(core.estimate(configText(config))),
    /** The page's derived views: {estimate, stages, suggestions, sweep, errors}. */
    analyze: (config) => checked(core.analyze(configText(config))),
    /** JSON text in, JSON text out, errors as data: exactly what `memplan estimate` prints (without its newline). */
    estimateJson: (text) => core.estimate(String(text)),
    /** analyze() as JSON text in and out, errors as data. */
    analyzeJson: (text) => core.analyze(String(text)),
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
