// The schema: every configuration field outside `model`, with its range, default (the struct
// initializer in config.hpp), label and help. The JSON reader (json.cpp), validation
// (validate.cpp), the resolved-configuration echo and the page's form all read this table.
#include "memplan/config/schema.hpp"

#include <algorithm>
#include <cstring>

#include <nlohmann/json.hpp>

#include "base/checks.hpp"
#include "config/schema_rows.hpp"

namespace memplan {

namespace {
constexpr const char* train_only = "train";
constexpr const char* infer_only = "infer";
constexpr const char* both = "train,infer";
}  // namespace

const std::vector<field_spec>& config_fields() {
    // Built once; immutable afterwards.
    static const std::vector<field_spec> fields = {
        MEMPLAN_CHOICE("mode", mode, "Task", "train: one training step; infer: serving with a KV cache.", both),

        MEMPLAN_INTEGER("parallel.gpus", parallel.gpus, 1, max_gpu_count, "GPUs",
                        "Total GPUs; the data-parallel degree is gpus / (tp · pp · cp).", "GPUs", both),
        MEMPLAN_INTEGER("parallel.tp", parallel.tp, 1, max_parallel_degree, "Tensor parallel",
                        "GPUs each layer's matrices are split over (Megatron-LM tensor parallelism).", "GPUs", both),
        MEMPLAN_INTEGER("parallel.pp", parallel.pp, 1, max_parallel_degree, "Pipeline parallel",
                        "Pipeline stages; each holds a contiguous slice of the layers.", "GPUs", both),
        MEMPLAN_INTEGER("parallel.cp", parallel.cp, 1, max_parallel_degree, "Context parallel",
                        "GPUs the sequence is split over.", "GPUs", both),
        MEMPLAN_INTEGER("parallel.ep", parallel.ep, 1, max_parallel_degree, "Expert parallel",
                        "GPUs the experts of a mixture-of-experts layer are split over.", "GPUs", both),
        MEMPLAN_INTEGER("parallel.virtual_stages", parallel.virtual_stages, 1, max_virtual_stages,
                        "Interleaved chunks", "Model chunks per GPU in the interleaved 1F1B pipeline schedule.", "",
                        train_only),
        MEMPLAN_INTEGER("parallel.zero_stage", parallel.zero_stage, 0, 3, "ZeRO stage",
                        "0: replicated; 1: optimizer states sharded; 2: and gradients; 3: and weights.", "",
                        train_only),
        MEMPLAN_CHOICE("parallel.fsdp", parallel.fsdp, "FSDP strategy",
                       "PyTorch FSDP sharding strategy; sets the ZeRO stage (hybrid: shard within a node).",
                       train_only),
        MEMPLAN_OPTIONAL_INTEGER("parallel.zero_shard_size", parallel.zero_shard_size, 1, max_gpu_count,
                                 "Shard group", "GPUs one ZeRO shard group spans (hybrid sharding); "
                                                "not set: the whole data-parallel group.", "GPUs", train_only),
        MEMPLAN_BOOLEAN("parallel.sequence_parallel", parallel.sequence_parallel, "Sequence parallel",
                        "Megatron sequence parallelism: norm and dropout activations split over tp.", train_only),
        MEMPLAN_BOOLEAN("parallel.partition_activations", parallel.partition_activations,
                        "Partition activations", "DeepSpeed: checkpointed layer inputs split over tp.", train_only),
        MEMPLAN_INTEGER("parallel.zero_bucket_params", parallel.zero_bucket_params, 0, max_param_count,
                        "Allgather bucket", "DeepSpeed allgather bucket size.", "elements", train_only),
        MEMPLAN_INTEGER("parallel.zero3_max_live_params", parallel.zero3_max_live_params, 0, max_param_count,
                        "ZeRO-3 live parameters", "DeepSpeed stage3_max_live_parameters.", "elements", train_only),
        MEMPLAN_CHOICE("parallel.comm_buffers", parallel.comm_buffers, "Communication buffers",
                       "memplan: the allgather bucket and ZeRO-3 live parameters; deepspeed: what DeepSpeed "
                       "allocates (reduce buckets, overlap_comm, prefetch, the largest layer's copy).",
                       train_only),
        MEMPLAN_INTEGER("parallel.reduce_bucket_params", parallel.reduce_bucket_params, 0, max_param_count,
                        "Reduce bucket", "DeepSpeed reduce_bucket_size (with comm_buffers deepspeed).", "elements",
                        train_only),
        MEMPLAN_CHOICE("parallel.overlap_comm", parallel.overlap_comm, "Overlap communication",
                       "DeepSpeed overlap_comm: auto is its default (on at ZeRO stage 3 only).", train_only),
        MEMPLAN_INTEGER("parallel.stage3_prefetch_bucket_params", parallel.stage3_prefetch_bucket_params, 0,
                        max_param_count, "ZeRO-3 prefetch bucket", "DeepSpeed stage3_prefetch_bucket_size.",
                        "elements", train_only),
        MEMPLAN_CHOICE("parallel.offload_optimizer", parallel.offload_optimizer, "Offload optimizer",
                       "Optimizer states and fp32 master weights moved to CPU memory or NVMe (ZeRO-Offload).",
                       train_only),
        MEMPLAN_CHOICE("parallel.offload_params", parallel.offload_params, "Offload parameters",
                       "Parameters moved to CPU memory or NVMe (ZeRO-Infinity; needs ZeRO stage 3).", train_only),
        MEMPLAN_INTEGER("parallel.gpus_per_node", parallel.gpus_per_node, 1, max_gpus_per_node, "GPUs per node",
                        "For host memory per node and hybrid sharding.", "GPUs", both),

        MEMPLAN_INTEGER("train.micro_batch", train.micro_batch, 1, max_batch_size, "Micro-batch size",
                        "Sequences per micro-batch on one GPU.", "sequences", train_only),
        MEMPLAN_INTEGER("train.seq_len", train.seq_len, 1, max_token_count, "Sequence length",
                        "Tokens per training sequence.", "tokens", train_only),
        MEMPLAN_CHOICE("train.recompute", train.recompute, "Activation checkpointing",
                       "none: keep every activation; selective: recompute attention; full: keep only each "
                       "layer's input; selective_op: torchtitan op-level SAC (keep the layer input, every other "
                       "matmul's output and the attention kernel's outputs, recompute the rest).",
                       train_only),
        MEMPLAN_OPTIONAL_INTEGER("train.recompute_layers", train.recompute_layers, 1, max_layer_count,
                                 "Recomputed layers per stage",
                                 "With recompute full: layers of each pipeline stage (all its virtual stages) that "
                                 "recompute; the others keep every activation. Not set: every layer. Megatron-LM "
                                 "--recompute-granularity full --recompute-method block --recompute-num-layers N is N "
                                 "(N × virtual stages when interleaved); torchtitan selective_ac_option k (every k-th "
                                 "block) is floor(stage layers / k).",
                                 "layers", train_only),
        MEMPLAN_BOOLEAN("train.flash_attention", train.flash_attention, "FlashAttention",
                        "Attention without a stored score matrix.", train_only),
        MEMPLAN_CHOICE("train.weight_dtype", train.weight_dtype, "Weights",
                       "Precision of the weights used in forward and backward.", train_only),
        MEMPLAN_CHOICE("train.grad_dtype", train.grad_dtype, "Gradients", "Precision of the gradient buffers.",
                       train_only),
        MEMPLAN_BOOLEAN("train.master_weights", train.master_weights, "fp32 master weights",
                        "The optimizer keeps an fp32 copy of weights narrower than 32 bits.", train_only),
        MEMPLAN_CHOICE("train.optimizer", train.optimizer, "Optimizer", "Optimizer whose states are kept per parameter.",
                       train_only),
        MEMPLAN_OPTIONAL_INTEGER("train.microbatches_in_flight", train.microbatches_in_flight, 1, max_batch_size,
                                 "Micro-batches in flight",
                                 "Micro-batches whose activations the first stage holds; not set: pp (1F1B).",
                                 "micro-batches", train_only),
        // Fine-tuning (memplan/adapters.hpp); the defaults are full fine-tuning.
        MEMPLAN_CHOICE("train.adapter_type", train.adapter_type, "Adapter",
                       "none: full fine-tuning; lora / dora: low-rank adapters on a frozen base (PEFT).", train_only),
        MEMPLAN_INTEGER("train.adapter_rank", train.adapter_rank, 1, 65536, "Adapter rank",
                        "LoRA rank r: r·(d_in + d_out) trainable parameters per adapted linear.", "", train_only),
        MEMPLAN_TEXT("train.adapter_targets", train.adapter_targets, "Adapter targets",
                     "all-linear (every block linear, not lm_head) or comma-separated names: q_proj, k_proj, v_proj, "
                     "o_proj, gate_proj, up_proj, down_proj, router, shared_expert_gate, lm_head, embed_tokens.",
                     train_only),
        MEMPLAN_BOOLEAN("train.adapter_dropout", train.adapter_dropout, "Adapter dropout",
                        "lora_dropout > 0: each adapted linear keeps its own dropped-out input and mask.", train_only),
        MEMPLAN_CHOICE("train.adapter_dtype", train.adapter_dtype, "Adapter precision",
                       "Adapter weights and their gradients (PEFT keeps adapters in fp32 by default).", train_only),
        MEMPLAN_TEXT("train.modules_to_save", train.modules_to_save, "Modules to save",
                     "Comma-separated modules trained in full as copies (lm_head, embed_tokens); empty: none.",
                     train_only),
        MEMPLAN_CHOICE("train.base_dtype", train.base_dtype, "Frozen base",
                       "Storage of the frozen base under an adapter: bf16/fp16/fp32, fp8, int8 (LLM.int8), "
                       "nf4/fp4 (QLoRA 4-bit).",
                       train_only),
        MEMPLAN_BOOLEAN("train.double_quant", train.double_quant, "Double quantization",
                        "4-bit base: quantized absmax constants (4.127 instead of 4.5 bits per weight).", train_only),
        MEMPLAN_BOOLEAN("train.base_keeps_inputs", train.base_keeps_inputs, "Base keeps inputs",
                        "4-bit base under bitsandbytes before 0.44 (LitGPT pins 0.42): every frozen linear keeps its "
                        "input for backward; 0.44 and later keep only the packed weight.", train_only),
        MEMPLAN_BOOLEAN("train.kbit_prepare", train.kbit_prepare, "kbit preparation",
                        "int8/4-bit base: the script calls PEFT's prepare_model_for_kbit_training, which keeps every "
                        "unquantized base parameter (embeddings, output layer, norms) in fp32.", train_only),
        MEMPLAN_CHOICE("train.optimizer_state_dtype", train.optimizer_state_dtype, "Optimizer states",
                       "Precision of Adam moments, momentum and Adafactor factors.", train_only),
        MEMPLAN_BOOLEAN("train.paged_optimizer", train.paged_optimizer, "Paged optimizer",
                        "bitsandbytes paged states in unified memory (cudaMallocManaged), outside PyTorch's allocator: "
                        "not in its allocated or reserved peak; resident on the GPU while it has room, paged to host "
                        "memory beyond (details.paged_optimizer_resident_bytes, paged_optimizer_host_bytes).",
                        train_only),
        MEMPLAN_BOOLEAN("train.optimizer_in_backward", train.optimizer_in_backward, "Optimizer in backward",
                        "Each layer's parameters are updated during backward: one layer's gradients live at a time.",
                        train_only),
        MEMPLAN_BOOLEAN("train.activation_offload", train.activation_offload, "Offload activations",
                        "Checkpointed layer inputs moved to host memory (needs full checkpointing).", train_only),
        MEMPLAN_INTEGER("train.loss_chunks", train.loss_chunks, 1, 65536, "Loss chunks",
                        "Chunked cross-entropy: the fp32 logits exist for one chunk of tokens at a time.", "chunks",
                        train_only),
        MEMPLAN_CHOICE("train.kernels", train.kernels, "Kernels",
                       "fused CUDA kernels, or eager PyTorch (Hugging Face RMSNorm keeps fp32 copies of its input).",
                       train_only),
        MEMPLAN_CHOICE("train.framework", train.framework, "Framework",
                       "The training framework run: memplan states its conventions, refuses layouts it does not have "
                       "and names the figure its log prints (allocated or reserved); the train.* fields it has a default for "
                       "and the configuration leaves unset take its default, listed in the result's framework_defaults. "
                       "none: no framework named.",
                       train_only),

        MEMPLAN_INTEGER("infer.batch", infer.batch, 1, max_batch_size, "Batch", "Concurrent sequences.",
                        "sequences", infer_only),
        MEMPLAN_INTEGER("infer.context_len", infer.context_len, 1, max_token_count, "Context length",
                        "Tokens cached per sequence (prompt + generated).", "tokens", infer_only),
        MEMPLAN_OPTIONAL_CHOICE("infer.weight_dtype", infer.weight_dtype, infer.weight_dtype_given, "Weights",
                                "Storage of the block linear weights; embeddings and norms stay bf16 when quantized. "
                                "Not set: as the checkpoint stores them (a quantized checkpoint in its format, "
                                "model.checkpoint; model.stored_weight_bytes when given; otherwise bf16).",
                                infer_only),
        MEMPLAN_CHOICE("infer.kv_dtype", infer.kv_dtype, "KV cache", "Precision of the cached keys and values.",
                       infer_only),
        MEMPLAN_OPTIONAL_INTEGER("infer.quant_group_size", infer.quant_group_size, 1, max_width, "Quantization group",
                                 "Weights per fp16 scale and zero point (int4/int8); not set: no group overhead.",
                                 "weights", infer_only),
        MEMPLAN_BOOLEAN("infer.flash_attention", infer.flash_attention, "FlashAttention",
                        "Prefill attention without a score matrix.", infer_only),
        MEMPLAN_CHOICE("infer.state_dtype", infer.state_dtype, "Recurrent state",
                       "Precision of the fixed per-sequence state of linear-attention and Mamba layers (vLLM "
                       "mamba_ssm_cache_dtype).",
                       infer_only),
        MEMPLAN_OPTIONAL_INTEGER("infer.prefill_tokens", infer.prefill_tokens, 1, max_token_count, "Prefill chunk",
                                 "Tokens per sequence in one prefill pass (chunked prefill); not set: the context.",
                                 "tokens", infer_only),
        // vLLM V1 always prefills in chunks of max_num_batched_tokens (vllm/engine/arg_utils.py
        // EngineArgs._set_default_args, vllm-project/vllm 99d7eb5d).
        MEMPLAN_BOOLEAN("infer.chunked_prefill", infer.chunked_prefill, "Chunked prefill",
                        "Prefill at most Max batched tokens in one pass, as vLLM V1 does; off: the whole batch "
                        "(batch × prefill chunk, or × the context) in one pass.",
                        infer_only),
        // Serving engines (memplan/serving.hpp, docs/serving.md): the engine's own KV-pool arithmetic.
        MEMPLAN_CHOICE("infer.engine", infer.engine, "Serving engine",
                       "none: plain accounting; vllm, sglang, trtllm: size the KV cache pool as that engine does at "
                       "start-up.",
                       infer_only),
        MEMPLAN_CHOICE("infer.engine_version", infer.engine_version, "vLLM release",
                       "The vLLM release line whose start-up arithmetic is reproduced (0.6, 0.7: the V0 engine; from "
                       "0.21 the CUDA-graph estimate is subtracted before sizing the KV cache). Lines not modelled on "
                       "their own (0.7, 0.8, 0.12-0.17, 0.20, 0.22, 0.23) take the nearest modelled line's figures, "
                       "said in a warning (serving.release_modelled). SGLang and TensorRT-LLM reproduce one pinned "
                       "commit each (serving.engine_version).",
                       infer_only),
        // vllm/usage/usage_lib.py UsageContext; the defaults it picks: vllm/engine/arg_utils.py
        // EngineArgs._set_default_args (vllm-project/vllm 99d7eb5d).
        MEMPLAN_CHOICE("infer.vllm_entrypoint", infer.entrypoint, "vLLM entry point",
                       "How vLLM is started, which picks its scheduler defaults: serve (vllm serve, the OpenAI "
                       "API server) or llm (the Python LLM class: twice or four times the batched tokens).",
                       infer_only),
        MEMPLAN_INTEGER("infer.gpu_memory_utilization_permille", infer.gpu_memory_utilization_permille, 1, 1000,
                        "GPU memory utilization", "vLLM --gpu-memory-utilization in thousandths (900 = 0.9).",
                        "permille", infer_only),
        MEMPLAN_OPTIONAL_INTEGER("infer.mem_fraction_static_permille", infer.mem_fraction_static_permille, 1, 1000,
                                 "Static memory fraction",
                                 "SGLang --mem-fraction-static in thousandths; required with engine sglang.",
                                 "permille", infer_only),
        MEMPLAN_INTEGER("infer.free_gpu_memory_fraction_permille", infer.free_gpu_memory_fraction_permille, 1, 1000,
                        "Free memory fraction",
                        "TensorRT-LLM free_gpu_memory_fraction in thousandths: the share of the memory free after "
                        "loading that becomes KV cache.",
                        "permille", infer_only),
        MEMPLAN_OPTIONAL_INTEGER("infer.max_model_len", infer.max_model_len, 1, max_token_count, "Max model length",
                                 "Longest request (prompt + output) the engine must hold; not set: infer.context_len.",
                                 "tokens", infer_only),
        MEMPLAN_OPTIONAL_INTEGER("infer.block_size", infer.block_size, 1, max_token_count, "Block size",
                                 "Tokens per KV block or page; not set: the engine's default (vLLM 16, SGLang 1, "
                                 "TensorRT-LLM 32).",
                                 "tokens", infer_only),
        MEMPLAN_OPTIONAL_INTEGER("infer.max_num_batched_tokens", infer.max_num_batched_tokens, 1, max_token_count,
                                 "Max batched tokens",
                                 "Tokens of one scheduler step: the chunk of a chunked prefill and the size of "
                                 "vLLM's profiling run; not set: vLLM's default (vllm serve: 8192 on GPUs of 70 GiB "
                                 "or more other than the A100, else 2048; the LLM class 16384 and 8192; release "
                                 "0.6: max(Max model length, 2048), 2048 above 32,768 tokens).",
                                 "tokens", infer_only),
        MEMPLAN_INTEGER("infer.decode_context_parallel_size", infer.decode_context_parallel_size, 1, max_parallel_degree,
                        "Decode context parallel",
                        "vLLM --decode-context-parallel-size: the full-attention and MLA cache striped token by token "
                        "over this many tensor-parallel ranks instead of replicated on each (vLLM "
                        "docs/serving/context_parallel_deployment.md); 1 to tp / KV heads, no more GPUs.",
                        "GPUs", infer_only),
        MEMPLAN_OPTIONAL_INTEGER("infer.max_num_seqs", infer.max_num_seqs, 1, max_batch_size, "Max sequences",
                                 "Sequences of one scheduler step (vLLM's sampler profiling); not set: vLLM's default "
                                 "(1024 on GPUs of 70 GiB or more other than the A100, else 256; release 0.6: 256).",
                                 "sequences", infer_only),
        MEMPLAN_BOOLEAN("infer.enforce_eager", infer.enforce_eager, "Eager mode",
                        "vLLM --enforce-eager: no CUDA graphs are captured.", infer_only),
        MEMPLAN_OPTIONAL_INTEGER("infer.max_tokens", infer.max_tokens, 1, max_exact_integer, "Max KV tokens",
                                 "TensorRT-LLM KvCacheConfig.max_tokens: a cap on the KV pool; not set: no cap.",
                                 "tokens", infer_only),
        MEMPLAN_BYTES("infer.swap_space_bytes", infer.swap_space_bytes, 0, max_exact_integer, false, "Swap space",
                      "vLLM V0 --swap-space: CPU memory for swapped-out KV blocks, per GPU.", infer_only),
        MEMPLAN_BYTES("infer.kv_cache_memory_bytes", infer.kv_cache_memory_bytes, 1, max_exact_integer, true,
                      "KV cache memory", "vLLM --kv-cache-memory: the KV pool size per GPU, given outright.",
                      infer_only),
        MEMPLAN_BYTES("infer.weights_bytes", infer.weights_bytes, 1, max_exact_integer, true, "Measured weights",
                      "Weight memory per GPU as the engine logs it; not set: memplan's count.", infer_only),
        MEMPLAN_BYTES("infer.activation_peak_bytes", infer.activation_peak_bytes, 1, max_exact_integer, true,
                      "Measured activation peak",
                      "Activation peak of the engine's profiling run (vLLM logs it); not set: modelled.", infer_only),
        MEMPLAN_BYTES("infer.non_torch_bytes", infer.non_torch_bytes, 1, max_exact_integer, true,
                      "Measured non-torch memory",
                      "Memory outside PyTorch's allocator (NCCL, cuBLAS; vLLM logs it); not set: 0.5 GiB assumed.",
                      infer_only),
        MEMPLAN_BYTES("infer.cuda_graph_bytes", infer.cuda_graph_bytes, 1, max_exact_integer, true,
                      "Measured CUDA-graph memory",
                      "CUDA-graph pool the engine subtracts from its KV budget; not set: not subtracted.", infer_only),
        MEMPLAN_TEXT("infer.draft_preset", infer.draft_preset, "Draft model",
                     "Speculative decoding: the preset id of a draft model whose weights and KV cache sit beside the "
                     "target's; empty: none.",
                     infer_only),

        MEMPLAN_BYTES("overhead.misc_bytes", misc_bytes, 0, max_exact_integer, false, "CUDA context and overhead",
                      "CUDA context, allocator reserve and other memory outside the model, per GPU. Default: the "
                      "CUDA context with lazy module loading as PyTorch measured it (287,047,680 B, pytorch/pytorch "
                      "pull request 86509); add kernels, NCCL buffers and fragmentation you measure.", both),
        MEMPLAN_BYTES("gpu.memory_bytes", gpu_memory_bytes, 1, max_exact_integer, true, "GPU memory",
                      "Capacity of one GPU; not set: no fit verdict.", both),
        // vLLM tests `"a100" not in current_platform.get_device_name().lower()` (vllm/engine/arg_utils.py
        // EngineArgs._set_default_args, vllm-project/vllm 99d7eb5d).
        MEMPLAN_TEXT("gpu.name", gpu_name, "GPU name",
                     "The GPU's name as the driver reports it (NVIDIA A100-SXM4-80GB) or its catalogue id "
                     "(a100-sxm-80gb): vLLM gives a GPU whose name contains A100 the small scheduler defaults; "
                     "not set: taken not to be an A100, with a warning where it matters.",
                     infer_only),
    };
    return fields;
}


}  // namespace memplan
