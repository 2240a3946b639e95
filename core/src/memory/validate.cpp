// Validation of an estimate configuration: ranges of every field, then the layout and the model.
#include "memplan/memory/estimate.hpp"

#include <algorithm>

#include "base/checks.hpp"
#include "memory/stage.hpp"
#include "memplan/model/adapters.hpp"
#include "memplan/model/arch.hpp"
#include "memplan/config/schema.hpp"
#include "memplan/memory/frameworks.hpp"

namespace memplan {

// ---------------------------------------------------------------------------------------------
// Validation

namespace {
void check_range(std::uint64_t value, const char* field, std::uint64_t lo, std::uint64_t hi, diagnostics& errors) {
    if (value < lo || value > hi) errors.push_back({field, detail::integer_range_message(lo, hi)});
}

void require_architecture(const model_config& m, const char* why, diagnostics& errors) {
    // The message is built only when a field is missing (the valid path allocates nothing).
    if (m.num_hidden_layers == 0) errors.push_back({"model.num_hidden_layers", std::string("is required ") + why});
    if (m.hidden_size == 0) errors.push_back({"model.hidden_size", std::string("is required ") + why});
    if (m.num_attention_heads == 0) errors.push_back({"model.num_attention_heads", std::string("is required ") + why});
}

/// train.recompute selective_op and train.recompute_layers: the combinations they are modelled for.
void check_recompute(const estimate_config& c, diagnostics& errors) {
    const train_config& t = c.train;
    const parallel_config& p = c.parallel;
    if (t.recompute_layers != 0) {
        // The smallest stage holds floor(L / pp) layers (layers_of_stage: the first L mod pp stages hold one more).
        const std::uint64_t smallest = c.model.num_hidden_layers / p.pp;
        if (t.recompute != recompute_mode::full)
            errors.push_back({"train.recompute_layers", std::string("needs train.recompute full (the other layers keep "
                                                                    "every activation), not ") + to_string(t.recompute)});
        else if (t.recompute_layers > smallest)
            errors.push_back({"train.recompute_layers", "must be from 1 to " + std::to_string(smallest) +
                                                            ", the layers of the smallest pipeline stage "
                                                            "(model.num_hidden_layers / parallel.pp, rounded down)"});
        if (t.activation_offload)
            errors.push_back({"train.recompute_layers", "is not modelled with train.activation_offload (offloading "
                                                        "counts every layer as checkpointed): leave one of them unset"});
    }
    if (t.recompute != recompute_mode::selective_op) return;
    // The policy is torchtitan's for its dense Llama blocks; outside these cases the set of saved outputs
    // differs (see activations.cpp) and is not modelled.
    const char* choices = "choose train.recompute none, selective or full";
    if (c.model.num_experts != 0)
        errors.push_back({"model.num_local_experts", std::string("must be 0 with train.recompute selective_op (the MoE "
                                                                 "router and expert matmuls shift the policy's matmul "
                                                                 "counter; not modelled); ") + choices});
    if (t.adapter_type != adapter_kind::none)
        errors.push_back({"train.adapter_type", std::string("must be none with train.recompute selective_op (adapter "
                                                            "matmuls shift the policy's matmul counter; not modelled); ") +
                                                    choices});
    if (p.cp > 1)
        errors.push_back({"parallel.cp", std::string("must be 1 with train.recompute selective_op (ring attention saves "
                                                     "one attention output per ring step; not modelled); ") + choices});
    if (!t.flash_attention)
        errors.push_back({"train.flash_attention", std::string("must be true with train.recompute selective_op (the "
                                                               "policy keeps the outputs of the fused SDPA kernel; the "
                                                               "math fallback is not modelled); ") + choices});
}
}  // namespace

diagnostics validate(const estimate_config& c) { return detail::validate(c, nullptr); }

namespace detail {
diagnostics validate(const estimate_config& c, const diagnostics* architecture_errors, bool fields_in_range) {
    diagnostics errors;
    const model_config& m = c.model;
    check_range(m.params, "model.params", 0, max_param_count, errors);
    check_range(m.stored_weight_bytes, "model.stored_weight_bytes", 0, max_exact_integer, errors);
    if (m.stored_weight_bytes != 0 && m.params == 0)
        errors.push_back({"model.stored_weight_bytes", "needs model.params (the values the checkpoint stores): "
                                                       "stored bytes stand in for a count memplan does not make"});
    check_range(m.num_hidden_layers, "model.num_hidden_layers", 0, max_layer_count, errors);
    check_range(m.hidden_size, "model.hidden_size", 0, max_width, errors);
    check_range(m.num_attention_heads, "model.num_attention_heads", 0, max_layer_count, errors);
    check_range(m.num_key_value_heads, "model.num_key_value_heads", 0, max_layer_count, errors);
    check_range(m.head_dim, "model.head_dim", 0, max_layer_count, errors);
    check_range(m.intermediate_size, "model.intermediate_size", 0, max_width, errors);
    check_range(m.vocab_size, "model.vocab_size", 0, max_vocab_size, errors);
    check_range(m.learned_positions, "model.learned_positions", 0, max_token_count, errors);
    check_range(m.norms_per_layer, "model.norms_per_layer", 0, max_norms_per_layer, errors);
    check_range(m.num_experts, "model.num_local_experts", 0, max_layer_count, errors);
    check_range(m.experts_per_token, "model.num_experts_per_tok", 0, max_layer_count, errors);
    check_range(m.moe_intermediate_size, "model.moe_intermediate_size", 0, max_width, errors);
    check_range(m.shared_expert_intermediate_size, "model.shared_expert_intermediate_size", 0, max_width, errors);
    check_range(m.sliding_window, "model.sliding_window", 0, max_token_count, errors);
    check_range(m.sliding_window_layers, "model.sliding_window_layers", 0, max_layer_count, errors);

    // Every schema field outside the model: its range (an optional field may stay 0, "not set").
    // Skipped under estimate_options::fields_in_range, where the caller has checked them.
    if (!fields_in_range)
        for (const auto& field : config_fields()) {
            if (field.type != field_type::integer && field.type != field_type::bytes) continue;
            const std::uint64_t value = field.get_number != nullptr ? field.get_number(c) : field.get(c).number;
            if (value == 0 && field.unset_is_zero) continue;
            if (value < field.min || value > field.max) errors.push_back({field.path, field_message(field)});
        }
    const parallel_config& p = c.parallel;
    if (!errors.empty()) return errors;

    // Layout: every GPU belongs to exactly one (data, tensor, pipeline, context) coordinate.
    const std::uint64_t model_parallel = p.tp * p.pp * p.cp;
    if (p.gpus % model_parallel != 0) {
        errors.push_back({"parallel.gpus", p.cp == 1 ? "must be a multiple of parallel.tp × parallel.pp (" +
                                                           std::to_string(p.tp * p.pp) + ")"
                                                     : "must be a multiple of parallel.tp × parallel.pp × parallel.cp (" +
                                                           std::to_string(model_parallel) + ")"});
        return errors;
    }
    const std::uint64_t replicas = p.gpus / model_parallel * p.cp;  // the ZeRO group: dp × cp
    if (replicas % p.ep != 0)
        errors.push_back({"parallel.ep", "must divide the data-parallel × context-parallel degree (" +
                                             std::to_string(replicas) + ")"});
    if (p.zero_shard_size != 0 && replicas % p.zero_shard_size != 0)
        errors.push_back({"parallel.zero_shard_size", "must divide the data-parallel × context-parallel degree (" +
                                                          std::to_string(replicas) + ")"});
    if (p.offload_params != offload_target::none && p.zero_stage != 3)
        errors.push_back({"parallel.offload_params", "needs parallel.zero_stage 3"});
    if (p.virtual_stages > 1 && p.pp == 1)
        errors.push_back({"parallel.virtual_stages", "needs parallel.pp above 1"});
    // A layout the named framework does not have (memplan/memory/frameworks.hpp).
    if (c.mode == run_mode::train) check_framework(c, errors);
    if (c.mode == run_mode::train && c.train.seq_len % p.cp != 0)
        errors.push_back({"train.seq_len", "must be a multiple of parallel.cp (" + std::to_string(p.cp) + ")"});
    const bool integer_weights = c.infer.weight_dtype == dtype::int4 || c.infer.weight_dtype == dtype::int8;
    if (c.mode == run_mode::infer && c.infer.quant_group_size != 0 && !integer_weights)
        errors.push_back({"infer.quant_group_size", "applies to int4 and int8 weights only"});
    if (c.mode == run_mode::infer && c.infer.engine != serving_engine::none) {  // serving engines (serving.hpp)
        if (c.gpu_memory_bytes == 0)
            errors.push_back({"gpu.memory_bytes", "is required with infer.engine (the engines size their KV cache "
                                                  "from the GPU's memory)"});
        if (c.infer.kv_dtype == dtype::int8 || c.infer.kv_dtype == dtype::int4)
            errors.push_back({"infer.kv_dtype", "must be fp32, bf16, fp16 or fp8 with infer.engine"});
        if (c.infer.engine == serving_engine::sglang && c.infer.mem_fraction_static_permille == 0)
            errors.push_back({"infer.mem_fraction_static_permille",
                              "is required with infer.engine sglang (SGLang picks it from the GPU size)"});
        if (!c.infer.draft_preset.empty() && !c.infer.draft_model)  // resolved by the reader when it is a preset
            errors.push_back({"infer.draft_preset", "must be the id of a model preset (memplan presets)"});
    }
    if (c.infer.prefill_tokens > c.infer.context_len)
        errors.push_back({"infer.prefill_tokens", "must not exceed infer.context_len (" +
                                                      std::to_string(c.infer.context_len) + ")"});

    // Model: an explicit count, or an architecture that determines one; activations and the KV
    // cache need the architecture in any case.
    const bool partial = m.num_hidden_layers != 0 || m.hidden_size != 0 || m.num_attention_heads != 0;
    if (m.params == 0 && !partial)
        errors.push_back({"model.params", "give model.params or the architecture (num_hidden_layers, "
                                          "hidden_size, num_attention_heads)"});
    else if (c.mode == run_mode::train) require_architecture(m, "for activation memory", errors);
    else require_architecture(m, "for the KV cache", errors);
    if (!errors.empty()) return errors;

    // The model's own checks, taken from its counts when the caller has them (model_counts).
    if (architecture_errors != nullptr) {
        if (!architecture_errors->empty()) return *architecture_errors;
    } else {
        errors = validate_architecture(m);
        if (!errors.empty()) return errors;
    }
    // DeepSeek-V4's memory beside its weights is not modelled yet: the compressed KV pools of its CSA and HCA layers
    // (and the indexer's) beside the sliding window, and the hc_mult residual streams of its hyper-connections.
    if (m.o_groups != 0)
        return {{"model.compress_ratios", "DeepSeek-V4's compressed attention (CSA / HCA KV pools beside the sliding "
                                          "window) and hyper-connection activations are not modelled yet: its "
                                          "parameters are counted, its memory is not estimated"}};
    const std::uint64_t kv_heads = resolved_kv_heads(m);
    // Megatron tensor parallelism splits attention by heads (Shoeybi et al. 2019, §3).
    if (m.num_attention_heads % p.tp != 0)
        errors.push_back({"parallel.tp", "must divide model.num_attention_heads (" +
                                             std::to_string(m.num_attention_heads) + ")"});
    else if (kv_heads % p.tp != 0 && p.tp % kv_heads != 0)
        errors.push_back({"parallel.tp", "must divide model.num_key_value_heads (" + std::to_string(kv_heads) +
                                             ") or be a multiple of it"});
    if (p.pp * p.virtual_stages > m.num_hidden_layers)
        errors.push_back({p.virtual_stages > 1 ? "parallel.virtual_stages" : "parallel.pp",
                          "parallel.pp × parallel.virtual_stages must not exceed model.num_hidden_layers (" +
                              std::to_string(m.num_hidden_layers) + ")"});
    if (const std::uint64_t dcp = c.infer.decode_context_parallel_size; c.mode == run_mode::infer && dcp > 1) {
        // vLLM docs/serving/context_parallel_deployment.md: dcp lies in [1, tp / H] (H the KV heads; one latent
        // with MLA), reducing the replication of a cache that tp cannot split further; it adds no GPUs.
        const std::uint64_t heads = m.kv_lora_rank != 0 ? 1 : kv_heads;
        const std::uint64_t most = p.tp >= heads ? p.tp / heads : 1;
        const auto kinds = resolved_layer_attention(m);
        const bool windowed = std::any_of(kinds.begin(), kinds.end(), [](attention_kind k) {
            return k == attention_kind::sliding || k == attention_kind::chunked;
        });
        if (p.tp % dcp != 0 || dcp > most)
            errors.push_back({"infer.decode_context_parallel_size",
                              "must divide parallel.tp and be at most parallel.tp / " +
                                  std::string(m.kv_lora_rank != 0 ? "1 (one MLA latent)" : "the KV heads") + " = " +
                                  std::to_string(most) + " (vLLM docs/serving/context_parallel_deployment.md)"});
        else if (windowed)
            // vllm/v1/core/kv_cache_coordinator.py HybridKVCacheCoordinator: with dcp > 1 every group must be full
            // attention (MLA included) or Mamba; a sliding-window or chunked group is refused at start-up.
            errors.push_back({"infer.decode_context_parallel_size",
                              "must be 1 for a model with sliding-window or chunked layers: vLLM's hybrid KV cache "
                              "coordinator accepts decode context parallelism only with full-attention, MLA and "
                              "Mamba layers"});
        else if (c.infer.engine == serving_engine::sglang || c.infer.engine == serving_engine::trtllm)
            errors.push_back({"infer.decode_context_parallel_size",
                              "is modelled for vLLM (and the engine-free estimate) only: set infer.engine vllm or 1"});
    }
    if (p.ep > 1 && (m.num_experts == 0 || m.num_experts % p.ep != 0))
        errors.push_back({"parallel.ep", "must divide model.num_local_experts (" + std::to_string(m.num_experts) + ")"});
    if (!errors.empty()) return errors;
    if (c.mode == run_mode::train) {
        check_recompute(c, errors);
        if (!errors.empty()) return errors;
    }
    // Fine-tuning keys (adapters, frozen base, recipes): memplan/adapters.hpp.
    errors = validate_finetune(c);
    if (errors.empty() && c.mode == run_mode::train && c.train.adapter_type != adapter_kind::none) {
        const auto trainable = count_finetune_params(m, c.train);
        errors = trainable.errors;
    }
    return errors;
}
}  // namespace detail

diagnostics resolve_layout(estimate_config& c, bool zero_stage_given, bool shard_size_given) {
    diagnostics errors;
    parallel_config& p = c.parallel;
    if (p.fsdp == fsdp_strategy::unset) return errors;
    const std::int64_t stage = zero_stage_of(p.fsdp);
    if (zero_stage_given && p.zero_stage != stage) {
        errors.push_back({"parallel.zero_stage", "is " + std::to_string(p.zero_stage) + " but parallel.fsdp " +
                                                     to_string(p.fsdp) + " means ZeRO stage " + std::to_string(stage)});
        return errors;
    }
    p.zero_stage = stage;
    const bool hybrid = p.fsdp == fsdp_strategy::hybrid_shard || p.fsdp == fsdp_strategy::hybrid_shard_zero2;
    if (!hybrid || shard_size_given || p.tp == 0 || p.pp == 0 || p.cp == 0 || p.gpus_per_node == 0) return errors;
    // HYBRID_SHARD shards within a node and replicates across nodes (Zhao et al. 2023, §3.2.2): the
    // shard group is the data-parallel ranks of one node, gpus_per_node / (tp · pp), and never more
    // than the data-parallel × context-parallel group itself.
    const std::uint64_t model_parallel = p.tp * p.pp;
    const std::uint64_t per_node = std::max<std::uint64_t>(1, p.gpus_per_node / model_parallel);
    const std::uint64_t group = p.gpus % (model_parallel * p.cp) == 0 ? p.gpus / model_parallel : per_node;
    p.zero_shard_size = std::min(per_node, group);
    if (group % p.zero_shard_size != 0)
        errors.push_back({"parallel.gpus_per_node",
                          "hybrid sharding shards over the " + std::to_string(p.zero_shard_size) +
                              " data-parallel ranks of one node, which must divide the data-parallel × "
                              "context-parallel degree (" + std::to_string(group) + ")"});
    return errors;
}

}  // namespace memplan
