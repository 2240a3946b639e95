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

/** A configuration, schema v1 (docs/schema.md). Every key is optional; defaults as in the CLI. */
export interface Config {
  version?: 1;
  mode?: 'train' | 'infer';
  model?: {
    /** Explicit parameter count; 0 or absent = counted from the architecture. */
    params?: number;
    num_hidden_layers?: number;
    hidden_size?: number;
    num_attention_heads?: number;
    num_key_value_heads?: number;
    head_dim?: number;
    intermediate_size?: number;
    vocab_size?: number;
    [huggingFaceField: string]: number | boolean | string | undefined;
  };
  parallel?: {
    gpus?: number;
    tp?: number;
    pp?: number;
    zero_stage?: 0 | 1 | 2 | 3;
    sequence_parallel?: boolean;
    partition_activations?: boolean;
    zero_bucket_params?: number;
    zero3_max_live_params?: number;
  };
  train?: {
    micro_batch?: number;
    seq_len?: number;
    recompute?: 'none' | 'selective' | 'full';
    flash_attention?: boolean;
    weight_dtype?: Dtype;
    grad_dtype?: Dtype;
    master_weights?: boolean;
    optimizer?: 'adam' | 'adam_8bit' | 'sgd' | 'sgd_momentum' | 'lion' | 'none';
    microbatches_in_flight?: number;
  };
  infer?: {
    batch?: number;
    context_len?: number;
    weight_dtype?: Dtype;
    kv_dtype?: Dtype;
  };
  overhead?: { misc_bytes?: number };
  gpu?: { memory_bytes?: number };
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

/** Exactly the object `memplan estimate` prints. */
export interface EstimateResult {
  params: number;
  data_parallel: number;
  per_gpu: Breakdown;
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
  errors: FieldError[];
}

export interface Memplan {
  /** Model-state bytes per GPU (ZeRO, mixed-precision Adam). Throws "stage must be 0, 1, 2 or 3" etc. */
  modelStateBytes(params: number, gpus: number, stage: number): number;
  /** Largest parameter count whose model states fit in gpuBytes per GPU. */
  maxParams(gpuBytes: number, gpus: number, stage: number): number;
  /** Per-GPU memory for a configuration; throws MemplanError naming the field for invalid input. */
  estimate(config: Config | string): EstimateResult;
  /** The page's derived views of a configuration. */
  analyze(config: Config | string): Analysis;
  /** JSON text in, JSON text out (errors as data), byte for byte what `memplan estimate` prints. */
  estimateJson(text: string): string;
  /** analyze() as JSON text, errors as data. */
  analyzeJson(text: string): string;
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
