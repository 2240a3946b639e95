// Reproduction of EleutherAI's transformer_mem.py (EleutherAI cookbook, github.com/EleutherAI/cookbook,
// calc/; the figures it printed are recorded in tests/data/eleuther_transformer_mem_figures.json).
// Each expression follows the script's order of operations, because Python evaluates int / int as a
// correctly rounded true division and int · float by converting the int first, exactly as below.
// The script's known defects are kept here on purpose (docs/cli.md, "Differences from transformer_mem.py").
#include "memplan/reproduce/eleuther.hpp"

#include <cmath>
#include <cstdio>
#include <cstdlib>

#include "base/checks.hpp"

namespace memplan {

namespace {
constexpr double gib = 1073741824.0;  // the script divides by 1024**3 and prints "GB"

std::string fixed2(double value) {
    char buffer[64];
    std::snprintf(buffer, sizeof buffer, "%.2f", value);
    return buffer;
}

/// Python's repr() of a float between 1e-4 and 1e16: the shortest decimal that reads back exactly,
/// with ".0" when it is integral.
std::string python_repr(double value) {
    char buffer[64];
    for (int digits = 0; digits <= 17; ++digits) {
        std::snprintf(buffer, sizeof buffer, "%.*f", digits, value);
        if (std::strtod(buffer, nullptr) == value) break;
    }
    std::string text = buffer;
    if (text.find('.') == std::string::npos) text += ".0";
    return text;
}

/// Python's round(x, 2): the double nearest to x correctly rounded to two decimals.
double python_round2(double value) { return std::strtod(fixed2(value).c_str(), nullptr); }

/// The script's convert_params: "6.9 B", "175.0 B", "0" for zero.
std::string convert_params(std::uint64_t params) {
    if (params == 0) return "0";
    static const char* const size_name[] = {"", "K", "M", "B", "T", "P", "E", "Z", "Y"};
    const double x = static_cast<double>(params);
    // math.log(x, 1000) is log(x) / log(1000) in CPython.
    const int i = static_cast<int>(std::floor(std::log(x) / std::log(1000.0)));
    const double p = std::pow(1000.0, i);
    return python_repr(python_round2(x / p)) + " " + size_name[i];
}

using detail::u128;
double as_double(std::uint64_t value) { return static_cast<double>(value); }
/// Python's int → float conversion: round to nearest, for integers of any size.
double wide(u128 value) { return static_cast<double>(value); }
}  // namespace

eleuther_report eleuther_transformer_mem(const eleuther_args& a) {
    eleuther_report report;
    // The script itself crashes (ZeroDivisionError) or rejects these; memplan says so instead.
    if (a.num_gpus == 0) report.errors.push_back({"num_gpus", detail::integer_range_message(1, max_gpu_count)});
    if (a.tensor_parallel_size == 0)
        report.errors.push_back({"tensor_parallel_size", detail::integer_range_message(1, 1024)});
    if (a.pipeline_parallel_size == 0)
        report.errors.push_back({"pipeline_parallel_size", detail::integer_range_message(1, 1024)});
    if (a.hidden_size == 0) report.errors.push_back({"hidden_size", detail::integer_range_message(1, 1048576)});
    if (a.num_attention_heads == 0)
        report.errors.push_back({"num_attention_heads", detail::integer_range_message(1, 65536)});
    if (a.zero_stage < 0 || a.zero_stage > 3) report.errors.push_back({"zero_stage", "must be 0, 1, 2 or 3"});
    if (!report.errors.empty()) return report;

    const double tp = as_double(a.tensor_parallel_size);
    const double pp = as_double(a.pipeline_parallel_size);
    const double gpus = as_double(a.num_gpus);
    const std::uint64_t bytes_per_param = a.fp32_model ? 4 : 2;

    // Defect kept: ZeRO-3 divides by tp·pp and then by the total GPU count, not by data parallel.
    double model_mem = wide(u128{a.params} * bytes_per_param) / wide(u128{a.tensor_parallel_size} * a.pipeline_parallel_size);
    if (a.zero_stage == 3) model_mem /= gpus;

    // Defect kept: gradients are not divided by tp, and ZeRO divides by num_gpus.
    const std::uint64_t bytes_per_grad_element = a.fp32_grads ? 4 : 2;
    double gradient_mem = wide(u128{a.params} * bytes_per_grad_element);
    if (a.zero_stage >= 2) gradient_mem /= gpus;
    gradient_mem /= pp;

    // Defect kept: optimizer states are divided neither by tp nor by pp.
    double optimizer_mem = wide(u128{a.params} * (a.fp32_model ? 8U : 12U));
    if (a.zero_stage >= 1) optimizer_mem /= gpus;

    double communication_mem = 0;
    if (a.zero_stage >= 1) communication_mem += a.zero_allgather_bucket_size * as_double(bytes_per_param);
    if (a.zero_stage == 3) communication_mem += a.zero3_max_live_params * as_double(bytes_per_param);

    // Defect kept: "checkpointing" uses the selective constant sbh(10 + 24/t), not 2sbh.
    // Python multiplies these ints exactly; 128 bits hold every product of in-range inputs.
    const double sbhl = wide(u128{a.sequence_length} * a.batch_size_per_gpu * a.hidden_size * a.num_layers);
    double activation_mem = 0;
    if (a.checkpoint_activations) {
        activation_mem = sbhl * (10 + (24 / tp));
    } else {
        const double attention = wide(u128{a.num_attention_heads} * a.sequence_length) /
                                 wide(u128{a.hidden_size} * a.tensor_parallel_size);
        activation_mem = sbhl * (10 + (24 / tp) + 5 * attention);
    }
    if (a.partition_activations) activation_mem /= tp;

    // Defect kept: the KV cache ignores batch size and grouped-query attention.
    double kv_cache_mem = 0;
    if (a.infer) {
        const double head_size = as_double(a.hidden_size) / as_double(a.num_attention_heads);
        kv_cache_mem = wide(u128{bytes_per_param} * 2 * a.num_layers * a.num_attention_heads) * head_size *
                       as_double(a.sequence_length);
    }

    const double gradient_gb = gradient_mem / gib;
    const double activation_gb = activation_mem / gib;
    const double model_gb = model_mem / gib;
    const double optimizer_gb = optimizer_mem / gib;
    const double communication_gb = communication_mem / gib;
    const double kv_cache_gb = kv_cache_mem / gib;
    const double misc_gb = as_double(a.misc_mem_gb);

    report.params_text = convert_params(a.params);
    report.lines.push_back("Number of Parameters: " + report.params_text);
    auto row = [&](const char* label, double value) {
        report.rows.push_back({label, value});
        report.lines.push_back(std::string(label) + ": " + fixed2(value) + " GB");
    };
    if (a.infer) {
        const double total = kv_cache_gb + model_gb + misc_gb;
        row("Model Memory", model_gb);
        row("KV Cache Memory", kv_cache_gb);
        row("Miscellaneous Memory", misc_gb);
        row("Total Memory Required for Inference", total);
    } else {
        const double total = activation_gb + gradient_gb + model_gb + optimizer_gb + communication_gb + misc_gb;
        row("Model Memory", model_gb);
        row("Gradient Memory", gradient_gb);
        row("Activation Memory", activation_gb);
        row("Optimizer Memory", optimizer_gb);
        row("Communication Memory", communication_gb);
        row("Miscellaneous Memory", misc_gb);
        row("Total Memory Required for Training", total);
    }
    return report;
}

}  // namespace memplan
