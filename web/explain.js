// memplan page — "how this is computed": the text shown under each breakdown row. The formulas
// themselves live in core/src/estimate.cpp and core/src/zero.cpp; this is their description, with
// the same sources. No DOM here.

/** Labels of the breakdown rows, in the order of the core's per_gpu object. */
export const ROWS = Object.freeze([
  ['weights', 'Weights'],
  ['gradients', 'Gradients'],
  ['optimizer_states', 'Optimizer states'],
  ['activations', 'Activations'],
  ['logits', 'Logits and loss'],
  ['communication', 'Communication buffers'],
  ['kv_cache', 'KV cache'],
  ['misc', 'Framework overhead'],
]);

const TEXT = Object.freeze({
  weights: {
    formula: 'params / (tp · pp) × bytes per weight; at ZeRO stage 3 also divided by the data-parallel degree dp = gpus / (tp · pp), rounded up.',
    source: 'Shoeybi et al. 2019 (Megatron-LM, tensor parallelism §3); Huang et al. 2019 (GPipe); Rajbhandari et al. 2020 (ZeRO §5, P_os+g+p).',
  },
  gradients: {
    formula: 'Same share of parameters as the weights × bytes per gradient element; divided by dp from ZeRO stage 2. None without an optimizer.',
    source: 'Rajbhandari et al. 2020 (ZeRO §5, P_os+g).',
  },
  optimizer_states: {
    formula: 'Per parameter: fp32 master copy (4 B, when weights are below 32 bits) + Adam 8 B (momentum, variance) | 8-bit Adam 2 B + 8 B per 2048-block | SGD momentum / Lion 4 B | SGD 0 B; divided by dp from ZeRO stage 1. Mixed-precision Adam totals 16 B/param with weights and gradients: 16Ψ, 4Ψ + 12Ψ/N, 2Ψ + 14Ψ/N, 16Ψ/N for stages 0–3.',
    source: 'Rajbhandari et al. 2020 (ZeRO §3.1, K = 12; Figure 1); Micikevicius et al. 2018 (mixed precision §3.1); Dettmers et al. 2022 (8-bit optimizers §2).',
  },
  activations: {
    formula: 'Per layer, s = sequence, b = micro-batch, h = hidden, a = heads, t = tp: sbh(10 + 24/t + 5as/(ht)); with sequence parallel sbh(34/t + 5as/(ht)); FlashAttention or selective recompute drop the 5as/h term; full recompute keeps 2sbh (the layer input) plus one recomputed layer. × ceil(layers / pp) × micro-batches in flight (pp for 1F1B on the first stage).',
    source: 'Korthikanti et al. 2022, "Reducing Activation Recomputation in Large Transformer Models", Table 2 and §4–5; Narayanan et al. 2021 §2.2 (1F1B).',
  },
  logits: {
    formula: 's · b · vocab / tp × 6 B (2 B logits + 4 B fp32 softmax kept for the backward of the cross entropy), on the last pipeline stage. Zero when vocab_size is not given.',
    source: 'Megatron-LM cross_entropy.py (vocabulary-parallel cross entropy).',
  },
  communication: {
    formula: 'ZeRO stage ≥ 1: an all-gather bucket of zero_bucket_params elements; stage 3: up to zero3_max_live_params gathered parameters; neither above this GPU\'s parameters; × bytes per weight.',
    source: 'DeepSpeed configuration: allgather_bucket_size, stage3_max_live_parameters.',
  },
  kv_cache: {
    formula: '2 (K and V) × ceil(layers / pp) × ceil(kv_heads / tp) × head_dim × context × batch × bytes per element.',
    source: 'Pope et al. 2022, "Efficiently Scaling Transformer Inference" §2.',
  },
  misc: {
    formula: 'The framework overhead you entered (CUDA context, allocator fragmentation), added as is — never hidden in a factor.',
    source: 'User input.',
  },
  total: {
    formula: 'The sum of the rows above, for the most loaded GPU (the first pipeline stage, or the last when its logits weigh more).',
    source: 'memplan core (core/src/estimate.cpp).',
  },
});

/** {formula, source} for a row name. */
export function explain(row) {
  return TEXT[row];
}
