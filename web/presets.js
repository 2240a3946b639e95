// memplan page — presets, stored once as data. GPU capacities are the vendors' figures in GB (10^9 bytes).
// No DOM here.

/** GPU memory presets: id, label and capacity in bytes (vendor's GB × 10^9). */
export const GPU_PRESETS = Object.freeze([
  { id: 'h100-80', label: 'NVIDIA H100 80 GB', bytes: 80e9 },
  { id: 'h200-141', label: 'NVIDIA H200 141 GB', bytes: 141e9 },
  { id: 'a100-80', label: 'NVIDIA A100 80 GB', bytes: 80e9 },
  { id: 'a100-40', label: 'NVIDIA A100 40 GB', bytes: 40e9 },
  { id: 'mi300x-192', label: 'AMD MI300X 192 GB', bytes: 192e9 },
  { id: 'l40s-48', label: 'NVIDIA L40S 48 GB', bytes: 48e9 },
  { id: 'rtx4090-24', label: 'NVIDIA RTX 4090 24 GB', bytes: 24e9 },
]);

/**
 * Model presets: architecture fields with Hugging Face config.json names (the form's model.* inputs).
 * The Llama presets state their published exact parameter counts (Llama-2-7B 6,738,415,616;
 * Llama-3-8B 8,030,261,248; Llama-2-70B 68,976,648,192) because schema v1 has no field yet that tells
 * the core's architecture count about SwiGLU and untied embeddings.
 */
export const MODEL_PRESETS = Object.freeze([
  {
    id: 'seed-20b',
    label: 'Seed script default (20B, 44 layers, hidden 6144)',
    model: { params: '20e9', num_hidden_layers: '44', hidden_size: '6144', num_attention_heads: '64',
      num_key_value_heads: '', head_dim: '', intermediate_size: '', vocab_size: '' },
  },
  {
    id: 'llama2-7b',
    label: 'Llama-2-7B',
    model: { params: '6738415616', num_hidden_layers: '32', hidden_size: '4096', num_attention_heads: '32',
      num_key_value_heads: '32', head_dim: '', intermediate_size: '11008', vocab_size: '32000' },
  },
  {
    id: 'llama3-8b',
    label: 'Llama-3-8B',
    model: { params: '8030261248', num_hidden_layers: '32', hidden_size: '4096', num_attention_heads: '32',
      num_key_value_heads: '8', head_dim: '', intermediate_size: '14336', vocab_size: '128256' },
  },
  {
    id: 'llama2-70b',
    label: 'Llama-2-70B',
    model: { params: '68976648192', num_hidden_layers: '80', hidden_size: '8192', num_attention_heads: '64',
      num_key_value_heads: '8', head_dim: '', intermediate_size: '28672', vocab_size: '32000' },
  },
]);

/** The page's starting state: the seed script's default model training on 8 × H100 80 GB. Form field name → text. */
export const DEFAULTS = Object.freeze({
  'mode': 'train',
  'model.preset': 'seed-20b',
  'model.params': '20e9',
  'model.num_hidden_layers': '44',
  'model.hidden_size': '6144',
  'model.num_attention_heads': '64',
  'model.num_key_value_heads': '',
  'model.head_dim': '',
  'model.intermediate_size': '',
  'model.vocab_size': '',
  'parallel.gpus': '8',
  'parallel.tp': '1',
  'parallel.pp': '1',
  'parallel.zero_stage': '1',
  'parallel.sequence_parallel': false,
  'parallel.partition_activations': false,
  'parallel.zero_bucket_params': '5e8',
  'parallel.zero3_max_live_params': '1e9',
  'train.micro_batch': '1',
  'train.seq_len': '2048',
  'train.recompute': 'none',
  'train.flash_attention': false,
  'train.weight_dtype': 'bf16',
  'train.grad_dtype': 'bf16',
  'train.master_weights': true,
  'train.optimizer': 'adam',
  'train.microbatches_in_flight': '',
  'infer.batch': '1',
  'infer.context_len': '2048',
  'infer.weight_dtype': 'bf16',
  'infer.kv_dtype': 'bf16',
  'overhead.misc_gb': '0',
  'gpu.preset': 'h100-80',
  'gpu.custom_gb': '80',
  'unit': 'GiB',
});
