// One configuration through memplan and through each reproduced estimator (memplan/compare.hpp).
// Each tool receives exactly what it can express of the configuration; what it cannot express is
// named in `lacks`. Figures in bytes are rounded up; texts are the tools' own printouts.
#include "memplan/reproduce/compare.hpp"

#include <algorithm>
#include <cmath>

#include "base/checks.hpp"
#include "memplan/model/arch.hpp"
#include "memplan/reproduce/eleuther.hpp"
#include "memplan/reproduce/reference.hpp"
#include "memplan/serving/serving.hpp"

namespace memplan {

namespace {
constexpr double max_exact = 9007199254740992.0;  // 2^53
constexpr double mib = 1048576.0;
constexpr double gib = 1073741824.0;

/// Bytes of a tool's double figure, rounded up; clamped at 2^53, which compare() then refuses.
std::uint64_t ceil_bytes(double value) {
    if (!(value > 0)) return 0;
    const double up = std::ceil(value);
    return up >= max_exact ? static_cast<std::uint64_t>(max_exact) : static_cast<std::uint64_t>(up);
}

std::string dec(std::uint64_t value) { return detail::to_decimal(value); }
std::uint64_t bytes_of(dtype type) { return dtype_bits(type) / 8; }

compare_term term(const std::string& name, std::uint64_t tool, std::uint64_t memplan, const std::string& reason) {
    return {name, tool, memplan, tool == memplan ? std::string() : reason};
}

std::string join(const diagnostics& errors) {
    std::string text;
    for (const auto& e : errors) text += (text.empty() ? "" : "; ") + e.field + " " + e.message;
    return text;
}

struct context {
    const estimate_config& c;
    const estimate_result& r;
    bool has_architecture = false;
    std::uint64_t params = 0;
    std::uint64_t states() const { return r.per_gpu.weights + r.per_gpu.gradients + r.per_gpu.optimizer_states; }
    std::uint64_t activations() const { return r.per_gpu.activations + r.per_gpu.logits; }
    bool train() const { return c.mode == run_mode::train; }
    /// memplan's bytes per parameter for the model states, in words.
    std::string states_words() const {
        const auto& t = c.train;
        return "memplan counts " + dec(bytes_of(t.weight_dtype)) + " B " + to_string(t.weight_dtype) + " weights, " +
               dec(bytes_of(t.grad_dtype)) + " B " + to_string(t.grad_dtype) + " gradients and the " +
               to_string(t.optimizer) + " states" + (c.parallel.zero_stage > 0 ? ", sharded by ZeRO stage " +
               std::to_string(c.parallel.zero_stage) + " over the data-parallel group" : std::string());
    }
};

/// A tool's comparison before its figures: which tool, whether it can describe the run, what it lacks.
tool_comparison described(const char* tool, const char* version, const char* source, const char* units,
                          bool expressible, const std::string& lacks) {
    tool_comparison t;
    t.tool = tool;
    t.version = version;
    t.source = source;
    t.units = units;
    t.expressible = expressible;
    t.lacks = lacks;
    return t;
}

tool_comparison not_expressible(const char* tool, const char* version, const char* source, const char* units,
                                const std::string& lacks) {
    return described(tool, version, source, units, false, lacks);
}

/// DeepSpeed splits GPUs into nodes × GPUs per node; memplan's total must be such a product.
bool deepspeed_layout(const estimate_config& c, std::uint64_t& per_node, std::uint64_t& nodes) {
    per_node = std::min(c.parallel.gpus, c.parallel.gpus_per_node);
    if (per_node == 0 || c.parallel.gpus % per_node != 0) return false;
    nodes = c.parallel.gpus / per_node;
    return per_node <= 1024 && nodes <= 65536;
}

/// What keeps DeepSpeed's estimator from describing the run ("" when it can), and the nodes it
/// splits the GPUs into.
std::string deepspeed_blockers(const context& x, std::int64_t stage, std::uint64_t& per_node, std::uint64_t& nodes) {
    const auto& c = x.c;
    if (!x.train()) return "the estimator covers training only";
    if (c.parallel.zero_stage != stage)
        return "the configuration uses ZeRO stage " + std::to_string(c.parallel.zero_stage) +
               ", this estimator is for stage " + std::to_string(stage);
    if (c.parallel.tp != 1 || c.parallel.pp != 1 || c.parallel.cp != 1 || c.parallel.ep != 1)
        return "the estimator assumes pure data parallelism (tp = pp = cp = ep = 1)";
    if (c.train.optimizer != optimizer_kind::adam || !c.train.master_weights)
        return "the estimator assumes mixed-precision Adam with fp32 master weights";
    if (bytes_of(c.train.weight_dtype) != 2) return "the estimator assumes 16-bit weights";
    if (c.parallel.offload_optimizer == offload_target::nvme || c.parallel.offload_params == offload_target::nvme)
        return "the estimator has no NVMe offload column";
    if (!deepspeed_layout(c, per_node, nodes)) return "the GPUs are not 1 to 65536 whole nodes of gpus_per_node GPUs";
    return "";
}

const char* const ds_units = "GiB labelled GB";

void add_common_terms(tool_comparison& t, const context& x, std::uint64_t tool_activations, const std::string& why_acts) {
    t.terms.push_back(term("activations", tool_activations, x.activations(), why_acts));
    t.terms.push_back(term("misc", 0, x.r.per_gpu.misc,
                           "the tool has no framework-overhead term; memplan adds the stated misc_bytes"));
}

tool_comparison deepspeed_zero2(const context& x, deepspeed_zero2_formula formula) {
    const bool doc = formula == deepspeed_zero2_formula::documented;
    const char* tool = doc ? "deepspeed_zero2_doc" : "deepspeed_zero2_code";
    const char* version = doc ? "DeepSpeed up to v0.14.2 and docs/code-docs/source/memory.rst (4P + 16P/N)"
                              : "DeepSpeed v0.14.3 and later, commit f4cb866c2eba (2P + 18P/N)";
    const char* source = doc ? "microsoft/DeepSpeed deepspeed/runtime/zero/stage_1_and_2.py@e7dd28a23d3d"
                             : "microsoft/DeepSpeed deepspeed/runtime/zero/stage_1_and_2.py@f4cb866c2eba";
    std::uint64_t per_node = 0, nodes = 0;
    std::string blocked = deepspeed_blockers(x, 2, per_node, nodes);
    if (blocked.empty() && x.params > max_param_count) blocked = "the parameter count is above 2^49";
    if (!blocked.empty()) return not_expressible(tool, version, source, ds_units, blocked);
    const auto rows = deepspeed_zero2_estimate(x.params, per_node, nodes, formula);
    if (!rows.ok()) return not_expressible(tool, version, source, ds_units, join(rows.errors));
    const bool offload = x.c.parallel.offload_optimizer == offload_target::cpu;
    const auto& row = rows.value[offload ? 0 : 1];
    const std::string lacks = "model states only: no activations, logits, buckets or framework overhead";
    tool_comparison t = described(tool, version, source, ds_units, true, lacks);
    t.figure_bytes = row.gpu_bytes;
    t.figure_text = ratio_text(row.gpu_bytes, bytes_per_gib, 2) + " GB";
    const std::string ds_words =
        offload ? "DeepSpeed counts 2 B/param fp16 weights on the GPU (optimizer offloaded)"
                : doc ? "DeepSpeed (docs, up to v0.14.2) counts 4 B/param unsharded + 16 B/param sharded over all GPUs"
                      : "DeepSpeed (v0.14.3 on) counts 2 B/param unsharded + 18 B/param sharded (2 + 4 B gradients, 4 B fp32 weights, 8 B Adam)";
    t.terms.push_back(term("model_states", row.gpu_bytes, x.states(), ds_words + "; " + x.states_words()));
    t.terms.push_back(term("communication", 0, x.r.per_gpu.communication,
                           "DeepSpeed's estimator omits its reduce/allgather buckets; memplan counts them"));
    add_common_terms(t, x, 0, "DeepSpeed's estimator counts model states only");
    return t;
}

}  // namespace

namespace {
std::uint64_t largest_layer_params(const model_config& m) { return deepspeed_largest_layer_params(m); }

tool_comparison deepspeed_zero3(const context& x) {
    const char* tool = "deepspeed_zero3_doc";
    const char* version = "DeepSpeed estimate_zero3_model_states_mem_needs (unchanged since 2021; as documented)";
    const char* source = "microsoft/DeepSpeed deepspeed/runtime/zero/stage3.py@38327e07f6cd";
    std::uint64_t per_node = 0, nodes = 0;
    std::string blocked = deepspeed_blockers(x, 3, per_node, nodes);
    if (blocked.empty() && !x.has_architecture)
        blocked = "largest_layer_params needs the architecture (an explicit parameter count is not enough)";
    if (blocked.empty() && x.params > max_param_count) blocked = "the parameter count is above 2^49";
    if (blocked.empty() && x.c.parallel.offload_params == offload_target::cpu &&
        x.c.parallel.offload_optimizer != offload_target::cpu)
        blocked = "DeepSpeed's table has no row with parameters offloaded and the optimizer on the GPU";
    if (!blocked.empty()) return not_expressible(tool, version, source, ds_units, blocked);
    const std::uint64_t largest = std::min(largest_layer_params(x.c.model), x.params);
    const auto rows = deepspeed_zero3_estimate(x.params, largest, per_node, nodes);
    if (!rows.ok()) return not_expressible(tool, version, source, ds_units, join(rows.errors));
    const bool off_param = x.c.parallel.offload_params == offload_target::cpu;
    const bool off_opt = x.c.parallel.offload_optimizer == offload_target::cpu;
    const std::size_t index = off_param ? 0 : off_opt ? 2 : 4;  // zero_init=1 rows; the GPU column ignores zero_init
    const auto& row = rows.value[index];
    const std::string lacks = "model states and the largest layer only (largest_layer_params = " + dec(largest) +
                              ", the largest single module); no activations, logits, reduce bucket or prefetch";
    tool_comparison t = described(tool, version, source, ds_units, true, lacks);
    t.figure_bytes = row.gpu_bytes;
    t.figure_text = ratio_text(row.gpu_bytes, bytes_per_gib, 2) + " GB";
    const std::uint64_t largest_bytes = 4 * largest;
    t.terms.push_back(term("model_states", row.gpu_bytes - largest_bytes, x.states(),
                           std::string(off_param ? "DeepSpeed keeps no model states on the GPU"
                                       : off_opt ? "DeepSpeed counts int(2P/N): the fp16 weight shard"
                                                 : "DeepSpeed counts int(18P/N): 2 B fp16 weight + 4 B fp32 gradient + 4 B fp32 weight + 8 B Adam, all sharded") +
                               "; " + x.states_words()));
    t.terms.push_back(term("communication", largest_bytes, x.r.per_gpu.communication,
                           "DeepSpeed counts 4 B x the largest layer (fp16 weights gathered + fp16 gradients); memplan counts "
                           "the allgather bucket and stage3_max_live_parameters gathered weights"));
    add_common_terms(t, x, 0, "DeepSpeed's estimator counts model states only");
    return t;
}

tool_comparison megatron(const context& x) {
    const char* tool = "megatron_theoretical_memory";
    const char* version = "Megatron-LM theoretical_memory_usage.py, commit a6c6250f9cfd (2025-08-26)";
    const char* source = "NVIDIA/Megatron-LM megatron/training/theoretical_memory_usage.py@a6c6250f9cfd";
    const char* units = "MiB labelled MB";
    const auto& c = x.c;
    std::string blocked;
    if (!x.train()) blocked = "the formula covers training only";
    else if (!x.has_architecture) blocked = "the formula needs the architecture (layers, hidden size, heads, vocabulary)";
    else if (c.model.vocab_size == 0) blocked = "the formula needs the vocabulary size";
    else if (c.parallel.zero_stage > 1) blocked = "Megatron shards optimizer states only (distributed optimizer = ZeRO stage 1)";
    else if (c.parallel.cp != 1 || c.parallel.ep != 1) blocked = "this version ignores context and expert parallelism";
    else if (c.train.optimizer != optimizer_kind::adam) blocked = "the formula assumes Adam";
    else if (c.parallel.offload_optimizer != offload_target::none) blocked = "Megatron has no optimizer offload";
    if (!blocked.empty()) return not_expressible(tool, version, source, units, blocked);
    const auto& m = c.model;
    megatron_args a;
    a.num_layers = m.num_hidden_layers;
    a.hidden_size = m.hidden_size;
    a.num_attention_heads = m.num_attention_heads;
    a.num_query_groups = resolved_kv_heads(m);
    a.kv_channels = resolved_head_dim(m);
    a.ffn_hidden_size = resolved_ffn(m);
    // megatron/training/tokenizer: the vocabulary is padded to a multiple of 128 · tp.
    const std::uint64_t multiple = 128 * c.parallel.tp;
    a.padded_vocab_size = (m.vocab_size + multiple - 1) / multiple * multiple;
    a.seq_length = c.train.seq_len;
    a.micro_batch_size = c.train.micro_batch;
    a.swiglu = m.mlp == mlp_kind::gated;
    a.untie_embeddings_and_output_weights = !m.tie_word_embeddings;
    a.use_distributed_optimizer = c.parallel.zero_stage == 1;
    a.tensor_model_parallel_size = c.parallel.tp;
    a.pipeline_model_parallel_size = c.parallel.pp;
    a.data_parallel_size = x.r.data_parallel;
    a.virtual_pipeline_model_parallel_size = c.parallel.virtual_stages > 1 ? c.parallel.virtual_stages : 0;
    a.num_microbatches = c.train.microbatches_in_flight;  // 0 = not given; Megatron scales by min(1, m / pp)
    a.sequence_parallel = c.parallel.sequence_parallel;
    a.selective_recompute = c.train.recompute == recompute_mode::selective;
    if (m.num_experts != 0) {
        a.num_experts = m.num_experts;
        a.moe_ffn_hidden_size = m.moe_intermediate_size;
        a.moe_shared_expert_intermediate_size = m.shared_expert_intermediate_size;
    }
    const auto mg = megatron_theoretical_memory(a);
    if (!mg.errors.empty()) return not_expressible(tool, version, source, units, join(mg.errors));
    const std::string lacks = std::string("vocabulary padded to ") + dec(a.padded_vocab_size) +
                              "; no linear biases, learned positions or communication buffers; activations of a GPT block (" +
                              (mg.sequence_parallel_path ? "sequence parallel + selective recompute formula"
                                                         : "formula without sequence parallelism, x1.05") + ")" +
                              (c.train.recompute == recompute_mode::full
                                   ? "; full recompute is not modelled: that formula stores every activation" : "");
    tool_comparison t = described(tool, version, source, units, true, lacks);
    const std::uint64_t states = ceil_bytes(mg.weight_and_optimizer_mib * mib);
    const std::uint64_t acts = ceil_bytes(mg.activation_mib * mib);
    t.figure_bytes = states + acts;
    t.figure_text = fixed_text(mg.total_mib, 2) + " MB";
    t.terms.push_back(term("model_states", states, x.states(),
                           std::string("Megatron counts ") +
                               (a.use_distributed_optimizer ? "6 + 12/DP B/param (distributed optimizer)"
                                                            : "18 B/param (2 B bf16 weight, 4 B fp32 gradient, 12 B fp32 weight and Adam)") +
                               " on the first stage's " + fixed_text(mg.params_on_most_loaded_shard, 0) +
                               " parameters; " + x.states_words()));
    t.terms.push_back(term("communication", 0, x.r.per_gpu.communication,
                           "Megatron's formula has no bucket term; memplan counts the ZeRO buckets"));
    add_common_terms(t, x, acts,
                     mg.sequence_parallel_path
                         ? "Megatron uses sbh(18 + 4f/h) per layer (Korthikanti et al. 2022, selective recompute with SP), "
                           "token ids, the embedding dropout mask and, without pipelining, 4sbh(1 + V/h) for the output "
                           "layer; memplan counts the configured block tensor by tensor and the logits separately"
                         : "Megatron uses sbh(10 + 24/t) per layer without sequence parallelism, embeddings and logits "
                           "not divided by tp, then x1.05; memplan counts the configured block tensor by tensor");
    return t;
}

/// The arguments both EleutherAI scripts take by the same names: the layout, ZeRO and its buckets,
/// activation checkpointing, the batch, the sequence and the block's sizes.
template <class Args>
void eleuther_common_args(const context& x, Args& a) {
    const auto& c = x.c;
    a.num_gpus = c.parallel.gpus;
    a.tensor_parallel_size = c.parallel.tp;
    a.pipeline_parallel_size = c.parallel.pp;
    a.partition_activations = c.parallel.partition_activations;
    a.zero_stage = c.parallel.zero_stage;
    a.zero_allgather_bucket_size = static_cast<double>(c.parallel.zero_bucket_params);
    a.zero3_max_live_params = static_cast<double>(c.parallel.zero3_max_live_params);
    a.checkpoint_activations = c.train.recompute != recompute_mode::none;
    a.infer = !x.train();
    a.batch_size_per_gpu = x.train() ? c.train.micro_batch : c.infer.batch;
    a.sequence_length = x.train() ? c.train.seq_len : c.infer.context_len;
    a.hidden_size = c.model.hidden_size;
    a.num_attention_heads = c.model.num_attention_heads;
    a.num_layers = c.model.num_hidden_layers;
}

tool_comparison eleuther_calc(const context& x) {
    const char* tool = "eleuther_calc_transformer_mem";
    const char* version = "EleutherAI cookbook calc_transformer_mem.py, commit 827ee3b293a6 (2026-03-15)";
    const char* source = "EleutherAI/cookbook calc/calc_transformer_mem.py@827ee3b293a6";
    const char* units = "GiB";
    const auto& c = x.c;
    std::string blocked;
    if (!x.has_architecture) blocked = "the script derives the parameter count from the architecture";
    else if (c.model.params != 0)
        blocked = "the script derives its parameter count from the architecture; an explicit model.params cannot be given to it";
    else if (c.parallel.cp != 1) blocked = "the script has no context parallelism";
    else if (bytes_of(c.train.weight_dtype) == 0 || bytes_of(c.infer.weight_dtype) == 0)
        blocked = "the script counts whole bytes per value";
    if (!blocked.empty()) return not_expressible(tool, version, source, units, blocked);
    const auto& m = c.model;
    eleuther_calc_args a;
    eleuther_common_args(x, a);
    a.output_tokens = 0;
    a.vocab_size = m.vocab_size;
    a.ffn_expansion_factor = static_cast<double>(resolved_ffn(m)) / static_cast<double>(m.hidden_size);
    a.num_mlp_linears = m.mlp == mlp_kind::gated ? 3 : 2;
    a.kv_size_ratio = static_cast<double>(resolved_kv_heads(m)) / static_cast<double>(m.num_attention_heads);
    a.low_prec_bytes_per_val = bytes_of(x.train() ? c.train.weight_dtype : c.infer.weight_dtype);
    a.bytes_per_grad_ele = bytes_of(c.train.grad_dtype);
    a.optimizer = c.train.optimizer == optimizer_kind::sgd_momentum ? "sgd_momentum" : "adamw";
    if (m.num_experts != 0) {
        a.num_experts = m.num_experts;
        a.expert_parallelism = c.parallel.ep;
    }
    const auto e = eleuther_calc_transformer_mem(a);
    if (!e.errors.empty()) return not_expressible(tool, version, source, units, join(e.errors));
    const std::string lacks = "its own parameter count (" + fixed_text(e.total_params, 0) + " vs memplan's " + dec(x.params) +
                              ": two embedding matrices, learned positions, 8h LayerNorm per layer, no biases)" +
                              (c.train.optimizer != optimizer_kind::adam && c.train.optimizer != optimizer_kind::sgd_momentum
                                   ? "; optimizer given as adamw" : "") +
                              (m.num_experts != 0 ? "; every expert counted as a full MLP" : "");
    tool_comparison t = described(tool, version, source, units, true, lacks);
    const std::uint64_t weights = ceil_bytes(e.per_gpu_model_gib * gib);
    t.figure_bytes = ceil_bytes(e.per_gpu_total_gib * gib);
    t.figure_text = fixed_text(e.per_gpu_total_gib, 2) + " GiB";
    const std::string sharding = "the script divides weights by tp·pp (and again by all GPUs at ZeRO-3), "
                                 "gradients and optimizer states by all GPUs only under ZeRO, never by tp·pp";
    t.terms.push_back(term("weights", weights, x.r.per_gpu.weights, sharding));
    if (x.train()) {
        t.terms.push_back(term("gradients", ceil_bytes(e.per_gpu_gradient_gib * gib), x.r.per_gpu.gradients, sharding));
        t.terms.push_back(term("optimizer_states", ceil_bytes(e.per_gpu_optimizer_gib * gib), x.r.per_gpu.optimizer_states,
                               sharding + "; 12 B/param AdamW (fp32 copy, m, v)"));
        t.terms.push_back(term("communication", ceil_bytes(e.per_gpu_communication_gib * gib), x.r.per_gpu.communication,
                               "the script counts the allgather bucket (and max live parameters at ZeRO-3) only with more "
                               "than one GPU"));
        add_common_terms(t, x, ceil_bytes(e.per_gpu_activation_gib * gib),
                         a.checkpoint_activations
                             ? "with -ca the script counts 34·sbhL (the selective-recompute constant for every layer, "
                               "not the full-recompute 2·sbh), divided by tp only with -pa"
                             : "the script counts sbhL(34 + 5as/h) (Korthikanti Table 2 without parallelism), divided "
                               "by tp only with -pa");
    } else {
        t.terms.push_back(term("kv_cache", ceil_bytes(e.per_gpu_kv_cache_gib * gib), x.r.per_gpu.kv_cache,
                               "the script counts low·h·L·(s + o)·b: no factor 2 for keys and values, no grouped-query "
                               "attention, not divided by tp"));
        add_common_terms(t, x, ceil_bytes(e.per_gpu_activation_gib * gib),
                         "the script counts one layer's training activations 34·sbh for inference");
    }
    return t;
}

tool_comparison eleuther_transformer_mem(const context& x) {
    const char* tool = "eleuther_transformer_mem";
    const char* version = "EleutherAI transformer_mem.py: the first calc_transformer_mem.py (2023-12-20), as core/src/eleuther.cpp reproduces it";
    const char* source = "EleutherAI/cookbook calc/calc_transformer_mem.py@a8136ae415fc";
    const char* units = "GiB labelled GB";
    const auto& c = x.c;
    std::string blocked;
    if (!x.has_architecture) blocked = "the activation formula needs hidden size, heads and layers";
    else if (c.parallel.cp != 1 || c.parallel.ep != 1) blocked = "the script has no context or expert parallelism";
    if (!blocked.empty()) return not_expressible(tool, version, source, units, blocked);
    eleuther_args a;
    eleuther_common_args(x, a);
    a.params = x.params;
    a.fp32_model = bytes_of(x.train() ? c.train.weight_dtype : c.infer.weight_dtype) == 4;
    a.fp32_grads = c.train.grad_dtype == dtype::fp32;
    const auto e = eleuther_transformer_mem(a);
    if (!e.errors.empty() || e.rows.empty()) return not_expressible(tool, version, source, units, join(e.errors));
    tool_comparison t =
        described(tool, version, source, units, true, "weights in 2 or 4 bytes only; no grouped-query attention");
    auto row = [&](const std::string& label) {
        for (const auto& r : e.rows)
            if (r.label == label) return ceil_bytes(r.gib * gib);
        return std::uint64_t{0};
    };
    t.figure_bytes = ceil_bytes(e.rows.back().gib * gib);
    t.figure_text = fixed_text(e.rows.back().gib, 2) + " GB";
    const std::string defects = "the script does not divide gradients and optimizer states by tp, shards ZeRO over all "
                                "GPUs instead of the data-parallel group";
    t.terms.push_back(term("weights", row("Model Memory"), x.r.per_gpu.weights, defects));
    if (x.train()) {
        t.terms.push_back(term("gradients", row("Gradient Memory"), x.r.per_gpu.gradients, defects));
        t.terms.push_back(term("optimizer_states", row("Optimizer Memory"), x.r.per_gpu.optimizer_states, defects));
        t.terms.push_back(term("communication", row("Communication Memory"), x.r.per_gpu.communication,
                               "the script counts the allgather bucket and ZeRO-3 live parameters in its own way"));
        add_common_terms(t, x, row("Activation Memory"),
                         "the script uses Korthikanti's constants (selective constant under --checkpoint-activations), "
                         "divided by tp only with --partition-activations");
    } else {
        t.terms.push_back(term("kv_cache", row("KV Cache Memory"), x.r.per_gpu.kv_cache,
                               "the script's KV cache ignores batch size and grouped-query attention"));
        add_common_terms(t, x, 0, "the script counts no inference activations");
    }
    return t;
}

tool_comparison accelerate(const context& x) {
    const char* tool = "accelerate_estimate_memory";
    const char* version = "Hugging Face accelerate estimate-memory, commit 7ed69be06304";
    const char* source = "huggingface/accelerate src/accelerate/commands/estimate.py@7ed69be06304";
    const char* units = "powers of 1024 labelled KB, MB, GB";
    const auto& c = x.c;
    const dtype weights = x.train() ? c.train.weight_dtype : c.infer.weight_dtype;
    const char* row_name = weights == dtype::fp32 ? "float32"
                           : weights == dtype::bf16 || weights == dtype::fp16 ? "float16"
                           : weights == dtype::int8 ? "int8"
                           : weights == dtype::int4 ? "int4" : nullptr;
    std::string blocked;
    if (!x.has_architecture) blocked = "the largest layer needs the architecture";
    else if (row_name == nullptr) blocked = "no fp8 row";
    else if (x.train() && bytes_of(weights) < 2) blocked = "its training column is N/A for int8 and int4";
    if (!blocked.empty()) return not_expressible(tool, version, source, units, blocked);
    const auto counted = count_params(c.model);
    if (!counted.ok()) return not_expressible(tool, version, source, units, join(counted.errors));
    const auto& p = counted.value;
    // calculate_maximum_sizes: the largest of the top-level modules, a decoder layer being unsplittable.
    // The total is memplan's (an explicit model.params included); the largest layer comes from the architecture.
    const std::uint64_t largest = std::min(std::max({p.embedding, p.lm_head, p.per_layer}), x.params);
    if (x.params > max_exact_integer / 16)
        return not_expressible(tool, version, source, units, "the parameter count is too large for its 4 x fp32 column");
    const auto rows = accelerate_estimate_memory(4 * x.params, 4 * largest);
    if (!rows.ok()) return not_expressible(tool, version, source, units, join(rows.errors));
    const accelerate_row* row = nullptr;
    for (const auto& r : rows.value)
        if (r.dtype == row_name) row = &r;
    const std::string lacks = std::string("the whole model on one device (no parallelism); buffers of the real module not counted; ") +
                              "row " + row_name + (x.train() ? ", column \"Training using Adam\"" : ", column \"Total Size\"");
    tool_comparison t = described(tool, version, source, units, true, lacks);
    if (x.train()) {
        t.figure_bytes = row->training_bytes;
        t.figure_text = row->training_text;
        t.terms.push_back(term("model_states", row->training_bytes, x.states(),
                               std::string("accelerate counts the largest of model, gradients, optimizer and step: ") +
                                   (weights == dtype::fp32 ? "16 B/param (a 4x fp32 step)" : "8 B/param (2x the fp32 size)") +
                                   ", for the whole model on one device; " + x.states_words()));
        t.terms.push_back(term("communication", 0, x.r.per_gpu.communication, "accelerate counts no buffers"));
        add_common_terms(t, x, 0, "accelerate's estimate is for batch size 1 and counts no activations");
    } else {
        t.figure_bytes = row->total_bytes;
        t.figure_text = row->total_text;
        t.terms.push_back(term("weights", row->total_bytes, x.r.per_gpu.weights,
                               "accelerate divides the fp32 size by 2, 4 or 8 (no quantization scales) and does not split "
                               "it over GPUs"));
        t.terms.push_back(term("kv_cache", 0, x.r.per_gpu.kv_cache, "accelerate counts only loading the model"));
        add_common_terms(t, x, 0, "accelerate counts only loading the model");
    }
    return t;
}

}  // namespace

comparison compare(const estimate_config& config) {
    comparison cmp;
    cmp.memplan = estimate_with_engine(config);
    if (!cmp.memplan.errors.empty()) {
        cmp.errors = cmp.memplan.errors;
        return cmp;
    }
    const auto& m = config.model;
    context x{config, cmp.memplan};
    x.has_architecture = m.num_hidden_layers != 0 && m.hidden_size != 0 && m.num_attention_heads != 0;
    x.params = cmp.memplan.params;
    // A tool whose figure or a term reaches 2^53 bytes is not reported as a number (ceil_bytes clamps there).
    auto guarded = [](tool_comparison t) {
        bool too_big = t.figure_bytes >= max_exact_integer;
        for (const auto& part : t.terms) too_big = too_big || part.tool_bytes >= max_exact_integer;
        if (!too_big) return t;
        return not_expressible(t.tool.c_str(), t.version.c_str(), t.source.c_str(), t.units.c_str(),
                               "a figure of the tool reaches 2^53 bytes (9007199254740992); not reported");
    };
    cmp.tools.push_back(guarded(deepspeed_zero2(x, deepspeed_zero2_formula::documented)));
    cmp.tools.push_back(guarded(deepspeed_zero2(x, deepspeed_zero2_formula::current)));
    cmp.tools.push_back(guarded(deepspeed_zero3(x)));
    cmp.tools.push_back(guarded(megatron(x)));
    cmp.tools.push_back(guarded(eleuther_calc(x)));
    cmp.tools.push_back(guarded(eleuther_transformer_mem(x)));
    cmp.tools.push_back(guarded(accelerate(x)));
    if (x.train() && config.parallel.zero_stage >= 1) {
        auto& d = cmp.deepspeed_buffer_config;
        d.stage = config.parallel.zero_stage;
        d.allgather_bucket_size = config.parallel.zero_bucket_params;
        d.reduce_bucket_size = config.parallel.reduce_bucket_params;
        d.prefetch_bucket_size = config.parallel.stage3_prefetch_bucket_params;
        d.overlap_comm = config.parallel.overlap_comm == overlap_setting::auto_default ? -1
                         : config.parallel.overlap_comm == overlap_setting::on ? 1 : 0;
        d.max_live_parameters = config.parallel.zero3_max_live_params;
        d.bytes_per_element = std::max<std::uint64_t>(bytes_of(config.train.weight_dtype), 1);
        if (x.has_architecture) d.largest_layer_params = std::min(largest_layer_params(m), x.params);
        cmp.deepspeed_buffers = deepspeed_comm_buffer_bytes(d);
        cmp.has_deepspeed_buffers = cmp.deepspeed_buffers.errors.empty();
    }
    return cmp;
}

}  // namespace memplan
