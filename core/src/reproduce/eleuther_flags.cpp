#include "memplan/reproduce/eleuther_flags.hpp"

#include <cstdio>

#include "base/checks.hpp"
#include "config/names.hpp"
#include "memplan/base/units.hpp"

namespace memplan {

namespace {

/// A count flag: `fallback` when not given, else its parsed value (errors appended, 0 on error).
std::uint64_t count(const std::optional<std::string>& text, const char* flag, std::uint64_t fallback,
                    std::uint64_t max, diagnostics& errors) {
    if (!text) return fallback;
    auto parsed = parse_quantity(*text, flag, max);
    errors.insert(errors.end(), parsed.errors.begin(), parsed.errors.end());
    return parsed.value;
}

/// A flag the corrected model needs at least 1 of: named by the flag, not the configuration key.
void at_least_one(const std::optional<std::string>& text, std::uint64_t value, const char* flag, std::uint64_t max,
                  diagnostics& errors) {
    if (text && value == 0) errors.push_back({flag, detail::integer_range_message(1, max)});
}

}  // namespace

outcome<eleuther_args> eleuther_args_from_flags(const transformer_mem_flags& f) {
    outcome<eleuther_args> out;
    eleuther_args& e = out.value;  // transformer_mem.py's defaults
    diagnostics& errors = out.errors;
    e.params = count(f.params, "params", e.params, max_param_count, errors);
    e.num_gpus = count(f.num_gpus, "num-gpus", e.num_gpus, max_gpu_count, errors);
    e.tensor_parallel_size = count(f.tensor_parallel_size, "tensor-parallel-size", e.tensor_parallel_size, 1024, errors);
    e.pipeline_parallel_size =
        count(f.pipeline_parallel_size, "pipeline-parallel-size", e.pipeline_parallel_size, 1024, errors);
    e.partition_activations = f.partition_activations;
    if (f.zero_stage) {
        const std::string& s = *f.zero_stage;
        if (s == "0" || s == "1" || s == "2" || s == "3") e.zero_stage = s[0] - '0';
        else errors.push_back({"zero-stage", "must be 0, 1, 2 or 3"});
    }
    e.checkpoint_activations = f.checkpoint_activations;
    e.batch_size_per_gpu = count(f.batch_size_per_gpu, "batch-size-per-gpu", e.batch_size_per_gpu, 1048576, errors);
    e.hidden_size = count(f.hidden_size, "hidden-size", e.hidden_size, 1048576, errors);
    e.num_attention_heads = count(f.num_attention_heads, "num-attention-heads", e.num_attention_heads, 65536, errors);
    e.sequence_length = count(f.sequence_length, "sequence-length", e.sequence_length, 16777216, errors);
    e.num_layers = count(f.num_layers, "num-layers", e.num_layers, 65536, errors);
    e.fp32_model = f.fp32_model;
    e.fp32_grads = f.fp32_grads;
    // Declared int in the script but defaulting to the floats 5e8 and 1e9: kept as doubles.
    if (f.zero_allgather_bucket_size)
        e.zero_allgather_bucket_size =
            static_cast<double>(count(f.zero_allgather_bucket_size, "zero-allgather-bucket-size", 0, max_param_count, errors));
    if (f.zero3_max_live_params)
        e.zero3_max_live_params =
            static_cast<double>(count(f.zero3_max_live_params, "zero3-max-live-params", 0, max_param_count, errors));
    e.misc_mem_gb = count(f.misc_mem_gb, "misc-mem-gb", 0, 1000000, errors);
    e.infer = f.infer;
    return out;
}

outcome<estimate_config> transformer_mem_config(const transformer_mem_flags& f) {
    outcome<estimate_config> out;
    const auto script = eleuther_args_from_flags(f);
    out.errors = script.errors;
    const eleuther_args& e = script.value;
    if (script.ok()) {
        // Zero where the script's layout needs a count: the flag typed, not parallel.gpus, is named.
        at_least_one(f.num_gpus, e.num_gpus, "num-gpus", max_gpu_count, out.errors);
        at_least_one(f.tensor_parallel_size, e.tensor_parallel_size, "tensor-parallel-size", 1024, out.errors);
        at_least_one(f.pipeline_parallel_size, e.pipeline_parallel_size, "pipeline-parallel-size", 1024, out.errors);
        at_least_one(f.batch_size_per_gpu, e.batch_size_per_gpu, "batch-size-per-gpu", 1048576, out.errors);
        at_least_one(f.sequence_length, e.sequence_length, "sequence-length", 16777216, out.errors);
    }
    estimate_config& c = out.value;
    c.mode = e.infer ? run_mode::infer : run_mode::train;
    c.model.params = e.params;
    c.model.num_hidden_layers = e.num_layers;
    c.model.hidden_size = e.hidden_size;
    c.model.num_attention_heads = e.num_attention_heads;
    c.model.num_key_value_heads = count(f.num_key_value_heads, "num-key-value-heads", 0, 65536, out.errors);
    c.model.vocab_size = count(f.vocab_size, "vocab-size", 0, 16777216, out.errors);
    c.parallel.gpus = e.num_gpus;
    c.parallel.tp = e.tensor_parallel_size;
    c.parallel.pp = e.pipeline_parallel_size;
    c.parallel.zero_stage = e.zero_stage;
    c.parallel.sequence_parallel = f.sequence_parallel;
    c.parallel.partition_activations = e.partition_activations;
    c.parallel.zero_bucket_params = static_cast<std::uint64_t>(e.zero_allgather_bucket_size);
    c.parallel.zero3_max_live_params = static_cast<std::uint64_t>(e.zero3_max_live_params);
    c.train.micro_batch = e.batch_size_per_gpu;
    c.train.seq_len = e.sequence_length;
    c.train.recompute = e.checkpoint_activations ? recompute_mode::full : recompute_mode::none;
    if (f.recompute && !parse_enum(*f.recompute, c.train.recompute))
        out.errors.push_back({"recompute", "must be one of: " + detail::names_of(recompute_mode{}).joined(", ")});
    c.train.flash_attention = f.flash_attention;
    c.train.weight_dtype = e.fp32_model ? dtype::fp32 : dtype::bf16;
    // Gradients follow the weights unless --fp32-grads asks for fp32 accumulation.
    c.train.grad_dtype = (e.fp32_grads || e.fp32_model) ? dtype::fp32 : dtype::bf16;
    c.infer.batch = e.batch_size_per_gpu;
    c.infer.context_len = e.sequence_length;
    c.infer.weight_dtype = c.train.weight_dtype;
    c.infer.kv_dtype = c.train.weight_dtype;
    c.misc_bytes = e.misc_mem_gb * bytes_per_gib;  // the script divides by 1024**3 and prints "GB"
    c.gpu_memory_bytes = count(f.gpu_memory, "gpu-memory", 0, max_exact_integer, out.errors);
    return out;
}

}  // namespace memplan
