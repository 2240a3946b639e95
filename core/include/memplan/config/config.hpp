// memplan — the configuration of one estimate: the model, the parallel layout, the training step
// or the serving workload, and the GPU. Plain structs; the field table with ranges, defaults and
// labels is memplan/schema.hpp.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "memplan/base/types.hpp"

namespace memplan {

/// Element types of weights, gradients, activations and caches.
enum class dtype { fp32, bf16, fp16, fp8, int8, int4 };

/// What the GPU does: a training step or serving (forward passes with a KV cache).
enum class run_mode { train, infer };

/// Activation recomputation (Korthikanti et al. 2022, §5): none, selective (attention core), full (every layer);
/// selective_op: torchtitan's op-level selective checkpointing (the outputs of every other matmul and of
/// the attention kernel kept, the rest recomputed; activations.cpp).
enum class recompute_mode { none, selective, full, selective_op };

/// Optimizer whose states are kept per parameter.
enum class optimizer_kind { adam, adam_8bit, sgd, sgd_momentum, lion, adafactor, none };

/// Normalisation layers: LayerNorm has a weight and a bias (2h), RMSNorm a weight only (h).
enum class norm_kind { layernorm, rmsnorm };

/// Feed-forward block: plain (up, activation, down) or gated (gate and up, activation, down; SwiGLU/GeGLU).
enum class mlp_kind { plain, gated };

/// Parameter-efficient fine-tuning adapter (PEFT): none (full fine-tuning), LoRA (Hu et al. 2021)
/// or DoRA (Liu et al. 2024: LoRA plus a trainable magnitude vector per output row).
enum class adapter_kind { none, lora, dora };

/// Storage of the frozen base weights under an adapter: a float type, bitsandbytes LLM.int8 (int8),
/// or bitsandbytes 4-bit NormalFloat/Float (nf4/fp4, QLoRA, Dettmers et al. 2023).
enum class base_precision { bf16, fp16, fp32, fp8, int8, nf4, fp4 };

/// A floating-point storage type of trainable values (adapter weights, optimizer states).
enum class float_precision { fp32, bf16, fp16 };

/// How a layer's element-wise operations run: fused CUDA kernels (norm kernels keep their input and
/// fp32 statistics) or eager PyTorch (Hugging Face LlamaRMSNorm keeps its fp32 upcast input).
enum class kernel_kind { fused, eager };

/// The training framework whose conventions an estimate states (memplan/memory/frameworks.hpp): which
/// layouts it has, and which allocator figure its log prints. none: no framework named (PyTorch's
/// allocated bytes, memplan's own conventions).
enum class train_framework { none, torchtitan, hf_trainer, trl, torchtune, litgpt, unsloth, axolotl, megatron, deepspeed, llama_factory };
/// What mixes tokens in one layer: softmax attention over all cached tokens (full), over the last
/// `sliding_window` tokens (sliding), within chunks of `attention_chunk_size` tokens (chunked, Llama 4),
/// multi-head latent attention (mla, DeepSeek-V2/V3), linear attention with a recurrent state
/// (linear: Gated DeltaNet, Qwen3-Next), a Mamba state-space mixer (mamba), or nothing (none).
enum class attention_kind { full, sliding, chunked, mla, linear, mamba, none };

/// The feed-forward part of one layer: a dense MLP of intermediate_size, a mixture of experts, or none.
enum class layer_mlp_kind { dense, moe, none };

/// Format of the released checkpoint's weights (Hugging Face quantization_config).
enum class checkpoint_format {
    none,       ///< unquantized (torch_dtype, bf16)
    fp8_block,  ///< FP8 e4m3 with one fp32 scale per block of quant_block × quant_block weights (DeepSeek-V3)
    mxfp4,      ///< OCP MXFP4: 4-bit values and one 8-bit scale per 32 (gpt-oss experts)
    nf4,        ///< bitsandbytes 4-bit NF4/FP4: fp32 absmax per quant_block (64) weights
    int8,       ///< bitsandbytes LLM.int8(): int8 weights, one fp32 scale per output row
    int4_group, ///< AWQ / GPTQ int4: fp16 scale + 4-bit zero point per group of quant_block weights
    nvfp4,      ///< NVIDIA NVFP4 (ModelOpt): fp4 e2m1 values, an fp8 e4m3 scale per 16, two fp32 scalars per matrix
    fp8_tensor  ///< FP8 e4m3 with one fp32 weight scale and one fp32 input scale per matrix (ModelOpt FP8)
};

/// The model: an explicit parameter count, or its architecture with Hugging Face config.json names.
/// Fields left at 0 take the defaults of the family named by `model_type` (memplan/arch.hpp);
/// without a family, those of a GPT-style block (Korthikanti et al. 2022's assumptions).
struct model_config {
    std::uint64_t params = 0;             ///< explicit parameter count; 0 = count it from the architecture
    /// Bytes the checkpoint's tensors store (the sum of its safetensors headers' data_offsets spans), given
    /// with an explicit `params` for a family memplan does not count: served weights are these bytes.
    std::uint64_t stored_weight_bytes = 0;
    std::string model_type;               ///< Hugging Face model_type ("llama", "gpt2", …); "" = GPT-style
    std::uint64_t num_hidden_layers = 0;  ///< transformer blocks
    std::uint64_t hidden_size = 0;        ///< model width h
    std::uint64_t num_attention_heads = 0;  ///< query heads a
    std::uint64_t num_key_value_heads = 0;  ///< KV heads (GQA/MQA); 0 = num_attention_heads
    std::uint64_t head_dim = 0;           ///< per-head size; 0 = hidden_size / num_attention_heads
    std::uint64_t intermediate_size = 0;  ///< FFN width; 0 = 4 · hidden_size
    std::uint64_t vocab_size = 0;         ///< vocabulary; 0 = unknown (no embeddings, no logits row)
    bool tie_word_embeddings = true;      ///< output projection shares the input embedding
    std::uint64_t learned_positions = 0;  ///< learned absolute position embeddings (GPT-2 n_positions); 0 = none (rotary)
    norm_kind norm = norm_kind::layernorm;
    std::uint64_t norms_per_layer = 2;    ///< Gemma 2 has 4 (pre and post attention and MLP)
    mlp_kind mlp = mlp_kind::plain;
    bool qkv_bias = true;                 ///< biases on the Q, K, V projections
    bool attention_out_bias = true;       ///< bias on the attention output projection
    bool mlp_bias = true;                 ///< biases on the MLP projections
    bool dropout = true;                  ///< dropout layers present in training (GPT-2, Megatron GPT)
    std::uint64_t num_experts = 0;        ///< routed experts per MoE layer; 0 = dense
    std::uint64_t experts_per_token = 0;  ///< experts each token is routed to (top-k)
    std::uint64_t moe_intermediate_size = 0;  ///< FFN width of one expert; 0 = intermediate_size
    std::uint64_t shared_expert_intermediate_size = 0;  ///< always-active shared expert (Qwen2-MoE); 0 = none
    std::uint64_t sliding_window = 0;     ///< tokens a sliding-window layer attends to; 0 = full attention
    std::uint64_t sliding_window_layers = 0;  ///< layers using the window; 0 with a window = all layers

    // Per-layer structure (empty = every layer alike: sliding_window_layers of them sliding, the
    // others full; all MoE when num_experts is set, else dense).
    std::vector<attention_kind> layer_attention;  ///< one per layer (memplan key `layer_types`)
    std::vector<layer_mlp_kind> layer_mlp;        ///< one per layer (memplan key `mlp_layer_types`)
    std::uint64_t attention_chunk_size = 0;  ///< tokens per attention chunk of chunked layers (Llama 4)
    bool qk_norm = false;                 ///< RMSNorm weights over head_dim on queries and keys (Qwen3, Gemma 3)
    /// QK-norm over the whole projection, q_norm num_attention_heads · head_dim and k_norm
    /// num_key_value_heads · head_dim wide (OLMo 2, OLMo 3), not over one head; set by the family, no key.
    bool qk_norm_full_width = false;
    bool attention_sinks = false;         ///< one learned sink logit per query head (gpt-oss)
    /// Sinks on the sliding-window layers only, one per query head (MiMo-V2-Flash add_swa_attention_sink_bias).
    bool sliding_attention_sinks = false;
    /// KV heads of the sliding-window layers; 0 = num_key_value_heads (MiMo-V2-Flash swa_num_key_value_heads).
    std::uint64_t sliding_num_key_value_heads = 0;
    /// Head width of the full-attention layers; 0 = head_dim (Gemma 4 global_head_dim).
    std::uint64_t full_head_dim = 0;
    /// KV heads of the full-attention layers; 0 = num_key_value_heads (Gemma 4 num_global_key_value_heads).
    std::uint64_t full_num_key_value_heads = 0;
    /// The full-attention layers have no v_proj: the values are the key projection's output (Gemma 4
    /// attention_k_eq_v); the cache still holds K and V apart (they are normalised differently).
    bool full_value_from_key = false;
    bool attention_output_gate = false;   ///< q_proj also emits a sigmoid gate per head (Qwen3-Next)
    // Multi-head latent attention (DeepSeek-V2 §2.1): 0 = not MLA.
    std::uint64_t q_lora_rank = 0;        ///< query compression rank; 0 = queries projected directly
    std::uint64_t kv_lora_rank = 0;       ///< cached latent width
    std::uint64_t qk_nope_head_dim = 0;
    std::uint64_t qk_rope_head_dim = 0;   ///< decoupled rotary key width, cached beside the latent
    /// Value head width: MLA's, and of the softmax-attention layers when given (0 = head_dim; MiMo-V2-Flash).
    std::uint64_t v_head_dim = 0;
    /// Rotated width of each head (partial rotary embedding); 0 = the whole head (MLA: qk_rope_head_dim).
    std::uint64_t rotary_dim = 0;
    // DeepSeek Sparse Attention's lightning indexer on every MLA layer (DeepSeek-V3.2): 0 = none.
    std::uint64_t index_n_heads = 0;      ///< indexer query heads (config.json index_n_heads)
    std::uint64_t index_head_dim = 0;     ///< indexer head width, also its cached key per token (index_head_dim)
    // DeepSeek-V4 (transformers src/transformers/models/deepseek_v4/modular_deepseek_v4.py): read from its
    // config.json only (no memplan keys); an estimate with compressed layers is refused (memory/validate.cpp).
    /// KV compression per layer, then per MTP module: 0 sliding window only, 4 CSA (overlapping compressor and
    /// lightning indexer), 128 HCA (compressor only); empty = none.
    std::vector<std::uint64_t> compress_ratios;
    std::uint64_t o_groups = 0;           ///< grouped low-rank output projection: head groups (0 = o_proj)
    std::uint64_t o_lora_rank = 0;        ///< its rank per group
    std::uint64_t hc_mult = 0;            ///< hyper-connection residual streams (0 = a plain residual)
    std::uint64_t num_hash_layers = 0;    ///< the first MoE layers route by a token-id table (tid2eid)
    // Mixture of experts, beyond num_experts / experts_per_token / moe_intermediate_size.
    bool router_bias = false;             ///< a bias (or e_score_correction_bias) of num_experts per router
    bool shared_expert_gate = true;       ///< a sigmoid gate h×1 on the shared expert (Qwen2-MoE, Qwen3-Next)
    /// The router's learned scales: one of hidden_size on its input and one per expert on its weights (Gemma 4).
    bool router_scales = false;
    /// One learned scalar per layer that scales its output (Gemma 4 layer_scalar, stored in the checkpoint).
    bool layer_scalar = false;
    std::uint64_t moe_latent_size = 0;    ///< routed experts work in this width between h×latent projections; 0 = h
    // Linear attention, Gated DeltaNet (Qwen3-Next linear_* keys).
    std::uint64_t linear_num_key_heads = 0;
    std::uint64_t linear_num_value_heads = 0;
    std::uint64_t linear_key_head_dim = 0;
    std::uint64_t linear_value_head_dim = 0;
    std::uint64_t linear_conv_kernel_dim = 0;
    /// The linear-attention layers are Kimi Delta Attention (Kimi Linear): separate q/k/v projections and
    /// convolutions, low-rank decay and output gates; nk = nv heads of dk = dv.
    bool linear_kda = false;
    // Mamba mixers: version 1 (Jamba) or 2 (Nemotron-H).
    std::uint64_t mamba_version = 0;      ///< 0 = no Mamba layers
    std::uint64_t mamba_d_inner = 0;      ///< inner width I (Mamba-2: mamba_num_heads · mamba_head_dim)
    std::uint64_t mamba_d_state = 0;      ///< SSM state size N
    std::uint64_t mamba_d_conv = 0;       ///< causal convolution kernel K
    std::uint64_t mamba_dt_rank = 0;      ///< Mamba-1 Δ projection rank
    std::uint64_t mamba_num_heads = 0;    ///< Mamba-2 heads
    std::uint64_t mamba_n_groups = 0;     ///< Mamba-2 B/C groups G
    bool mamba_conv_bias = true;
    bool mamba_proj_bias = false;
    // Multi-token prediction (DeepSeek-V3 §2.2): extra modules, loaded only when `mtp` is true.
    std::uint64_t num_nextn_predict_layers = 0;
    bool mtp = false;
    /// Precision of the recurrent state that the checkpoint declares (Qwen3.5's mamba_ssm_dtype); the served
    /// state follows it unless infer.state_dtype is given (vLLM model_executor/models/config.py
    /// Qwen3_5ForConditionalGenerationConfig sets mamba_ssm_cache_dtype from it when left "auto").
    dtype ssm_state_dtype = dtype::bf16;
    /// Vision tower and projector of a multimodal checkpoint, counted from its vision_config.
    std::uint64_t vision_params = 0;
    /// The released checkpoint's weight format; inference uses it unless infer.weight_dtype is given.
    checkpoint_format checkpoint = checkpoint_format::none;
    std::uint64_t quant_block = 0;        ///< block/group size of the checkpoint format (0 = its default)
    bool quant_experts_only = false;      ///< only the routed experts are quantized (gpt-oss)
    bool quant_mixer_kept = false;        ///< the attention / mixer projections stay bf16 (ModelOpt's ignore list)
    bool quant_double = false;            ///< nf4: absmax quantized again (bnb_4bit_use_double_quant)
    bool quant_g_idx = false;             ///< int4_group: an int32 group index per input row (GPTQ g_idx)
    /// int4_group: symmetric groups without zero points, each matrix's shape stored as two int32
    /// (compressed-tensors pack-quantized).
    bool quant_symmetric = false;
    /// The longest context the model is made for (config.json max_position_embeddings; GPT-2's
    /// n_positions); 0 = not stated. Memory does not depend on it: a longer context is flagged, not refused.
    std::uint64_t max_position_embeddings = 0;
    /// Assumptions made while reading a model_type memplan does not know (shown as warnings).
    std::vector<std::string> assumptions;
};

/// Where ZeRO-Offload / ZeRO-Infinity put offloaded states (Ren et al. 2021; Rajbhandari et al. 2021).
enum class offload_target { none, cpu, nvme };

/// PyTorch FSDP sharding strategies, as names for ZeRO stages (Zhao et al. 2023, "PyTorch FSDP", §3.2):
/// full_shard = 3, shard_grad_op = 2, no_shard = 0; the hybrid ones shard within a node and
/// replicate across nodes. `unset`: the layout is given by zero_stage alone.
enum class fsdp_strategy { unset, full_shard, shard_grad_op, hybrid_shard, hybrid_shard_zero2, no_shard };

/// How the communication buffers of ZeRO are counted: memplan's model (the allgather bucket and, at
/// stage 3, the live parameters, each at most this GPU's parameters) or DeepSpeed's allocations as
/// its code makes them (reduce buckets, overlap_comm's extra buffers, stage-3 prefetch and the
/// largest layer's working copy; memplan/reference.hpp deepspeed_comm_buffer_bytes).
enum class comm_buffer_model { memplan, deepspeed };

/// DeepSpeed's zero_optimization.overlap_comm: its default (on at stage 3 only), on or off.
enum class overlap_setting { auto_default, on, off };

/// How the GPUs are divided: gpus = dp × tp × pp × cp; experts are split over ep ranks carved out of
/// dp × cp; ZeRO shards over the data-parallel group (dp × cp, as Megatron's distributed optimizer).
struct parallel_config {
    std::uint64_t gpus = 1;         ///< total GPUs; data-parallel degree = gpus / (tp · pp · cp)
    std::uint64_t tp = 1;           ///< tensor-parallel degree
    std::uint64_t pp = 1;           ///< pipeline-parallel degree
    std::uint64_t cp = 1;           ///< context-parallel degree (sequence split across GPUs)
    std::uint64_t ep = 1;           ///< expert-parallel degree (MoE experts split across GPUs)
    std::uint64_t virtual_stages = 1;  ///< interleaved 1F1B model chunks per GPU (Narayanan et al. 2021, §2.2)
    std::int64_t zero_stage = 0;    ///< 0..3
    fsdp_strategy fsdp = fsdp_strategy::unset;  ///< FSDP name of the sharding; sets zero_stage (resolve_layout)
    std::uint64_t zero_shard_size = 0;  ///< GPUs one ZeRO shard group spans (hybrid/FSDP HYBRID_SHARD); 0 = the whole group
    bool sequence_parallel = false; ///< Megatron sequence parallelism (shards norm/dropout activations over tp)
    bool partition_activations = false;  ///< DeepSpeed ZeRO-R Pa: checkpointed layer inputs sharded over tp
    std::uint64_t zero_bucket_params = 500000000;       ///< DeepSpeed allgather bucket, in elements
    std::uint64_t zero3_max_live_params = 1000000000;   ///< DeepSpeed stage3_max_live_parameters
    comm_buffer_model comm_buffers = comm_buffer_model::memplan;  ///< how communication buffers are counted
    std::uint64_t reduce_bucket_params = 500000000;     ///< DeepSpeed reduce_bucket_size, elements
    overlap_setting overlap_comm = overlap_setting::auto_default;  ///< DeepSpeed overlap_comm
    std::uint64_t stage3_prefetch_bucket_params = 50000000;  ///< DeepSpeed stage3_prefetch_bucket_size, elements
    offload_target offload_optimizer = offload_target::none;  ///< optimizer states (and fp32 master) off the GPU
    offload_target offload_params = offload_target::none;     ///< parameters off the GPU (ZeRO-3 only)
    std::uint64_t gpus_per_node = 8;  ///< for host memory per node
};

/// A training step.
struct train_config {
    std::uint64_t micro_batch = 1;      ///< sequences per micro-batch b
    std::uint64_t seq_len = 2048;       ///< tokens per sequence s
    recompute_mode recompute = recompute_mode::none;
    /// With recompute full: layers of each pipeline stage that recompute, the others keep every activation
    /// (Megatron-LM --recompute-method block --recompute-num-layers; torchtitan's every-k-th-block option);
    /// 0 = not set, every layer. The mapping from both frameworks' flags is in the schema's description.
    std::uint64_t recompute_layers = 0;
    bool flash_attention = true;        ///< attention scores never materialised
    dtype weight_dtype = dtype::bf16;   ///< parameters used in forward/backward (fp8: Transformer Engine)
    dtype grad_dtype = dtype::bf16;     ///< gradient buffers
    bool master_weights = true;         ///< fp32 master copy kept by the optimizer when weights are below 32 bits
    optimizer_kind optimizer = optimizer_kind::adam;
    std::uint64_t microbatches_in_flight = 0;  ///< activations held by the first stage; 0 = pp (1F1B)
    // Fine-tuning (memplan/adapters.hpp). Defaults reproduce full fine-tuning.
    adapter_kind adapter_type = adapter_kind::none;  ///< LoRA/DoRA adapters on a frozen base; none = full fine-tuning
    std::uint64_t adapter_rank = 8;     ///< r (PEFT LoraConfig default 8)
    std::string adapter_targets = "all-linear";  ///< comma-separated module names, or "all-linear" (PEFT target_modules)
    bool adapter_dropout = false;       ///< lora_dropout > 0: each adapted linear keeps its own dropped-out input
    float_precision adapter_dtype = float_precision::fp32;  ///< adapter weights and gradients (PEFT autocast_adapter_dtype: fp32)
    std::string modules_to_save;        ///< comma-separated: lm_head, embed_tokens (fully trained copies, PEFT modules_to_save)
    base_precision base_dtype = base_precision::bf16;  ///< storage of the frozen base under an adapter
    bool double_quant = false;          ///< nf4/fp4: quantized absmax constants (bnb_4bit_use_double_quant)
    bool base_keeps_inputs = false;     ///< nf4/fp4 under bitsandbytes < 0.44: every base linear keeps its input
    bool kbit_prepare = false;          ///< PEFT prepare_model_for_kbit_training: the base's unquantized parameters in fp32
    bool kbit_prepare_given = false;    ///< whether the configuration gave train.kbit_prepare (else an assumption, warned)
    float_precision optimizer_state_dtype = float_precision::fp32;  ///< Adam moments, momentum, Adafactor factors
    bool paged_optimizer = false;       ///< bitsandbytes paged optimizer: states in unified memory, may spill to the host
    bool optimizer_in_backward = false; ///< optimizer step fused into backward: one layer's gradients live at a time
    bool activation_offload = false;    ///< checkpointed layer inputs kept in host memory (needs recompute full)
    std::uint64_t loss_chunks = 1;      ///< chunked cross-entropy: the fp32 logits are upcast chunk by chunk
    kernel_kind kernels = kernel_kind::fused;  ///< fused CUDA kernels or eager PyTorch (norms)
    train_framework framework = train_framework::none;  ///< the framework whose conventions are stated
    /// The framework's defaults applied to fields the configuration did not give: bit i set when entry i of
    /// framework_defaults() (memplan/memory/frameworks.hpp) was applied. Set by apply_framework_defaults.
    std::uint32_t framework_defaults = 0;
};

/// How serving memory is counted: plain accounting (weights + batch × context KV cache), or the
/// arithmetic of a serving engine that sizes its KV cache pool at start-up (memplan/serving.hpp).
enum class serving_engine { none, vllm, sglang, trtllm };

/// The vLLM release line of a run (infer.engine_version; the names are "0.6" … "0.27", every line).
/// Behaviour keyed on it: V0 (0.6, 0.7) or V1, the sampler's profiled bytes, and whether the CUDA-graph
/// estimate is subtracted before sizing the KV cache (from 0.21: vllm/envs.py
/// VLLM_MEMORY_PROFILER_ESTIMATE_CUDAGRAPHS). Only some lines are modelled from their own source and logs;
/// the others take the nearest modelled line's figures (modelled_vllm_line), said in a warning.
enum class engine_release {
    v0_6, v0_7, v0_8, v0_9, v0_10, v0_11, v0_12, v0_13, v0_14, v0_15, v0_16, v0_17, v0_18,
    v0_19, v0_20, v0_21, v0_22, v0_23, v0_24, v0_25, v0_26, v0_27
};

/// The CUDA compute capability (major × 10 + minor: 80 for an A100, 90 for an H100, 100 for a B200, 120 for
/// an RTX 5090) of a GPU named by its catalogue id ("a100-sxm-80gb") or its driver name ("NVIDIA
/// A100-SXM4-80GB"), from NVIDIA's published table (developer.nvidia.com/cuda-gpus); 0 when the name is
/// empty, not an NVIDIA GPU memplan knows, or not recognised. vLLM picks its MXFP4 MoE kernel by it.
unsigned nvidia_compute_capability(const std::string& gpu_name);

/// The modelled release line whose figures a run of `release` takes: itself where it is modelled
/// (0.6, 0.9, 0.10, 0.11, 0.18, 0.19, 0.21, 0.24 … 0.27), else the nearest modelled line on the same
/// engine generation (0.7 → 0.6, V0; 0.8 → 0.9, V1 by default from 0.8.0; 0.12–0.14 → 0.11;
/// 0.15–0.17 → 0.18; 0.20 → 0.19, as it does not yet subtract the CUDA-graph estimate; 0.22, 0.23 → 0.21).
engine_release modelled_vllm_line(engine_release release);

/// How vLLM was started (infer.vllm_entrypoint), which picks its scheduler defaults: `vllm serve` runs
/// under UsageContext.OPENAI_API_SERVER, the Python `LLM(...)` class under UsageContext.LLM_CLASS
/// (vllm/usage/usage_lib.py; vllm/engine/arg_utils.py EngineArgs._set_default_args, vllm-project/vllm 99d7eb5d).
enum class vllm_entrypoint { serve, llm };

/// Serving: weights plus a KV cache.
struct infer_config {
    std::uint64_t batch = 1;            ///< concurrent sequences
    std::uint64_t context_len = 2048;   ///< tokens cached per sequence (prompt + generated)
    dtype weight_dtype = dtype::bf16;   ///< block linear weights; embeddings and norms stay in bf16 when quantized
    dtype kv_dtype = dtype::bf16;
    std::uint64_t quant_group_size = 0; ///< weights quantized in groups of G with an fp16 scale and a zero point; 0 = no group overhead
    bool flash_attention = true;        ///< prefill attention without a score matrix
    std::uint64_t prefill_tokens = 0;   ///< tokens per sequence in one prefill pass (chunked prefill); 0 = context_len
    bool chunked_prefill = true;        ///< prefill in passes of the scheduler step's tokens (max_num_batched_tokens); false = the whole batch in one pass
    // Serving engines (memplan/serving.hpp); fractions are in thousandths (900 = 0.9).
    serving_engine engine = serving_engine::none;  ///< none: plain accounting (no engine arithmetic)
    engine_release engine_version = engine_release::v0_27;  ///< the vLLM release reproduced (a current one by default)
    vllm_entrypoint entrypoint = vllm_entrypoint::serve;  ///< `vllm serve` or the LLM class: vLLM's scheduler defaults
    std::uint64_t gpu_memory_utilization_permille = 900;  ///< vLLM --gpu-memory-utilization × 1000
    std::uint64_t mem_fraction_static_permille = 0;       ///< SGLang --mem-fraction-static × 1000; 0 = not set (required for sglang)
    std::uint64_t free_gpu_memory_fraction_permille = 900;  ///< TensorRT-LLM KvCacheConfig.free_gpu_memory_fraction × 1000
    std::uint64_t max_model_len = 0;    ///< longest request the engine must hold; 0 = infer.context_len
    std::uint64_t block_size = 0;       ///< tokens per KV block/page; 0 = the engine's default (vLLM 16, SGLang 1, TensorRT-LLM 32)
    std::uint64_t max_num_batched_tokens = 0;  ///< tokens of one scheduler step (vLLM profiling run); 0 = engine default
    std::uint64_t max_num_seqs = 0;     ///< sequences of one scheduler step (vLLM sampler profiling); 0 = engine default
    /// Decode context parallelism (vLLM --decode-context-parallel-size): the cache of the full-attention and MLA
    /// layers striped token by token over this many of the tensor-parallel ranks instead of replicated on each.
    std::uint64_t decode_context_parallel_size = 1;
    bool enforce_eager = false;         ///< vLLM --enforce-eager: no CUDA graphs
    std::uint64_t max_tokens = 0;       ///< TensorRT-LLM KvCacheConfig.max_tokens cap; 0 = none
    std::uint64_t swap_space_bytes = 0; ///< vLLM V0 --swap-space (CPU blocks); 0 = none
    std::uint64_t kv_cache_memory_bytes = 0;  ///< vLLM --kv-cache-memory: KV pool size given outright; 0 = from the budget
    std::uint64_t weights_bytes = 0;    ///< measured weight memory per GPU (engine log); 0 = memplan's count
    std::uint64_t activation_peak_bytes = 0;  ///< measured activation peak of the profiling run; 0 = modelled
    std::uint64_t non_torch_bytes = 0;  ///< measured memory outside PyTorch's allocator (NCCL, cuBLAS); 0 = assumed
    std::uint64_t cuda_graph_bytes = 0; ///< measured CUDA-graph memory counted in the budget; 0 = not counted
    std::string draft_preset;           ///< speculative decoding: draft model preset id; "" = none
    /// The draft's architecture, resolved from draft_preset by the reader (parse_config) and by
    /// estimate() (memplan/api/estimate.hpp); empty while draft_preset names no stored model.
    std::optional<model_config> draft_model;
    /// Recurrent state of linear-attention and Mamba layers (vLLM's mamba_ssm_cache_dtype "auto"
    /// follows the model dtype, bf16; fp32 is the common override). The readers (parse_config, the
    /// numeric estimator) set it to model.ssm_state_dtype when it is not given (state_dtype_given false).
    dtype state_dtype = dtype::bf16;
    /// True when infer.state_dtype was given; a reader that puts another model in the configuration
    /// then keeps it, otherwise the state follows the new model's ssm_state_dtype.
    bool state_dtype_given = false;
    /// True when infer.weight_dtype was given; otherwise a quantized checkpoint is served in its
    /// native format (model.checkpoint) and an unquantized one in weight_dtype.
    bool weight_dtype_given = false;
};

/// One whole estimate request.
struct estimate_config {
    run_mode mode = run_mode::train;
    model_config model;
    parallel_config parallel;
    train_config train;
    infer_config infer;
    /// CUDA context and framework overhead per GPU. Default: the CUDA context PyTorch measured with lazy
    /// module loading, 287,047,680 B (cudaMemGetInfo total - free after one small tensor op; pytorch/pytorch
    /// pull request 86509, the change that made CUDA_MODULE_LOADING=LAZY PyTorch's default in 1.13). Kernels
    /// loaded later (cuBLAS, NCCL) and allocator fragmentation come on top: the user states them here.
    std::uint64_t misc_bytes = 287047680;
    std::uint64_t gpu_memory_bytes = 0; ///< capacity of one GPU; 0 = not given (no fit verdict)
    /// The GPU's name as the driver reports it ("NVIDIA A100-SXM4-80GB") or a catalogue id or name
    /// ("a100-sxm-80gb"); "" = not given. vLLM's scheduler defaults depend on it (an A100 keeps the small ones).
    std::string gpu_name;
};

/// vLLM's scheduler step: the tokens (max_num_batched_tokens) and sequences (max_num_seqs) of one step,
/// the size of its profiling run.
struct vllm_scheduler_step {
    std::uint64_t max_num_batched_tokens = 0;
    std::uint64_t max_num_seqs = 0;
    /// True when the GPU's name decided the defaults and none was given (gpu.name empty on a GPU of
    /// 70 GiB or more under a V1 release): the GPU was taken not to be an A100; the caller warns.
    bool assumed_not_a100 = false;
};

/// The one place of vLLM's scheduler defaults, per release line, GPU and entry point; docs/serving.md
/// has the table. `max_model_len` is the longest request; `gpu_memory_bytes` 0 and an empty `gpu_name`
/// are "not known" (vLLM then takes device memory 0: the small defaults).
///  - 0.6 (V0): 256 sequences; max(max_model_len, 2048) tokens, or 2048 when V0 turns chunked prefill
///    on by itself above 32,768 tokens (vllm/config.py SchedulerConfig.__post_init__ at v0.6.6.post1;
///    512 before vllm-project/vllm pull request 10544, i.e. 0.6.0 to 0.6.4).
///  - V1 lines (0.9 on): a GPU of 70 GiB or more whose name does not contain "a100" gets `vllm serve`
///    8192 tokens and 1024 sequences, the LLM class 16384 and 1024; any other GPU `vllm serve` 2048 and
///    256, the LLM class 8192 and 256 (vllm/engine/arg_utils.py EngineArgs._set_default_args,
///    vllm-project/vllm 99d7eb5d; get_batch_defaults in later releases).
vllm_scheduler_step vllm_default_scheduler_step(engine_release release, vllm_entrypoint entrypoint,
                                                std::uint64_t gpu_memory_bytes, const std::string& gpu_name,
                                                std::uint64_t max_model_len);

/// The scheduler step of an inference configuration: infer.max_num_batched_tokens and infer.max_num_seqs
/// where given, else vllm_default_scheduler_step for its release, entry point and GPU; under V1 a
/// defaulted max_num_seqs is at most the step's tokens (vllm/engine/arg_utils.py
/// EngineArgs._set_default_args, vllm-project/vllm 99d7eb5d: min(default, max_num_batched_tokens)).
vllm_scheduler_step vllm_scheduler_step_of(const estimate_config& c);

/// The modelled line a configuration's vLLM run takes: modelled_vllm_line of infer.engine_version, except
/// that 0.8, 0.9 and 0.10 fall back to the V0 engine (0.6's figures) on a GPU below compute capability 8.0
/// named in gpu.name (vllm/engine/arg_utils.py EngineArgs._is_v1_supported_oracle, "Compute Capability <
/// 8.0"; V0 was removed in 0.11).
engine_release effective_vllm_line(const estimate_config& c);
/// The same under another release line than infer.engine_version (the engines whose generic activation
/// model takes vLLM's V1 step whatever infer.engine_version says).
vllm_scheduler_step vllm_scheduler_step_of(const estimate_config& c, engine_release release);

/// Tokens of one prefill chunk an inference estimate assumes: the scheduler step's tokens
/// (vllm_scheduler_step_of); 0 when infer.chunked_prefill is off.
std::uint64_t prefill_chunk_tokens(const estimate_config& c);

/// Bits per element of a dtype (int4 = 4).
std::uint64_t dtype_bits(dtype type);

/// Names used in JSON, the CLI and the page.
const char* to_string(dtype type);
const char* to_string(run_mode mode);
const char* to_string(recompute_mode mode);
const char* to_string(optimizer_kind kind);
const char* to_string(norm_kind kind);
const char* to_string(mlp_kind kind);
const char* to_string(offload_target target);
const char* to_string(attention_kind kind);
const char* to_string(layer_mlp_kind kind);
const char* to_string(checkpoint_format format);
const char* to_string(fsdp_strategy strategy);
const char* to_string(comm_buffer_model model);
const char* to_string(overlap_setting setting);
const char* to_string(serving_engine engine);
const char* to_string(engine_release release);
const char* to_string(vllm_entrypoint entrypoint);
const char* to_string(adapter_kind kind);
const char* to_string(base_precision precision);
const char* to_string(float_precision precision);
const char* to_string(kernel_kind kind);
const char* to_string(train_framework framework);

/// Parses a name; false when `name` is not one of the names above.
bool parse_enum(const std::string& name, dtype& out);
bool parse_enum(const std::string& name, run_mode& out);
bool parse_enum(const std::string& name, recompute_mode& out);
bool parse_enum(const std::string& name, optimizer_kind& out);
bool parse_enum(const std::string& name, norm_kind& out);
bool parse_enum(const std::string& name, mlp_kind& out);
bool parse_enum(const std::string& name, offload_target& out);
bool parse_enum(const std::string& name, attention_kind& out);
bool parse_enum(const std::string& name, layer_mlp_kind& out);
bool parse_enum(const std::string& name, checkpoint_format& out);
bool parse_enum(const std::string& name, fsdp_strategy& out);
bool parse_enum(const std::string& name, comm_buffer_model& out);
bool parse_enum(const std::string& name, overlap_setting& out);
bool parse_enum(const std::string& name, serving_engine& out);
bool parse_enum(const std::string& name, engine_release& out);
bool parse_enum(const std::string& name, vllm_entrypoint& out);
bool parse_enum(const std::string& name, adapter_kind& out);
bool parse_enum(const std::string& name, base_precision& out);
bool parse_enum(const std::string& name, float_precision& out);
bool parse_enum(const std::string& name, kernel_kind& out);
bool parse_enum(const std::string& name, train_framework& out);

/// The allowed names of an enumeration, comma-separated in declaration order ("fp32,bf16,…");
/// the argument only selects the enumeration.
const char* choice_names(dtype);
const char* choice_names(run_mode);
const char* choice_names(recompute_mode);
const char* choice_names(optimizer_kind);
const char* choice_names(norm_kind);
const char* choice_names(mlp_kind);
const char* choice_names(offload_target);
const char* choice_names(fsdp_strategy);
const char* choice_names(comm_buffer_model);
const char* choice_names(overlap_setting);
const char* choice_names(serving_engine);
const char* choice_names(engine_release);
const char* choice_names(vllm_entrypoint);
const char* choice_names(adapter_kind);
const char* choice_names(base_precision);
const char* choice_names(float_precision);
const char* choice_names(kernel_kind);
const char* choice_names(train_framework);
const char* choice_names(checkpoint_format);

/// ZeRO stage of an FSDP strategy (unset: -1).
std::int64_t zero_stage_of(fsdp_strategy strategy);



/// Fills in what the configuration's names imply: an FSDP strategy's ZeRO stage and, for hybrid
/// strategies without an explicit parallel.zero_shard_size, a shard group of the data-parallel ranks
/// of one node (gpus_per_node / (tp · pp), at most the data-parallel × context-parallel group).
/// Errors name the conflicting field.
diagnostics resolve_layout(estimate_config& config, bool zero_stage_given, bool shard_size_given);

/// The recurrent state's precision once the model is known: infer.state_dtype when given
/// (infer.state_dtype_given), else the checkpoint's declared model.ssm_state_dtype, as vLLM's
/// Qwen3_5ForConditionalGenerationConfig sets mamba_ssm_cache_dtype "auto" (model_executor/models/config.py).
inline void follow_model_state_dtype(estimate_config& config) {
    if (!config.infer.state_dtype_given) config.infer.state_dtype = config.model.ssm_state_dtype;
}

}  // namespace memplan
