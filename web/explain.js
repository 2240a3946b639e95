// memplan page — "how this is computed": the text shown under each breakdown row, per mode. The
// formulas live in core/src/estimate.cpp, activations.cpp, arch.cpp and zero.cpp; this is their
// description, with the sources those files name. No DOM here.

/** Labels of the breakdown rows, in the order of the core's per_gpu object. */
export const ROWS = Object.freeze([
  ['weights', 'Weights'],
  ['gradients', 'Gradients'],
  ['optimizer_states', 'Optimizer states'],
  ['activations', 'Activations'],
  ['logits', 'Logits and loss'],
  ['communication', 'Communication buffers'],
  ['kv_cache', 'KV cache'],
  ['dequant_workspace', 'Dequantization workspace'],
  ['misc', 'CUDA context and overhead'],
]);

const SHARE = 'This GPU\'s parameters: the reported pipeline stage\'s layers (embeddings on the first stage, final norm and ' +
  'untied output layer on the last), split over tp (vocabulary-parallel embeddings too) and MoE experts over ep.';

const TRAIN = Object.freeze({
  weights: {
    formula: SHARE + ' × bytes per weight (fp8 training: 2 B bf16 parameter + 1 B cached fp8 cast). From ZeRO stage 3 ' +
      '(FSDP FULL_SHARD) sharded over the ZeRO group — dp × cp, or the shard group size for hybrid sharding; experts over dp × cp / ep. ' +
      'Parameters offloaded to CPU or NVMe (ZeRO-Offload and its NVMe extension) leave the GPU.',
    source: 'Shoeybi et al. 2019 (Megatron-LM §3); Narayanan et al. 2021 §4.1 (embeddings on pipeline stages); Rajbhandari et al. 2020 (ZeRO §5, P_os+g+p); Zhao et al. 2023 (PyTorch FSDP §3.2); Rajbhandari et al. 2021 (ZeRO-Infinity, NVMe offload); NVIDIA Transformer Engine (fp8 weight caching).',
  },
  gradients: {
    formula: 'The same parameters × bytes per gradient element (bf16 or fp32 accumulation); sharded from ZeRO stage 2. None without an optimizer (frozen); off the GPU with optimizer offload (sent bucket by bucket).',
    source: 'Rajbhandari et al. 2020 (ZeRO §5, P_os+g); Ren et al. 2021 (ZeRO-Offload §4.1).',
  },
  optimizer_states: {
    formula: 'Per parameter: fp32 master copy 4 B (when weights are below 32 bits and master weights are on) + Adam 8 B (momentum, variance) | 8-bit Adam 2 B + an fp32 absmax per 2048-block each | SGD 0 B | SGD momentum or Lion 4 B | Adafactor a factored fp32 row + column second moment | none 0 B. Sharded from ZeRO stage 1; on the host (or NVMe) with optimizer offload. Mixed-precision Adam with weights and gradients gives the ZeRO paper\'s 16Ψ, 4Ψ + 12Ψ/N, 2Ψ + 14Ψ/N, 16Ψ/N.',
    source: 'Rajbhandari et al. 2020 (ZeRO §3.1, K = 12); Micikevicius et al. 2018 (§3.1); Kingma & Ba 2015; Dettmers et al. 2022 (8-bit optimizers §2); Chen et al. 2023 (Lion, Alg. 1); Shazeer & Stern 2018 (Adafactor §3).',
  },
  activations: {
    formula: 'Counted tensor by tensor for this block (norm type, attention with GQA, gated or plain MLP, dropout masks at 1 B) — see the per-layer table — with s/cp tokens, split over tp as Megatron does (sequence parallel also shards norms and dropout); selective recompute drops the attention core, FlashAttention never stores the score matrix, full recompute keeps only each layer\'s input plus one re-run layer\'s working set. × layers on this stage × micro-batches in flight (pp − stage for 1F1B; × (1 + (pp − 1)/(pp·v)) interleaved), + the embedding dropout mask on the first stage. For a GPT-3-style block this is Korthikanti Table 2 exactly.',
    source: 'Korthikanti et al. 2022, "Reducing Activation Recomputation in Large Transformer Models", Table 2, §4–5; Narayanan et al. 2021 §2.2 (1F1B, interleaved); Dao et al. 2022 (FlashAttention); memplan tests/: saved-tensor measurements with PyTorch (docs/validation.md).',
  },
  logits: {
    formula: 's/cp · b · vocab/tp × 6 B (2 B logits + 4 B fp32 softmax kept for the backward of the cross entropy), on the last pipeline stage. Zero without a vocabulary.',
    source: 'Megatron-LM cross_entropy.py (vocabulary-parallel cross entropy).',
  },
  communication: {
    formula: 'ZeRO stage ≥ 1: an all-gather bucket of zero_bucket_params elements; stage 3: up to zero3_max_live_params gathered parameters; neither more than this GPU\'s parameters; × bytes per weight.',
    source: 'DeepSpeed configuration: allgather_bucket_size, stage3_max_live_parameters.',
  },
  kv_cache: {
    formula: 'Training keeps no KV cache.',
    source: '—',
  },
});

const INFER = Object.freeze({
  weights: {
    formula: SHARE + ' Block linear weights in the chosen dtype (int4 packs two per byte); embeddings, norms and biases stay bf16 when quantized. With a group size G: one fp16 scale and one zero point of the weight width per G weights (the stated quantization overhead).',
    source: 'Frantar et al. 2023 (GPTQ §4); Lin et al. 2024 (AWQ §3); Shoeybi et al. 2019 (tensor parallelism).',
  },
  gradients: { formula: 'Inference keeps no gradients.', source: '—' },
  optimizer_states: { formula: 'Inference keeps no optimizer states.', source: '—' },
  activations: {
    formula: 'Forward workspace: the largest set of tensors live at once inside one layer while prefilling batch × prefill tokens (residual, normed input, q, k, v, attention output; or residual, normed input, gate, up and their product), in bf16; without FlashAttention also the fp16 score matrix and softmax (4 B per score).',
    source: 'Derivation in core/src/estimate.cpp (infer_stage); Dao et al. 2022 (FlashAttention).',
  },
  logits: {
    formula: 'The last position\'s logits: batch × vocab × 6 B (bf16 output + fp32 copy for sampling), on the last pipeline stage.',
    source: 'core/src/estimate.cpp (infer_stage): the output of the last position plus its fp32 copy for sampling.',
  },
  communication: { formula: 'Inference keeps no ZeRO buckets.', source: '—' },
  kv_cache: {
    formula: '2 (K and V) × layers on this stage × ceil(KV heads / tp) × head_dim × tokens/cp × batch × bytes per element; sliding-window layers cache at most the window.',
    source: 'Pope et al. 2022, "Efficiently Scaling Transformer Inference" §2; Ainslie et al. 2023 (GQA); Beltagy et al. 2020 and Jiang et al. 2023 (Mistral §2, sliding window).',
  },
});

const COMMON = Object.freeze({
  dequant_workspace: {
    formula: 'A 4-bit (nf4, fp4) or int8 frozen base under an adapter is dequantized to bf16 for its matmuls, forward and backward, one linear at a time: 2 B × the largest block linear\'s elements / tp. DoRA adds its dense update and W + s·B·A of the largest adapted linear (2 × adapter bytes × its elements / tp) to take the column norms. Zero otherwise.',
    source: 'bitsandbytes MatMul4Bit / MatMul8bitLt (Dettmers et al. 2023, QLoRA §3); PEFT tuners/lora/dora.py DoraLinearLayer.get_weight_norm; memplan core/src/train_memory.cpp.',
  },
  misc: {
    formula: 'The CUDA context and framework overhead per GPU, added as is — never hidden in a factor. Default: the CUDA context with lazy module loading, 287,047,680 B as PyTorch measured it (cudaMemGetInfo after one small tensor op); kernels loaded later (cuBLAS, NCCL buffers) and allocator fragmentation come on top: enter your measured value.',
    source: 'pytorch/pytorch pull request 86509 (CUDA_MODULE_LOADING=LAZY by default, PyTorch 1.13); editable.',
  },
  total: {
    formula: 'The sum of the rows above, for the most loaded GPU: every pipeline stage is computed and the largest reported (see Details).',
    source: 'memplan core (core/src/estimate.cpp).',
  },
});

/** {formula, source} for a row name in a mode ('train' or 'infer'). */
export function explain(row, mode = 'train') {
  return COMMON[row] || (mode === 'infer' ? INFER : TRAIN)[row];
}
