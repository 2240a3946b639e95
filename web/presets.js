// memplan page — the page's own data: GPU capacities and the starting state. Model presets are not
// here: they come from the core (core/data/models.json through mp.presets()), the one source shared
// with the CLI. GPU capacities are the vendors' figures in GB (10^9 bytes). No DOM here.

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
 * Model fields of the form: every key of the core's model object (docs/schema.md), with the value
 * of the core's GPT-style defaults (model_config in core/include/memplan/estimate.hpp). The page
 * always sends them explicitly, so a preset or a pasted config.json is reproduced by these keys alone.
 */
export const MODEL_DEFAULTS = Object.freeze({
  'model.model_type': '',
  'model.params': '',
  'model.num_hidden_layers': '',
  'model.hidden_size': '',
  'model.num_attention_heads': '',
  'model.num_key_value_heads': '',
  'model.head_dim': '',
  'model.intermediate_size': '',
  'model.vocab_size': '',
  'model.tie_word_embeddings': true,
  'model.learned_positions': '0',
  'model.norm': 'layernorm',
  'model.norms_per_layer': '2',
  'model.mlp': 'plain',
  'model.qkv_bias': true,
  'model.attention_out_bias': true,
  'model.mlp_bias': true,
  'model.dropout': true,
  'model.num_local_experts': '0',
  'model.num_experts_per_tok': '0',
  'model.moe_intermediate_size': '',
  'model.shared_expert_intermediate_size': '0',
  'model.sliding_window': '0',
  'model.sliding_window_layers': '0',
});

/** The page's starting state: the seed script's default model training on 8 × H100 80 GB. Form field name → text. */
export const DEFAULTS = Object.freeze({
  'mode': 'train',
  'model.preset': '',
  ...MODEL_DEFAULTS,
  'model.params': '20e9',
  'model.num_hidden_layers': '44',
  'model.hidden_size': '6144',
  'model.num_attention_heads': '64',
  'parallel.gpus': '8',
  'parallel.tp': '1',
  'parallel.pp': '1',
  'parallel.cp': '1',
  'parallel.ep': '1',
  'parallel.virtual_stages': '1',
  'parallel.zero_stage': '1',
  'parallel.fsdp': '',
  'parallel.zero_shard_size': '',
  'parallel.sequence_parallel': false,
  'parallel.partition_activations': false,
  'parallel.zero_bucket_params': '5e8',
  'parallel.zero3_max_live_params': '1e9',
  'parallel.offload_optimizer': 'none',
  'parallel.offload_params': 'none',
  'parallel.gpus_per_node': '8',
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
  'infer.prefill_tokens': '',
  'infer.weight_dtype': 'bf16',
  'infer.quant_group_size': '',
  'infer.kv_dtype': 'bf16',
  'infer.flash_attention': true,
  'overhead.misc_gb': '0',
  'gpu.preset': 'h100-80',
  'gpu.custom_gb': '80',
  'unit': 'GiB',
});
