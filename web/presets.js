// memplan page — the page's own data: the page-only settings and the example the page opens with.
// Configuration fields, their ranges and defaults are not here: they come from the core's schema
// (mp.schema(), see schema.js); model presets and the GPU catalogue come from the core too
// (core/data/models.json through mp.presets(), core/data/gpus.json through mp.gpus()), the sources
// shared with the CLI. No DOM here.

/**
 * Settings of the page itself, not of the configuration: the model preset picked (its fields are
 * written into the form), the GPU picked or a custom size typed in GB, and the unit sizes are shown in.
 * (The CUDA context and overhead, typed in GB, starts at the core's default.)
 */
export const PAGE_SETTINGS = Object.freeze({
  'model.preset': '',
  'gpu.preset': 'h100-sxm-80gb',
  'gpu.custom_gb': '80',
  'unit': 'GiB',
});

/**
 * The question the page opens with (a link lists its changes from this): a popular current model
 * (Llama 3.1 8B, core/data/models.json) served with an 8k context on one H100 80GB — an example people
 * recognise, answered at once. Every other field starts at the core's default.
 */
export const STARTING_EXAMPLE = Object.freeze({
  'mode': 'infer',
  'model.preset': 'llama-3.1-8b',
  'infer.context_len': '8192',
  'parallel.gpus': '1',
});
