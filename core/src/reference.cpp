// Reproductions of DeepSpeed's and Megatron-LM's memory estimators, kept with their conventions.
// DeepSpeed: deepspeed/runtime/zero/stage_1_and_2.py and stage3.py, estimate_zero{2,3}_model_states_
// mem_needs (documented in DeepSpeed's docs/code-docs/source/memory.rst). Megatron-LM:
// megatron/training/theoretical_memory_usage.py. Python evaluates float expressions left to right
// in IEEE double, as below; int() truncates.
#include "memplan/reference.hpp"

#include <algorithm>
#include <cmath>

#include "checks.hpp"

namespace memplan {

namespace {
constexpr double additional_buffer_factor = 1.5;  // DeepSpeed's default "to be conservative"

std::uint64_t py_int(double value) { return static_cast<std::uint64_t>(value); }
double d(std::uint64_t value) { return static_cast<double>(value); }

diagnostics check_layout(std::uint64_t total_params, std::uint64_t gpus_per_node, std::uint64_t nodes) {
    diagnostics errors;
    if (total_params > max_param_count)
        errors.push_back({"total_params", detail::integer_range_message(0, max_param_count)});
    if (gpus_per_node < 1 || gpus_per_node > 1024)
        errors.push_back({"num_gpus_per_node", detail::integer_range_message(1, 1024)});
    if (nodes < 1 || nodes > 65536) errors.push_back({"num_nodes", detail::integer_range_message(1, 65536)});
    return errors;
}
}  // namespace

outcome<std::vector<deepspeed_row>> deepspeed_zero2_estimate(std::uint64_t total_params, std::uint64_t gpus_per_node,
                                                             std::uint64_t nodes) {
    outcome<std::vector<deepspeed_row>> out;
    out.errors = check_layout(total_params, gpus_per_node, nodes);
    if (!out.ok()) return out;
    const double params = d(total_params);
    const double total_gpus = d(nodes * gpus_per_node);
    // cpu_offload=True: fp16 params on GPU; fp32 params, grads, momentum, variance on CPU.
    out.value.push_back({"offload_optimizer=cpu",
                         py_int(params * std::max(4 * total_gpus, 16.0) * additional_buffer_factor),
                         py_int(2 * params)});
    // cpu_offload=False: 4 B/param whole on the GPU plus 16 B/param sharded; CPU only at model load.
    out.value.push_back({"offload_optimizer=none",
                         py_int(params * 4 * d(gpus_per_node) * additional_buffer_factor),
                         py_int(4 * params) + py_int(16 * params / total_gpus)});
    return out;
}

outcome<std::vector<deepspeed_row>> deepspeed_zero3_estimate(std::uint64_t total_params,
                                                             std::uint64_t largest_layer_params,
                                                             std::uint64_t gpus_per_node, std::uint64_t nodes) {
    outcome<std::vector<deepspeed_row>> out;
    out.errors = check_layout(total_params, gpus_per_node, nodes);
    if (largest_layer_params > total_params)
        out.errors.push_back({"largest_layer_params", "must not exceed total_params"});
    if (!out.ok()) return out;
    const double params = d(total_params);
    const double total_gpus = d(nodes * gpus_per_node);
    const double gpus_factor = 1 / d(nodes);
    const double n_gpus = d(gpus_per_node);
    // 2 bytes of fp16 params gathered plus 2 of fp16 grads for the largest layer.
    const std::uint64_t largest_layer_memory = 4 * largest_layer_params;
    for (const bool offload_param : {true, false})
        for (const bool offload_optimizer : {true, false}) {
            if (offload_param && !offload_optimizer) continue;  // DeepSpeed's table has no such row
            for (const bool zero_init : {true, false}) {
                double cpu = 0;
                std::uint64_t gpu = largest_layer_memory;
                if (offload_optimizer && offload_param) {
                    cpu = zero_init ? params * 18 * gpus_factor * additional_buffer_factor
                                    : params * std::max(4 * n_gpus, 18 * gpus_factor) * additional_buffer_factor;
                } else if (offload_optimizer) {
                    gpu += py_int(2 * params / total_gpus);
                    cpu = zero_init ? params * 16 * gpus_factor * additional_buffer_factor
                                    : params * std::max(4 * n_gpus, 16 * gpus_factor) * additional_buffer_factor;
                } else {
                    gpu += py_int(18 * params / total_gpus);
                    cpu = zero_init ? d(largest_layer_params) * 4 * n_gpus * additional_buffer_factor
                                    : params * 4 * n_gpus * additional_buffer_factor;
                }
                const std::string options = std::string("offload_param=") + (offload_param ? "cpu " : "none") +
                                            ", offload_optimizer=" + (offload_optimizer ? "cpu " : "none") +
                                            ", zero_init=" + (zero_init ? "1" : "0");
                out.value.push_back({options, py_int(cpu), gpu});
            }
        }
    return out;
}

megatron_report megatron_theoretical_memory(const megatron_args& a) {
    megatron_report r;
    auto need = [&](std::uint64_t v, const char* field) {
        if (v == 0) r.errors.push_back({field, "must be at least 1"});
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
    if (!r.errors.empty()) return r;
    const double L = d(a.num_layers), h = d(a.hidden_size), heads = d(a.num_attention_heads);
    const double groups = a.num_query_groups != 0 ? d(a.num_query_groups) : heads;
    const double kv_channels = a.kv_channels != 0 ? d(a.kv_channels) : h / heads;
    const double tp = d(a.tensor_model_parallel_size), pp = d(a.pipeline_model_parallel_size);
    const double experts = a.num_experts != 0 ? d(a.num_experts) : 1;
    const double gated = a.swiglu ? 3.0 / 2 : 1;
    const double mib = 1024.0 * 1024.0;

    // compute_weight_and_optimizer_memory
    const double query_ratio = kv_channels * heads / h;
    r.params_in_layers = 2 * L * h * h *
                         ((1 + (groups / heads)) * query_ratio + ((d(a.ffn_hidden_size) / h) * experts * gated) +
                          (2 / h) + (1 / (L * h)));
    const double embedding_size = h * d(a.padded_vocab_size);
    r.params_in_embeddings = a.untie_embeddings_and_output_weights ? 2 * embedding_size : embedding_size;
    r.params_on_most_loaded_shard = ((r.params_in_layers / pp) + embedding_size) / tp;
    if (a.untie_embeddings_and_output_weights && a.pipeline_model_parallel_size == 1)
        r.params_on_most_loaded_shard += embedding_size / tp;
    const double bytes_per_parameter =
        a.use_distributed_optimizer ? 6 + (12 / d(a.data_parallel_size)) : 18;
    r.weight_and_optimizer_mib = r.params_on_most_loaded_shard * bytes_per_parameter / mib;

    // compute_activation_memory: first stage, sequence parallel + selective recompute
    const double sbh = d(a.seq_length) * d(a.micro_batch_size) * h;
    double activation = sbh * (18 + (4 * (d(a.ffn_hidden_size) / h)));
    activation *= L;
    activation += 8 * d(a.seq_length) * d(a.micro_batch_size) * pp;  // input token ids, pp in flight
    activation += d(a.seq_length) * d(a.micro_batch_size) * h * pp;  // embedding dropout mask
    if (a.virtual_pipeline_model_parallel_size != 0)
        activation *= 1 + ((pp - 1) / (pp * d(a.virtual_pipeline_model_parallel_size)));
    if (a.virtual_pipeline_model_parallel_size == 0 && a.pipeline_model_parallel_size > 1 && a.num_microbatches != 0)
        activation *= std::min(1.0, d(a.num_microbatches) / pp);
    if (a.pipeline_model_parallel_size == 1)  // inputs to the output layer and the cross entropy
        activation += d(a.seq_length) * d(a.micro_batch_size) * h * 4 * (1 + (d(a.padded_vocab_size) / h));
    r.activation_mib = activation / tp / mib;
    r.total_mib = r.weight_and_optimizer_mib + r.activation_mib;
    return r;
}

}  // namespace memplan
