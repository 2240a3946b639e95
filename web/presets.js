// memplan page — the page's own data: GPU capacities, the page-only settings and the example the page
// opens with. Configuration fields, their ranges and defaults are not here: they come from the core's
// schema (mp.schema(), see schema.js); model presets come from the core too (core/data/models.json
// through mp.presets()), the one source shared with the CLI. GPU capacities are the vendors' figures in
// GB (10^9 bytes). No DOM here.

/** GPU memory presets: id, label and capacity in bytes (vendor's GB × 10^9). */
export const GPU_PRESETS = Object.freeze([
  { id: 'h100-80', label: 'NVIDIA H100 80 GB', bytes: 80e9 },
  { id: 'h200-141', label: 'NVIDIA H200 141 GB', bytes: 141e9 },
  { id: 'a100-80', label: 'NVIDIA A100 80 GB', bytes: 80e9 },
  { id: 'a100-40', label: 'NVIDIA A100 40 GB', bytes: 40e9 },
  { id: 'mi300x-192', label: 'AMD MI300X 192 GB', bytes: 192e9 },
  { id: 'l40s-48', label: 'NVIDIA L40S 48 GB', bytes: 48e9 },
  { id: 'rtx4090-24', label: 'NVIDIA RTX 4090 24 GB', bytes: 24e9 },
].map(Object.freeze));

/**
 * Settings of the page itself, not of the configuration: the model preset picked (its fields are
 * written into the form), the GPU picked or a custom size typed in GB, the framework overhead typed in
 * GB, and the unit sizes are shown in.
 */
export const PAGE_SETTINGS = Object.freeze({
  'model.preset': '',
  'gpu.preset': 'h100-80',
  'gpu.custom_gb': '80',
  'overhead.misc_gb': '0',
  'unit': 'GiB',
});

/**
 * The workload the page opens with (a link lists its changes from this): a 20B GPT-style model, 44
 * layers of width 6144 with 64 heads, training under ZeRO stage 1 on 8 GPUs. An example, not a
 * default: every other field starts at the core's default.
 */
export const STARTING_EXAMPLE = Object.freeze({
  'model.params': '20e9',
  'model.num_hidden_layers': '44',
  'model.hidden_size': '6144',
  'model.num_attention_heads': '64',
  'parallel.gpus': '8',
  'parallel.zero_stage': '1',
});
