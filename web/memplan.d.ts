// memplan — TypeScript declarations of dist/memplan.js (hand-written; keep in step with web/memplan.js).

/** One problem with one input: `field` is a dotted path ("parallel.tp"), `message` says what is allowed. */
export interface FieldError {
  field: string;
  message: string;
}

/** Thrown by every function for invalid input. `message` names the field(s). */
export class MemplanError extends Error {
  readonly name: 'MemplanError';
  readonly errors: FieldError[];
  /** The first error's field. */
  readonly field: string | undefined;
}

export type Dtype = 'fp32' | 'bf16' | 'fp16' | 'fp8' | 'int8' | 'int4';

export type Offload = 'none' | 'cpu' | 'nvme';
export type Optimizer = 'adam' | 'adam_8bit' | 'sgd' | 'sgd_momentum' | 'lion' | 'adafactor' | 'none';
export type FsdpStrategy = 'full_shard' | 'shard_grad_op' | 'hybrid_shard' | 'hybrid_shard_zero2' | 'no_shard';

/** The model keys memplan reads (docs/schema.md); a Hugging Face config.json (with model_type) may carry any others. */
export interface ModelConfig {
  /** A stored model (Memplan.presets()); the other keys override it. */
  preset?: string;
  /** Hugging Face model_type: selects family defaults (llama, mistral, mixtral, qwen2, gemma2, phi3, gpt2, gpt_neox, …). */
  model_type?: string;
  /** Explicit parameter count; 0 or absent = counted exactly from the architecture. */
  params?: number;
  num_hidden_layers?: number;
  hidden_size?: number;
  num_attention_heads?: number;
  /** GQA/MQA; default = num_attention_heads. */
  num_key_value_heads?: number;
  /** default = hidden_size / num_attention_heads. */
  head_dim?: number;
  /** FFN width; default = 4 · hidden_size. */
  intermediate_size?: number;
  /** 0 or absent: no embeddings and no logits row. */
  vocab_size?: number;
  tie_word_embeddings?: boolean;
  /** Learned absolute positions (GPT-2 n_positions); 0 = none. */
  learned_positions?: number;
  norm?: 'layernorm' | 'rmsnorm';
  norms_per_layer?: number;
  mlp?: 'plain' | 'gated';
  qkv_bias?: boolean;
  attention_out_bias?: boolean;
  mlp_bias?: boolean;
  /** Dropout layers active in training. */
  dropout?: boolean;
  /** Routed experts per MoE layer; 0 = dense. */
  num_local_experts?: number;
  num_experts_per_tok?: number;
  moe_intermediate_size?: number;
  shared_expert_intermediate_size?: number;
  /** Tokens a sliding-window layer attends to; 0 = full attention. */
  sliding_window?: number;
  /** Layers using the window; 0 with a window = all layers. */
  sliding_window_layers?: number;
  [huggingFaceField: string]: unknown;
}

/** A configuration, schema v1 (docs/schema.md). Every key is optional; defaults as in the CLI. */
export interface Config {
  version?: 1;
  mode?: 'train' | 'infer';
  model?: ModelConfig;
  parallel?: {
    /** Total GPUs = dp × tp × pp × cp. */
    gpus?: number;
    tp?: number;
    pp?: number;
    /** Context parallelism: the sequence split across GPUs. */
    cp?: number;
    /** Expert parallelism: MoE experts split across GPUs of the data-parallel group. */
    ep?: number;
    /** Interleaved 1F1B model chunks per GPU. */
    virtual_stages?: number;
    zero_stage?: 0 | 1 | 2 | 3;
    /** PyTorch FSDP strategy as a name for a ZeRO stage (overrides zero_stage); hybrid_* shard within gpus_per_node. */
    fsdp?: FsdpStrategy;
    /** GPUs one ZeRO shard group spans; default the whole data-parallel group. */
    zero_shard_size?: number;
    sequence_parallel?: boolean;
    partition_activations?: boolean;
    zero_bucket_params?: number;
    zero3_max_live_params?: number;
    offload_optimizer?: Offload;
    /** Parameters off the GPU (ZeRO-3 / ZeRO-Infinity). */
    offload_params?: Offload;
    gpus_per_node?: number;
  };
  train?: {
    micro_batch?: number;
    seq_len?: number;
    recompute?: 'none' | 'selective' | 'full';
    flash_attention?: boolean;
    weight_dtype?: Dtype;
    grad_dtype?: Dtype;
    master_weights?: boolean;
    optimizer?: Optimizer;
    /** Activations the first stage holds; default pp (1F1B). */
    microbatches_in_flight?: number;
  };
  infer?: {
    batch?: number;
    context_len?: number;
    weight_dtype?: Dtype;
    kv_dtype?: Dtype;
    /** Weights quantized in groups of G with an fp16 scale and a zero point each; absent = no group overhead. */
    quant_group_size?: number;
    /** Prefill attention without a score matrix (default true). */
    flash_attention?: boolean;
    /** Tokens per sequence in one prefill pass (chunked prefill); default context_len. */
    prefill_tokens?: number;
  };
  overhead?: { misc_bytes?: number };
  gpu?: { memory_bytes?: number };
}

/** A Hugging Face config.json, as an object or its text. */
export type HfConfig = Record<string, unknown> | string;

export interface EstimateOptions {
  /** Replaces the configuration's model, as `memplan estimate --hf-config FILE`. */
  hfConfig?: HfConfig;
}

/** Bytes per GPU, for the most loaded GPU; total is the sum of the other parts. */
export interface Breakdown {
  weights: number;
  gradients: number;
  optimizer_states: number;
  activations: number;
  logits: number;
  communication: number;
  kv_cache: number;
  misc: number;
  total: number;
}

/** One tensor a layer keeps for backward, on one GPU, for one micro-batch. */
export interface LayerActivation {
  /** Stable identifier, e.g. "attn.norm.input". */
  name: string;
  bytes: number;
  note: string;
}

/** Figures behind the breakdown. */
export interface Details {
  /** Parameters used per token (MoE: top-k experts). */
  params_active: number;
  /** Parameters of the reported stage's tp/ep slice, before ZeRO sharding. */
  params_on_gpu: number;
  /** Pipeline stage reported (0 = first): the most loaded one. */
  stage: number;
  layers_on_gpu: number;
  /** Micro-batches whose activations that stage holds (training; 0 in inference). */
  microbatches_in_flight: number;
  /** Activations one layer keeps for one micro-batch (training). */
  layer_activation_bytes: number;
  /** Group scales and zero points, included in per_gpu.weights (inference). */
  quantization_overhead_bytes: number;
  /** KV bytes per token of one sequence on this GPU (inference). */
  kv_cache_bytes_per_token: number;
  /** Host RAM for offloaded states, per node. */
  host_bytes_per_node: number;
  /** NVMe space for offloaded states, per node. */
  nvme_bytes_per_node: number;
  /** Tensors one layer keeps for one micro-batch (training; empty in inference). */
  layer_activations: LayerActivation[];
}

/** Exactly the object `memplan estimate` prints. */
export interface EstimateResult {
  params: number;
  data_parallel: number;
  per_gpu: Breakdown;
  details: Details;
  /** Present when gpu.memory_bytes was given. */
  gpu?: { fits: boolean; headroom_bytes: number; shortfall_bytes: number };
  warnings: FieldError[];
  errors: FieldError[];
}

export interface StageAnalysis {
  stage: 0 | 1 | 2 | 3;
  /** Per-GPU total with only parallel.zero_stage changed; null if it cannot be estimated. */
  total: number | null;
  /** null without a GPU capacity. */
  fits: boolean | null;
  /** ZeRO paper's largest model (model states only, 16 B/param) × tp · pp; null without a capacity. */
  model_states_max_params: number | null;
  /** Largest model.params that fits with the whole configuration (0 = none); null without a capacity. */
  max_params: number | null;
  /** Fewest GPUs (dp · tp · pp) that fit; null without a capacity or when none up to 2^20 does. */
  fewest_gpus: number | null;
}

export interface Suggestion {
  field: string;
  from: number | boolean | string;
  to: number | boolean | string;
  total: number;
  saving_bytes: number;
  fits: boolean | null;
}

export interface Analysis {
  estimate: EstimateResult;
  stages: [StageAnalysis, StageAnalysis, StageAnalysis, StageAnalysis];
  /** Single changes that lower the total, largest saving first. */
  suggestions: Suggestion[];
  /** Per-GPU totals of stages 0..3 for gpus = tp · pp · 2^k ≤ 1024. */
  sweep: { gpus: number; totals: [number | null, number | null, number | null, number | null] }[];
  /**
   * The largest workload that fits, one field varied. Training fills max_micro_batch and max_seq_len,
   * inference max_batch (at the context) and max_context_len (at the batch); null where not applicable,
   * without a GPU capacity, or when even 1 does not fit.
   */
  limits: {
    max_micro_batch: number | null;
    max_seq_len: number | null;
    max_batch: number | null;
    max_context_len: number | null;
  };
  errors: FieldError[];
}

/** One stored model (core/data/models.json). */
export interface ModelPreset {
  id: string;
  name: string;
  /** Where the architecture comes from. */
  source: string;
  /** Hugging Face config.json subset. */
  config: Record<string, unknown> & { model_type?: string };
  /** A published exact parameter count, when one is recorded. */
  published_params?: number;
  params_source?: string;
}

/** A model resolved by the core: explicit keys that reproduce it, and its exact parameter counts. */
export interface ResolvedModel {
  model: ModelConfig;
  /** null when the architecture is incomplete (no layers, hidden size or heads). */
  params: number | null;
  params_active: number | null;
}

export interface Memplan {
  /** Model-state bytes per GPU (ZeRO, mixed-precision Adam). Throws "stage must be 0, 1, 2 or 3" etc. */
  modelStateBytes(params: number, gpus: number, stage: number): number;
  /** Largest parameter count whose model states fit in gpuBytes per GPU. */
  maxParams(gpuBytes: number, gpus: number, stage: number): number;
  /** Per-GPU memory for a configuration; throws MemplanError naming the field for invalid input. */
  estimate(config: Config | string, options?: EstimateOptions): EstimateResult;
  /** The page's derived views of a configuration. */
  analyze(config: Config | string, options?: EstimateOptions): Analysis;
  /** JSON text in, JSON text out (errors as data), byte for byte what `memplan estimate [--hf-config]` prints. */
  estimateJson(text: string, hfConfigText?: string): string;
  /** analyze() as JSON text, errors as data. */
  analyzeJson(text: string, hfConfigText?: string): string;
  /** The stored model presets, parsed once; frozen. */
  presets(): readonly ModelPreset[];
  /** Every configuration field with its range, default, choices, label and help (the core's schema). */
  schema(): Schema;
  /** The model a configuration (or options.hfConfig) describes, as explicit keys with exact counts. */
  resolveModel(config: Config | string, options?: EstimateOptions): ResolvedModel;
  /** The GPU catalogue (core/data/gpus.json), parsed once; frozen. */
  gpus(): readonly GpuEntry[];
  /**
   * A number as people write it ("8B", "8k", "80 GiB", "8,000,000,000"), read by the core's parser;
   * throws MemplanError naming `field` (default "value") for anything else or above `max` (default 2^53).
   */
  parseQuantity(text: string, field?: string, max?: number): number;
}

export interface LoadOptions {
  /** The .wasm bytes, if the caller already has them. */
  wasmBinary?: ArrayBuffer | Uint8Array;
  /** Where to fetch memplan-core.wasm from (default: next to memplan.js). */
  wasmUrl?: string | URL;
}

/** Loads the WebAssembly module once (memoized) and returns the API. */
export function load(options?: LoadOptions): Promise<Memplan>;

/** Wraps an already instantiated Emscripten module. */
export function wrap(core: unknown): Memplan;

/** One configuration field of the core's schema (core/include/memplan/schema.hpp). */
export interface SchemaField {
  readonly path: string;
  readonly type: 'integer' | 'bytes' | 'boolean' | 'choice' | 'text';
  readonly min?: number;
  readonly max?: number;
  /** The default; null where the field is optional and derived when not set. */
  readonly default: number | boolean | string | null;
  readonly choices?: readonly string[];
  readonly label: string;
  readonly help: string;
  readonly unit: string;
  readonly modes: readonly ('train' | 'infer')[];
  /** The error message of a value out of range ("must be an integer from 1 to 1048576"). */
  readonly message: string;
}

export interface Schema {
  readonly version: 1;
  readonly fields: readonly SchemaField[];
  readonly limits: { readonly [name: string]: number };
}

/** One GPU of the catalogue (core/data/gpus.json). */
export interface GpuEntry {
  /** "h100-sxm-80gb" */
  readonly id: string;
  readonly name: string;
  readonly vendor: 'NVIDIA' | 'AMD' | 'Intel' | 'Apple';
  readonly kind: 'datacenter' | 'workstation' | 'consumer' | 'laptop' | 'apple';
  /** The vendor's figure as written: "80 GB HBM3". */
  readonly memory_text: string;
  /** The vendor's GB in bytes: 1e9 (NVIDIA, AMD, Intel) or 2^30 (Apple's memory). */
  readonly memory_unit_bytes: number;
  readonly nominal_bytes: number;
  /** Total device memory the driver reports, where a public source shows it; else null. */
  readonly usable_bytes: number | null;
  /** What a fit verdict should use (the core's rule): usable_bytes if known, else nominal_bytes; Apple: × gpu_share_percent. */
  readonly capacity_bytes: number;
  /** How that measurement was stated ("81559 MiB (nvidia-smi ...)"); "" if none. */
  readonly usable_text: string;
  /** The vendor's datasheet or specification page. */
  readonly source: string;
  readonly usable_source: string;
  /** Share of the memory the GPU may use by default: 100, or 75 for Apple's unified memory. */
  readonly gpu_share_percent: number;
  readonly share_source: string;
  readonly note: string;
  /** What people type: "h100", "H100 80GB". */
  readonly aliases: readonly string[];
}
