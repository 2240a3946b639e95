// memplan — the JavaScript API over a loaded WebAssembly core, shared by the full module (memplan.js:
// the estimate and every analysis) and the estimate-only one (memplan-lite.js: what an embedded answer
// needs, a smaller download). Each entry file gives this module its own Emscripten factory and .wasm.
// Every failure throws an Error whose message names the field; `error.errors` holds the core's
// [{field, message}] list.

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
export function fail(errors, separator) {
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

export function configText(config, field = 'config') {
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

/** The options object ({hfConfig, recipe}), or undefined when none is given. */
function optionsOf(options) {
  if (options === undefined || options === null) return undefined;
  if (typeof options !== 'object' || Array.isArray(options))
    fail([{ field: 'options', message: 'must be an object such as {hfConfig} or {recipe}' }], ': ');
  return options;
}

/** The fine-tuning recipe id of the options ({recipe}); '' when none is given. The core checks the id. */
export function recipeText(options) {
  const recipe = optionsOf(options)?.recipe;
  if (recipe === undefined || recipe === null || recipe === '') return '';
  if (typeof recipe !== 'string') fail([{ field: 'recipe', message: 'must be a recipe id (text) such as "qlora"' }], ': ');
  return recipe;
}

/** The Hugging Face config of the options ({hfConfig}) as text; '' when none is given. */
export function hfText(options) {
  if (optionsOf(options) === undefined) return '';
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

/**
 * Wraps a loaded core module in the public API. A function the module does not have (the
 * estimate-only module of memplan-lite.js has no analyses) throws a MemplanError naming it.
 */
export function wrap(core) {
  const absent = (name) => (...args) => fail([{ field: name,
    message: 'is not in the estimate-only module (memplan-lite.js); import load from memplan.js for it' }], ' ');
  for (const name of ['modelStateBytes', 'maxParams', 'analyze', 'plan', 'compare', 'searchPresets', 'presetFits', 'engines', 'frameworks', 'resolveModel',
    'hubModel', 'safetensorsRange', 'safetensorsIndex', 'checkpointHeaders', 'checkpointApi', 'dayOneHeaders'])
    if (typeof core[name] !== 'function') core = Object.assign(Object.create(core), { [name]: absent(name) });
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
     * options.hfConfig (a Hugging Face config.json, object or text) replaces the model, as --hf-config;
     * options.recipe (a fine-tuning recipe id of mp.recipes()) sets its values over the configuration, as --recipe.
     */
    estimate: (config, options) => checked(core.estimate(configText(config), hfText(options), recipeText(options))),
    /** The page's derived views: {estimate, stages, suggestions, sweep, limits, errors}; options as estimate. */
    analyze: (config, options) => checked(core.analyze(configText(config), hfText(options))),
    /**
     * The layout planner (`memplan plan --json`): request {config, gpu: id, gpus | min_gpus & max_gpus,
     * global_batch (training), top_n, gemm_efficiency, attention_efficiency, tp_within_node} →
     * {mode, gpu, top: [ranked layouts with memory and step-time rows], considered, fitting, rejected, empty_reason, warnings, errors}.
     */
    plan: (request) => checked(core.plan(configText(request ?? {}, 'plan'))),
    /**
     * plan() one GPU count at a time, counts ascending: yields the answer after each count (the core's
     * ranking of the counts searched so far, `done: false`), the last being plan()'s exactly. Leaving
     * the loop early frees the core's search.
     */
    planSteps: function* planSteps(request) {
      if (typeof core.PlanStream !== 'function') absent('planSteps')();
      const stream = new core.PlanStream(configText(request ?? {}, 'plan'));
      try {
        for (;;) {
          const answer = checked(stream.step());
          yield answer;
          if (answer.done) return;
        }
      } finally {
        stream.delete();
      }
    },
    /** memplan beside DeepSpeed, Megatron-LM, EleutherAI's calculators and accelerate: {memplan, tools, deepspeed_buffers, errors}. */
    compare: (config, options) => checked(core.compare(configText(config), hfText(options))),
    /** Preset ids matching what a person typed ("llama3 70b", "meta-llama/Llama-3.1-8B"), best first. */
    searchPresets: (query) => JSON.parse(core.searchPresets(String(query ?? ''))),
    /** GPU ids of mp.gpus() matching what a person typed ("h100 sxm", "4090"), best first. */
    searchGpus: (query) => JSON.parse(core.searchGpus(String(query ?? ''))),
    /** JSON text in, JSON text out, errors as data: exactly what `memplan estimate` prints (without its newline). */
    estimateJson: (text, hfConfigText = '') => core.estimate(String(text), String(hfConfigText ?? ''), ''),
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
    /**
     * Every preset's {id, name, source} in catalogue order, parsed once and frozen: what a list or a label needs,
     * without presets()' counts (each model counted by the core: slow on a module's first calls).
     */
    presetNames: once(() => JSON.parse(core.presetNames()).models),
    /** The configuration schema: {version, fields: [{path, type, min, max, default, choices, label, help, unit, modes, message}], limits}, parsed once. */
    schema: once(() => JSON.parse(core.schema())),
    /** The GPU catalogue (core/data/gpus.json's `gpus`, each with the core's capacity_bytes for fit verdicts), parsed once and frozen. */
    gpus: once(() => JSON.parse(core.gpus()).gpus),
    /** One catalogue GPU by its exact id: {id, name, capacity_bytes}, or null (without reading the whole catalogue). */
    gpu: (id) => JSON.parse(core.gpu(String(id ?? ''))),
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
     * The training frameworks train.framework names (`memplan frameworks`): {frameworks: [{id, label,
     * version, logs, log_text, log_unit, conventions, source}], reserved_band: {low_permille,
     * median_permille, high_permille, measurements}}, parsed once and frozen.
     */
    frameworks: once(() => JSON.parse(core.frameworks())),
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
     * A number field's text read as that field reads it (the schema's `kind`: "32K" tokens = 32,768 as
     * vLLM reads it, "90%" or "0.9" for a fraction, "80GB" for a size, "7B" parameters): {value, text:
     * the value in words ("32,768 tokens", "90%"), note: how the text was read where it matters ("" else)},
     * or a MemplanError naming the field and what it accepts.
     */
    parseField: (text, path) => {
      const name = String(path);
      if (typeof text !== 'string') fail([{ field: name, message: 'must be text such as "32K" or "0.9"' }], ': ');
      const out = checked(core.parseField(text, name));
      return { value: out.value, text: out.text, note: out.note };
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
    /**
     * A Hugging Face Hub model as typed ("org/name", "org/name@revision" or its huggingface.co link):
     * {id, revision, link, files_url, api_url} (a file's address is files_url + its name); a
     * MemplanError naming hub.model when it is none of these.
     */
    hubModel: (text) => {
      const out = checked(core.hubModel(String(text ?? '')));
      delete out.errors;
      return out;
    },
    /**
     * The second range request of a safetensors file: from the reply to "Range: bytes=0-7" (its bytes,
     * a Uint8Array or array, and its Content-Range header, '' or null when absent) → {length, range:
     * the Range header to send next, file_bytes}; a header length beyond 100,000,000 bytes or beyond
     * the file throws a MemplanError naming `file`.
     */
    safetensorsRange: (bytes, contentRange, file) => {
      const out = checked(core.safetensorsRange(Uint8Array.from(bytes ?? []), String(contentRange ?? ''), String(file)));
      delete out.errors;
      return out;
    },
    /** The shard files a model.safetensors.index.json text names, each once; a name pointing outside the folder throws naming `file`. */
    safetensorsIndex: (text, file = 'model.safetensors.index.json') => checked(core.safetensorsIndex(String(text), String(file))).files,
    /**
     * `memplan checkpoint` from headers fetched: hfConfig (config.json, text or object) and headers
     * [{file, length: stated by its first 8 bytes, header: its JSON text}] → {model_type, params,
     * stored: {values, bytes, tensors, by_dtype}, parts: [{part, memplan, stored, difference, larger,
     * note}], unexplained}. A truncated or malformed header throws a MemplanError naming its file.
     */
    checkpointHeaders: (hfConfig, headers) => {
      const out = checked(core.checkpointHeaders(configText(hfConfig, 'hf_config'), JSON.stringify(headers ?? [])));
      delete out.errors;
      return out;
    },
    /**
     * The day-one path from headers fetched: a config.json memplan's families refuse (hfConfig, text or
     * object) and its checkpoint's headers (as checkpointHeaders takes them) → {model: memplan model keys
     * (params, stored_weight_bytes, the sizes the config declares) | null, stored: {tensors, values, bytes,
     * by_dtype} | null, assumptions: ["…"], the families' refusal first}. A config the families read, one
     * lacking the layers, width or heads, or a malformed header throws a MemplanError naming the key or file.
     */
    dayOneHeaders: (hfConfig, headers) => {
      const out = checked(core.dayOneHeaders(configText(hfConfig, 'hf_config'), JSON.stringify(headers ?? [])));
      delete out.errors;
      return out;
    },
    /**
     * memplan's count beside the Hub API's per-dtype counts (apiReply: the text or object of
     * /api/models/ID/revision/REV) → {model_type, params, stored: {values, bytes, by_dtype}, api_total,
     * difference, larger, note}; for when the safetensors headers cannot be read.
     */
    checkpointApi: (hfConfig, apiReply) => {
      const out = checked(core.checkpointApi(configText(hfConfig, 'hf_config'), typeof apiReply === 'string' ? apiReply : configText(apiReply, 'api')));
      delete out.errors;
      return out;
    },
  });
}


const isNode = typeof process === 'object' && !!(process.versions && process.versions.node) &&
  typeof window === 'undefined';

// Node 20's fetch cannot load file paths for Emscripten 3.1.6: the binary is read from the file next to
// the entry module (wasmFile() gives its URL from the entry's import.meta.url, asked only in Node: a
// single-file page has no import.meta). The module name is not a
// literal, so that browser bundlers (esbuild, Vite, webpack) do not try to bundle a Node built-in;
// browsers never reach this line.
const NODE_FS = 'node:fs/promises';
async function readWasmFile(wasmFile) {
  const fs = await import(/* @vite-ignore */ /* webpackIgnore: true */ NODE_FS);
  return fs.readFile(wasmFile());
}

/**
 * A loader of one core module: createCore is its Emscripten factory, wasmFile a function giving the URL
 * of its .wasm (read from disk in Node). Returns {instantiate(options), load(options)}: a new instance, and the
 * wrapped API loaded once (later calls return the same promise). Options: {wasmBinary, wasmUrl,
 * wasmModule}: wasmModule, the .wasm already compiled (a WebAssembly.Module), is instantiated as it is
 * (the factory's instantiateWasm hook), so that a page can compile it while its script still loads.
 */
export function coreLoader(createCore, wasmFile) {
  const instantiate = async (options = {}) => {
    const settings = {};
    if (options.wasmModule) {
      let refuse;
      const refused = new Promise((_, reject) => { refuse = reject; });
      settings.instantiateWasm = (imports, receive) => {
        WebAssembly.instantiate(options.wasmModule, imports).then((instance) => receive(instance), refuse);
        return {};
      };
      return Promise.race([createCore(settings), refused]);
    }
    if (options.wasmBinary) {
      settings.wasmBinary = options.wasmBinary;
    } else if (isNode) {
      settings.wasmBinary = await readWasmFile(wasmFile);
    }
    if (options.wasmUrl) settings.locateFile = () => String(options.wasmUrl);
    return createCore(settings);
  };
  let loading = null;
  const load = (options = {}) => {
    if (!loading) {
      loading = instantiate(options).then(wrap);
      loading.catch(() => { loading = null; });  // allow a retry after a failed load
    }
    return loading;
  };
  return { instantiate, load };
}
