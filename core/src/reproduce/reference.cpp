// Reproductions of published memory estimators, kept with their conventions (memplan/reference.hpp).
// Python evaluates float expressions left to right in IEEE double, as below; int() truncates. Every
// conversion of a double to an integer is preceded by a range check, so nothing wraps: a figure above
// 2^53 bytes is refused with an error naming the input.
#include "memplan/reproduce/reference.hpp"

#include <algorithm>
#include <cmath>

#include "base/checks.hpp"

namespace memplan {

using detail::u128;

namespace {
constexpr double max_exact = 9007199254740992.0;  // 2^53
constexpr double mib = 1024.0 * 1024.0;           // Megatron's NUM_BYTES_IN_MEGABYTE
constexpr double gib = 1024.0 * 1024.0 * 1024.0;  // the cookbook's 1024**3

double d(std::uint64_t value) { return static_cast<double>(value); }

u128 pow10(unsigned digits) {
    u128 p = 1;
    for (unsigned i = 0; i < digits; ++i) p *= 10;
    return p;
}

/// q = round-half-even(numerator / denominator) printed as q / 10^digits.
std::string scaled_text(u128 q, unsigned digits, bool negative) {
    const u128 scale = pow10(digits);
    std::string text = (negative ? "-" : "") + detail::to_decimal(q / scale);
    if (digits > 0) {
        std::string frac = detail::to_decimal(q % scale);
        text += "." + std::string(digits - frac.size(), '0') + frac;
    }
    return text;
}

u128 div_half_even(u128 numerator, u128 denominator) {
    u128 q = numerator / denominator;
    const u128 rem = numerator % denominator;
    const u128 twice = rem * 2;
    if (twice > denominator || (twice == denominator && (q & 1) != 0)) ++q;
    return q;
}

/// Python's int() of a non-negative double known to be below 2^53 (checked by the caller).
std::uint64_t py_int(double value) { return static_cast<std::uint64_t>(value); }

/// Refuses `value` bytes unless it is a finite number from 0 to 2^53; `what` names the figure.
bool checked_bytes(double value, const std::string& field, const std::string& what, diagnostics& errors,
                   std::uint64_t& out) {
    if (!(value >= 0 && value <= max_exact)) {
        errors.push_back({field, "makes " + what + " exceed 2^53 bytes (9007199254740992); the estimate is refused"});
        return false;
    }
    out = py_int(value);
    return true;
}

/// Python's repr() of round(x, 2) for 0 <= x < 1e15: two decimals with trailing zeros dropped, at least one kept.
std::string python_round2_repr(const std::string& two_decimals) {
    std::string text = two_decimals;
    while (text.size() > 1 && text.back() == '0' && text[text.size() - 2] != '.') text.pop_back();
    return text;
}

std::string pad_left(const std::string& text, std::size_t width) {
    return text.size() >= width ? text : std::string(width - text.size(), ' ') + text;
}

// additional_buffer_factor: DeepSpeed's default 1.5 "to be conservative" (memory.rst).
diagnostics check_layout(std::uint64_t total_params, std::uint64_t gpus_per_node, std::uint64_t nodes,
                         double additional_buffer_factor) {
    diagnostics errors;
    if (!(additional_buffer_factor >= 0 && additional_buffer_factor <= 1000))
        errors.push_back({"additional_buffer_factor", "must be a number from 0 to 1000"});
    if (total_params > max_param_count)
        errors.push_back({"total_params", detail::integer_range_message(0, max_param_count)});
    if (gpus_per_node < 1 || gpus_per_node > 1024)
        errors.push_back({"num_gpus_per_node", detail::integer_range_message(1, 1024)});
    if (nodes < 1 || nodes > 65536) errors.push_back({"num_nodes", detail::integer_range_message(1, 65536)});
    return errors;
}

/// Appends a DeepSpeed row after checking both figures (Python's int(cpu_mem), int(gpu_mem)).
void push_row(outcome<std::vector<deepspeed_row>>& out, const std::string& options, double cpu, double gpu) {
    deepspeed_row row{options, 0, 0};
    const bool cpu_ok = checked_bytes(cpu, "total_params", "the CPU figure of row \"" + options + "\"", out.errors,
                                      row.cpu_bytes);
    const bool gpu_ok = checked_bytes(gpu, "total_params", "the GPU figure of row \"" + options + "\"", out.errors,
                                      row.gpu_bytes);
    if (cpu_ok && gpu_ok) out.value.push_back(row);
}
}  // namespace

std::string fixed_text(double value, unsigned digits) {
    if (!std::isfinite(value) || digits > 9) return "?";
    const bool negative = std::signbit(value);
    const double magnitude = std::fabs(value);
    if (magnitude >= 18446744073709551616.0) return "?";  // 2^64
    if (magnitude == 0) return scaled_text(0, digits, negative);
    int exponent = 0;
    const double fraction = std::frexp(magnitude, &exponent);  // magnitude = fraction · 2^exponent
    const auto mantissa = static_cast<std::uint64_t>(std::ldexp(fraction, 53));  // exact: 53 bits
    const int shift = exponent - 53;  // magnitude = mantissa · 2^shift
    const u128 scale = pow10(digits);
    u128 q = 0;
    if (shift >= 0) {
        q = (u128{mantissa} << shift) * scale;  // below 2^64 · 10^9
    } else if (-shift <= 120) {
        q = div_half_even(u128{mantissa} * scale, u128{1} << (-shift));
    }  // else below 2^-67: rounds to zero at nine decimals or fewer
    return scaled_text(q, digits, negative);
}

std::string ratio_text(std::uint64_t numerator, std::uint64_t denominator, unsigned digits) {
    if (denominator == 0 || digits > 9) return "?";
    return scaled_text(div_half_even(u128{numerator} * pow10(digits), denominator), digits, false);
}

// deepspeed/runtime/zero/stage_1_and_2.py, estimate_zero2_model_states_mem_needs.
outcome<std::vector<deepspeed_row>> deepspeed_zero2_estimate(std::uint64_t total_params, std::uint64_t gpus_per_node,
                                                             std::uint64_t nodes, deepspeed_zero2_formula formula,
                                                             double additional_buffer_factor) {
    outcome<std::vector<deepspeed_row>> out;
    out.errors = check_layout(total_params, gpus_per_node, nodes, additional_buffer_factor);
    if (!out.ok()) return out;
    const double params = d(total_params);
    const double total_gpus = d(nodes * gpus_per_node);
    // cpu_offload=True: fp16 params on GPU; fp32 params, grads, momentum, variance on CPU.
    push_row(out, "offload_optimizer=cpu", params * std::max(4 * total_gpus, 16.0) * additional_buffer_factor,
             2 * params);
    // cpu_offload=False. Up to v0.14.2 (and the docs): 4 B/param whole plus 16 B/param sharded; from
    // v0.14.3 (commit f4cb866c2eba): 2 B fp16 params whole plus 18 B sharded (2 + 4 B grads, 4 B fp32
    // params, 8 B Adam moments). CPU: only at model load.
    const double gpu = formula == deepspeed_zero2_formula::documented
                           ? 4 * params + std::trunc(16 * params / total_gpus)
                           : 2 * params + std::trunc(18 * params / total_gpus);
    push_row(out, "offload_optimizer=none", params * 4 * d(gpus_per_node) * additional_buffer_factor, gpu);
    if (!out.ok()) out.value.clear();
    return out;
}

// deepspeed/runtime/zero/stage3.py, estimate_zero3_model_states_mem_needs (unchanged since 2021).
outcome<std::vector<deepspeed_row>> deepspeed_zero3_estimate(std::uint64_t total_params,
                                                             std::uint64_t largest_layer_params,
                                                             std::uint64_t gpus_per_node, std::uint64_t nodes,
                                                             double additional_buffer_factor) {
    outcome<std::vector<deepspeed_row>> out;
    out.errors = check_layout(total_params, gpus_per_node, nodes, additional_buffer_factor);
    if (largest_layer_params > total_params)
        out.errors.push_back({"largest_layer_params", "must not exceed total_params"});
    if (!out.ok()) return out;
    const double params = d(total_params);
    const double total_gpus = d(nodes * gpus_per_node);
    const double gpus_factor = 1 / d(nodes);
    const double n_gpus = d(gpus_per_node);
    // 2 bytes of fp16 params gathered plus 2 of fp16 grads for the largest layer.
    const double largest_layer_memory = 4 * d(largest_layer_params);
    for (const bool offload_param : {true, false})
        for (const bool offload_optimizer : {true, false}) {
            if (offload_param && !offload_optimizer) continue;  // DeepSpeed's table has no such row
            for (const bool zero_init : {true, false}) {
                double cpu = 0;
                double gpu = largest_layer_memory;
                if (offload_optimizer && offload_param) {
                    cpu = zero_init ? params * 18 * gpus_factor * additional_buffer_factor
                                    : params * std::max(4 * n_gpus, 18 * gpus_factor) * additional_buffer_factor;
                } else if (offload_optimizer) {
                    gpu += std::trunc(2 * params / total_gpus);
                    cpu = zero_init ? params * 16 * gpus_factor * additional_buffer_factor
                                    : params * std::max(4 * n_gpus, 16 * gpus_factor) * additional_buffer_factor;
                } else {
                    gpu += std::trunc(18 * params / total_gpus);
                    cpu = zero_init ? d(largest_layer_params) * 4 * n_gpus * additional_buffer_factor
                                    : params * 4 * n_gpus * additional_buffer_factor;
                }
                const std::string options = std::string("offload_param=") + (offload_param ? "cpu " : "none") +
                                            ", offload_optimizer=" + (offload_optimizer ? "cpu " : "none") +
                                            ", zero_init=" + (zero_init ? "1" : "0");
                push_row(out, options, cpu, gpu);
            }
        }
    if (!out.ok()) out.value.clear();
    return out;
}

// The print statements of estimate_zero{2,3}_model_states_mem_needs_all_cold.
std::string deepspeed_table_text(const std::vector<deepspeed_row>& rows, std::uint64_t total_params,
                                 std::uint64_t largest_layer_params, std::uint64_t gpus_per_node,
                                 std::uint64_t nodes, bool stage3) {
    std::string text = "Estimated memory needed for params, optim states and gradients for a:\n";
    text += "HW: Setup with " + detail::to_decimal(nodes) + (nodes > 1 ? " nodes, " : " node, ") +
            detail::to_decimal(gpus_per_node) + (gpus_per_node > 1 ? " GPUs" : " GPU") + " per node.\n";
    // int(total_params/1e6): the quotient is never within an ulp of an integer for counts below 2^49.
    text += "SW: Model with " + detail::to_decimal(total_params / 1000000) + "M total params";
    if (stage3) text += ", " + detail::to_decimal(largest_layer_params / 1000000) + "M largest layer params";
    text += ".\n  per CPU  |  per GPU |   Options\n";
    for (const auto& row : rows)
        text += " " + pad_left(ratio_text(row.cpu_bytes, bytes_per_gib, 2), 7) + "GB | " +
                pad_left(ratio_text(row.gpu_bytes, bytes_per_gib, 2), 6) + "GB | " + row.options + "\n";
    return text;
}


megatron_report megatron_theoretical_memory(const megatron_args& a) {
    megatron_report r;
    auto need = [&](std::uint64_t v, const char* field) {
        if (v == 0) r.errors.push_back({field, "must be at least 1"});
        else if (v > max_param_count) r.errors.push_back({field, detail::integer_range_message(1, max_param_count)});
    };
    need(a.num_layers, "num_layers");
    need(a.hidden_size, "hidden_size");
    need(a.num_attention_heads, "num_attention_heads");
    need(a.ffn_hidden_size, "ffn_hidden_size");
    need(a.padded_vocab_size, "padded_vocab_size");
    need(a.seq_length, "seq_length");
    need(a.micro_batch_size, "micro_batch_size");
    need(a.tensor_model_parallel_size, "tensor_model_parallel_size");
    need(a.pipeline_model_parallel_size, "pipeline_model_parallel_size");
    need(a.data_parallel_size, "data_parallel_size");
    need(a.moe_layer_freq, "moe_layer_freq");
    for (const auto& [v, field] : {std::pair{a.num_query_groups, "num_query_groups"}, {a.kv_channels, "kv_channels"},
                                   {a.num_experts, "num_experts"}, {a.moe_ffn_hidden_size, "moe_ffn_hidden_size"},
                                   {a.moe_shared_expert_intermediate_size, "moe_shared_expert_intermediate_size"},
                                   {a.virtual_pipeline_model_parallel_size, "virtual_pipeline_model_parallel_size"},
                                   {a.num_microbatches, "num_microbatches"}})
        if (v > max_param_count) r.errors.push_back({field, detail::integer_range_message(0, max_param_count)});
    if (!r.errors.empty()) return r;
    const double L = d(a.num_layers), h = d(a.hidden_size), heads = d(a.num_attention_heads);
    const double groups = a.num_query_groups != 0 ? d(a.num_query_groups) : heads;
    const double kv_channels = a.kv_channels != 0 ? d(a.kv_channels) : std::floor(h / heads);  // args.kv_channels = h // heads
    const double tp = d(a.tensor_model_parallel_size), pp = d(a.pipeline_model_parallel_size);
    const double gated = a.swiglu ? 3.0 / 2 : 1;
    const double s = d(a.seq_length), b = d(a.micro_batch_size);

    // compute_weight_and_optimizer_memory (commit a6c6250f9cfd)
    const double num_experts = a.num_experts != 0 ? d(a.num_experts) : 1;
    const double shared_ffn = d(a.moe_shared_expert_intermediate_size);
    std::uint64_t moe_layers = 0;
    double moe_ffn = 0;
    if (a.num_experts != 0) {
        moe_layers = (a.num_layers + a.moe_layer_freq - 1) / a.moe_layer_freq;  // i % freq == 0 for i < L
        moe_ffn = a.moe_ffn_hidden_size != 0 ? d(a.moe_ffn_hidden_size) : d(a.ffn_hidden_size);
    }
    const double dense_layers = d(a.num_layers - moe_layers);
    const double query_ratio = kv_channels * heads / h;
    const double self_attn_term = 2 * h * h * ((1 + (groups / heads)) * query_ratio);
    const double layer_dense = 2 * h * ((d(a.ffn_hidden_size) * gated) + 2) + self_attn_term;
    const double layer_moe = 2 * h * (+(moe_ffn * num_experts * gated) + (shared_ffn * gated) + 2) + self_attn_term;
    const double embedding_size = h * d(a.padded_vocab_size);
    const double final_layernorm = 2 * h;
    r.params_in_embeddings = a.untie_embeddings_and_output_weights ? 2 * embedding_size : embedding_size;
    r.params_in_layers = layer_dense * dense_layers + layer_moe * d(moe_layers) + final_layernorm;
    r.total_params = r.params_in_layers + 0 + r.params_in_embeddings;
    r.params_on_most_loaded_shard = ((r.params_in_layers / pp) + 0 + embedding_size) / tp;
    if (a.untie_embeddings_and_output_weights && a.pipeline_model_parallel_size == 1)
        r.params_on_most_loaded_shard += embedding_size / tp;
    r.params_on_other_shards = a.pipeline_model_parallel_size > 1 ? r.params_in_layers / (pp * tp) : 0;
    const double bytes_per_parameter =
        a.use_distributed_optimizer ? 6 + (12 / d(a.data_parallel_size)) : 18;
    const double weight_and_optimizer = r.params_on_most_loaded_shard * bytes_per_parameter;

    // Activations of the first stage. compute_activation_memory (Korthikanti et al. 2022, Table 2,
    // sequence parallel + selective recompute) or compute_activation_memory_without_sp.
    r.sequence_parallel_path = a.sequence_parallel && a.selective_recompute;
    double activation = 0;
    const double sbh = s * b * h;
    if (r.sequence_parallel_path) {
        activation = sbh * (18 + (4 * (d(a.ffn_hidden_size) / h)));
    } else {
        activation = s * b * h * (10 + (24 / tp));  // per layer, "precise, without SP"
    }
    activation *= L;
    activation += 8 * s * b * pp;  // input token ids, pp micro-batches in flight
    activation += s * b * h * pp;  // embedding dropout mask
    if (a.virtual_pipeline_model_parallel_size != 0)
        activation *= 1 + ((pp - 1) / (pp * d(a.virtual_pipeline_model_parallel_size)));
    if (a.virtual_pipeline_model_parallel_size == 0 && a.pipeline_model_parallel_size > 1 && a.num_microbatches != 0)
        activation *= std::min(1.0, d(a.num_microbatches) / pp);
    if (r.sequence_parallel_path) {
        if (a.pipeline_model_parallel_size == 1)  // inputs to the output layer and the cross entropy
            activation += s * b * h * 4 * (1 + (d(a.padded_vocab_size) / h));
        activation = activation / tp;  // partitioned by tensor and sequence parallelism
    } else {
        if (a.pipeline_model_parallel_size == 1) {
            double logits_size = s * b * d(a.padded_vocab_size);
            logits_size /= tp;  // the output projection is partitioned across TP
            const double final_ln_output = s * b * h;
            activation += (logits_size + final_ln_output) * 2;
        }
        activation *= 1.05;  // "buffer for optimizer and miscellaneous temporaries (5% overhead)"
    }
    std::uint64_t unused = 0;
    const bool states_ok = checked_bytes(weight_and_optimizer, "weight_and_optimizer",
                                         "the weight and optimizer memory", r.errors, unused);
    const bool activation_ok = checked_bytes(activation, "activation", "the activation memory", r.errors, unused);
    if (!states_ok || !activation_ok) return r;
    r.weight_and_optimizer_mib = weight_and_optimizer / mib;
    r.activation_mib = activation / mib;
    r.total_mib = r.weight_and_optimizer_mib + r.activation_mib;
    return r;
}

std::string megatron_report_line(const megatron_report& r) {
    return "Theoretical memory footprints: weight and optimizer=" + fixed_text(r.weight_and_optimizer_mib, 2) +
           " MB, activation=" + fixed_text(r.activation_mib, 2) + " MB, total=" + fixed_text(r.total_mib, 2) + " MB\n";
}

namespace {
/// The cookbook's convert_params: round(params / 1000^i, 2) with i = floor(log(params, 1000)).
std::string cookbook_convert_params(double params) {
    if (params == 0) return "0";
    static const char* const size_name[] = {"", "K", "M", "B", "T", "P", "E", "Z", "Y"};
    const int i = static_cast<int>(std::floor(std::log(params) / std::log(1000.0)));
    if (i < 0 || i > 8) return "?";
    const double p = std::pow(1000.0, i);
    return python_round2_repr(fixed_text(params / p, 2)) + " " + size_name[i];
}
}  // namespace

eleuther_calc_report eleuther_calc_transformer_mem(const eleuther_calc_args& a) {
    eleuther_calc_report r;
    auto need = [&](std::uint64_t v, const char* field, std::uint64_t lo) {
        if (v < lo || v > max_param_count) r.errors.push_back({field, detail::integer_range_message(lo, max_param_count)});
    };
    need(a.num_gpus, "num_gpus", 1);
    need(a.tensor_parallel_size, "tensor_parallel_size", 1);
    need(a.pipeline_parallel_size, "pipeline_parallel_size", 1);
    need(a.batch_size_per_gpu, "batch_size_per_gpu", 1);
    need(a.sequence_length, "sequence_length", 1);
    need(a.vocab_size, "vocab_size", 0);
    need(a.hidden_size, "hidden_size", 1);
    need(a.num_attention_heads, "num_attention_heads", 1);
    need(a.num_layers, "num_layers", 1);
    need(a.num_mlp_linears, "num_mlp_linears", 0);
    need(a.output_tokens, "output_tokens", 0);
    need(a.num_experts, "num_experts", 0);
    need(a.expert_parallelism, "expert_parallelism", 1);
    need(a.misc_mem_gib, "misc_mem_gib", 0);
    for (const auto& [v, field] : {std::pair{a.high_prec_bytes_per_val, "high_prec_bytes_per_val"},
                                   {a.low_prec_bytes_per_val, "low_prec_bytes_per_val"},
                                   {a.bytes_per_grad_ele, "bytes_per_grad_ele"}})
        if (v < 1 || v > 8) r.errors.push_back({field, detail::integer_range_message(1, 8)});
    if (a.zero_stage < 0 || a.zero_stage > 3) r.errors.push_back({"zero_stage", "must be 0, 1, 2 or 3"});
    for (const auto& [v, field] : {std::pair{a.ffn_expansion_factor, "ffn_expansion_factor"},
                                   {a.kv_size_ratio, "kv_size_ratio"},
                                   {a.zero_allgather_bucket_size, "zero_allgather_bucket_size"},
                                   {a.zero3_max_live_params, "zero3_max_live_params"}})
        if (!(v >= 0 && v <= max_exact)) r.errors.push_back({field, "must be a number from 0 to 2^53"});
    if (a.optimizer != "adamw" && a.optimizer != "muon" && a.optimizer != "sgd_momentum")
        r.errors.push_back({"optimizer", "must be adamw, muon or sgd_momentum"});
    if (!r.errors.empty()) return r;

    const double V = d(a.vocab_size), h = d(a.hidden_size), L = d(a.num_layers), s = d(a.sequence_length);
    const double b = d(a.batch_size_per_gpu), gpus = d(a.num_gpus), tp = d(a.tensor_parallel_size);
    const double pp = d(a.pipeline_parallel_size), low = d(a.low_prec_bytes_per_val);
    // Parameters from the configuration (two embedding matrices, learned positions, 8h LayerNorm per layer).
    const double embed_params = 2 * V * h;
    const double positional_params = h * s;
    const double ln_params = 8 * h * L + (2 * h);
    const double attention_params = std::trunc(2 * (1 + a.kv_size_ratio) * L * h * h);
    const double mlp_params = d(a.num_mlp_linears) * L * h * a.ffn_expansion_factor * h;
    const double total_params = embed_params + positional_params + ln_params + attention_params + mlp_params;
    r.total_params = total_params;
    const double bytes_per_param = a.is_mixed_precision ? low : d(a.high_prec_bytes_per_val);

    // --- MODEL MEMORY ---
    const double model_mem = total_params * bytes_per_param;
    double per_gpu_model_mem = 0;
    double counted_params = total_params;  // EP_total_params with experts
    if (a.num_experts == 0) {
        per_gpu_model_mem = (total_params * bytes_per_param) / (tp * pp);
    } else {
        r.total_moe_params = embed_params + positional_params + ln_params + attention_params + (d(a.num_experts) * mlp_params);
        counted_params = embed_params + positional_params + ln_params + attention_params +
                         ((d(a.num_experts) / d(a.expert_parallelism)) * mlp_params);
        per_gpu_model_mem = (counted_params * bytes_per_param) / (tp * pp);
    }
    if (a.zero_stage == 3) per_gpu_model_mem /= gpus;  // the script divides by all GPUs, after tp · pp
    // --- GRADIENT MEMORY --- (fp32 gradients by default: bytes_per_grad_ele 4)
    const double gradient_mem = counted_params * d(a.bytes_per_grad_ele);
    double per_gpu_gradient_mem = gradient_mem;
    if (a.zero_stage >= 2) per_gpu_gradient_mem /= gpus;
    // --- OPTIMIZER MEMORY --- 12 B (AdamW) or 8 B (SGD with momentum, Muon), not divided by tp · pp.
    const double opt_multiplier = a.optimizer == "adamw" ? 12 : 8;
    const double optimizer_mem = counted_params * opt_multiplier;
    double per_gpu_optimizer_mem = optimizer_mem;
    if (a.zero_stage >= 1) per_gpu_optimizer_mem /= gpus;
    // --- COMMUNICATION MEMORY ---
    double per_gpu_communication_mem = 0;
    if (a.zero_stage >= 1 && a.num_gpus > 1) per_gpu_communication_mem += a.zero_allgather_bucket_size * bytes_per_param;
    if (a.zero_stage == 3 && a.num_gpus > 1) per_gpu_communication_mem += a.zero3_max_live_params * bytes_per_param;
    // --- ACTIVATION MEMORY --- Korthikanti et al. 2022 Table 2 generalised to a precision:
    // -ca: sbhL(16·low + 2) = 34·sbhL at 2 bytes; otherwise + (2·low + 1)·as/h; inference one layer.
    double activation_mem = 0;
    const double sbh_term = 16 * low + 2;
    if (!a.infer && a.checkpoint_activations)
        activation_mem = s * b * h * L * sbh_term;
    else if (!a.infer)
        activation_mem = s * b * h * L * (sbh_term + (2 * low + 1) * (d(a.num_attention_heads) * s / h));
    else
        activation_mem = s * b * h * sbh_term;
    double per_gpu_activation_mem = activation_mem;
    if (a.partition_activations) per_gpu_activation_mem = activation_mem / tp;
    // --- KV CACHE --- low · h · L · (s + o) · b per GPU (no factor 2 for K and V, no GQA).
    double per_gpu_kv_cache_mem = 0, kv_cache_mem = 0;
    if (a.infer) {
        per_gpu_kv_cache_mem = low * h * L * (s + d(a.output_tokens)) * b;
        kv_cache_mem = gpus * per_gpu_kv_cache_mem;
    }
    std::uint64_t unused = 0;
    bool ok = true;
    for (const auto& [value, field] :
         {std::pair{model_mem, "model_memory"}, {gradient_mem, "gradient_memory"}, {optimizer_mem, "optimizer_memory"},
          {activation_mem, "activation_memory"}, {kv_cache_mem, "kv_cache_memory"},
          {per_gpu_communication_mem, "communication_memory"}})
        ok = checked_bytes(value, field, std::string("the ") + field, r.errors, unused) && ok;
    if (!ok) return r;

    r.gradient_gib = gradient_mem / gib;
    r.activation_gib = activation_mem / gib;
    r.model_gib = model_mem / gib;
    r.optimizer_gib = optimizer_mem / gib;
    r.per_gpu_gradient_gib = per_gpu_gradient_mem / gib;
    r.per_gpu_activation_gib = per_gpu_activation_mem / gib;
    r.per_gpu_model_gib = per_gpu_model_mem / gib;
    r.per_gpu_optimizer_gib = per_gpu_optimizer_mem / gib;
    r.per_gpu_communication_gib = per_gpu_communication_mem / gib;
    const double misc = d(a.misc_mem_gib);
    if (a.infer) {
        r.kv_cache_gib = kv_cache_mem / gib;
        r.per_gpu_kv_cache_gib = per_gpu_kv_cache_mem / gib;
        r.per_gpu_total_gib = r.per_gpu_activation_gib + r.per_gpu_kv_cache_gib + r.per_gpu_model_gib + misc;
        r.replica_total_gib = r.activation_gib + r.kv_cache_gib + r.model_gib + misc * gpus;
    } else {
        r.per_gpu_total_gib = r.per_gpu_activation_gib + r.per_gpu_gradient_gib + r.per_gpu_model_gib +
                              r.per_gpu_optimizer_gib + r.per_gpu_communication_gib + misc;
        r.replica_total_gib = r.activation_gib + r.gradient_gib + r.model_gib + r.optimizer_gib + misc * gpus;
    }

    auto line = [&](const std::string& label, double value) { r.lines.push_back(label + ": " + fixed_text(value, 2) + " GiB"); };
    r.lines.push_back("Number of Parameters: " + cookbook_convert_params(total_params));
    if (a.num_experts > 0) r.lines.push_back("Total Number of MoE Parameters: " + cookbook_convert_params(r.total_moe_params));
    r.lines.push_back("*** Per-GPU Memory");
    line("Per-GPU Activation Memory", r.per_gpu_activation_gib);
    line("Per-GPU Model Memory", r.per_gpu_model_gib);
    if (a.infer) {
        line("Per-GPU KV Cache Memory", r.per_gpu_kv_cache_gib);
    } else {
        line("Per-GPU Gradient Memory", r.per_gpu_gradient_gib);
        line("Per-GPU Optimizer Memory (" + a.optimizer + ")", r.per_gpu_optimizer_gib);
        line("Per-GPU Communication Memory", r.per_gpu_communication_gib);
        line("Per-GPU Miscellaneous Memory", misc);
    }
    line(a.infer ? "Per-GPU Memory Required for Inference" : "Per-GPU Memory Required for Training", r.per_gpu_total_gib);
    r.lines.push_back("*** Total GPU Memory for a Single Model Replica");
    line("Total Activation Memory", r.activation_gib);
    line("Total Model Memory", r.model_gib);
    if (a.infer) {
        line("Total KV Cache Memory", r.kv_cache_gib);
    } else {
        line("Total Gradient Memory", r.gradient_gib);
        line("Total Optimizer Memory (" + a.optimizer + ")", r.optimizer_gib);
        line("Total Miscellaneous Memory", gpus * misc);
    }
    line(a.infer ? "Total GPU Memory Required to Store a Complete Model Replica for Inference"
                 : "Total GPU Memory Required to Store a Complete Model Replica for Training",
         r.replica_total_gib);
    return r;
}

namespace {
/// convert_bytes(numerator / divisor): the value is exact (a power-of-two denominator), so the
/// comparison with 1024 and Python's round(x, 2) are done exactly. An int at the "bytes" step prints
/// without decimals, as Python's round(int, 2) returns an int.
std::string convert_bytes_ratio(std::uint64_t numerator, std::uint64_t divisor) {
    static const char* const units[] = {"bytes", "KB", "MB", "GB", "TB", "PB"};
    u128 denominator = divisor;
    std::size_t unit = 0;
    while (unit < 5 && u128{numerator} >= denominator * 1024) {
        denominator *= 1024;
        ++unit;
    }
    if (unit == 0 && divisor == 1) return detail::to_decimal(numerator) + " bytes";
    const std::string two = scaled_text(div_half_even(u128{numerator} * 100, denominator), 2, false);
    return python_round2_repr(two) + " " + units[unit];
}
}  // namespace

std::string accelerate_convert_bytes(std::uint64_t bytes) { return convert_bytes_ratio(bytes, 1); }

outcome<std::vector<accelerate_row>> accelerate_estimate_memory(std::uint64_t total_size_bytes,
                                                                std::uint64_t largest_layer_bytes) {
    outcome<std::vector<accelerate_row>> out;
    // The training figure is 4 × the fp32 size: keep it below 2^53.
    if (total_size_bytes > max_exact_integer / 4)
        out.errors.push_back({"total_size_bytes", detail::integer_range_message(0, max_exact_integer / 4)});
    if (largest_layer_bytes > total_size_bytes)
        out.errors.push_back({"largest_layer_bytes", "must not exceed total_size_bytes"});
    if (!out.ok()) return out;
    struct dtype_row {
        const char* name;
        std::uint64_t divisor;  // gather_data: total and largest layer divided by 1, 2, 4, 8
    };
    for (const auto& [name, divisor] : {dtype_row{"float32", 1}, {"float16", 2}, {"int8", 4}, {"int4", 8}}) {
        accelerate_row row;
        row.dtype = name;
        row.total_bytes = static_cast<std::uint64_t>(detail::ceil_div(total_size_bytes, divisor));
        row.largest_layer_bytes = static_cast<std::uint64_t>(detail::ceil_div(largest_layer_bytes, divisor));
        row.total_text = divisor == 1 ? accelerate_convert_bytes(total_size_bytes) : convert_bytes_ratio(total_size_bytes, divisor);
        row.largest_layer_text =
            divisor == 1 ? accelerate_convert_bytes(largest_layer_bytes) : convert_bytes_ratio(largest_layer_bytes, divisor);
        // estimate_training_usage(total fp32 bytes, dtype): float32 max(model 1x, grads 1x, optimizer 2x,
        // step 4x) = 4x; float16 max(1x, 1x + half, 2x, 2x) = 2x; int8 and int4: "N/A".
        if (divisor == 1) row.training_bytes = 4 * total_size_bytes;
        if (divisor == 2) row.training_bytes = 2 * total_size_bytes;
        row.training_text = row.training_bytes == 0 ? "N/A" : accelerate_convert_bytes(row.training_bytes);
        out.value.push_back(row);
    }
    return out;
}

}  // namespace memplan
