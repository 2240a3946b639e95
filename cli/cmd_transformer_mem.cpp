// memplan transformer-mem: EleutherAI's transformer_mem.py (cookbook repository,
// calc/transformer_mem.py) command line, answered by memplan's corrected model, or with --eleuther
// by the faithful reproduction of the script (memplan/reproduce/eleuther.hpp).
#include <iostream>

#include "args.hpp"
#include "commands.hpp"
#include "memplan/reproduce/eleuther.hpp"
#include "memplan/reproduce/eleuther_flags.hpp"
#include "memplan/report/json.hpp"
#include "memplan/api/estimate.hpp"
#include "memplan/io/json.hpp"
#include "report.hpp"

namespace memplan::cli {

namespace {

/// One flag: its names, and where its text (options) or its presence (switches) goes; memplan's
/// output options (--eleuther, --units, --json) go nowhere.
struct flag {
    option_spec spec;
    std::optional<std::string> transformer_mem_flags::*text = nullptr;
    bool transformer_mem_flags::*on = nullptr;
};

using F = transformer_mem_flags;

const std::vector<flag> flag_table = {
    // transformer_mem.py's flags, long and short (its defaults live in eleuther_args).
    {{"params", {"p"}, true}, &F::params},
    {{"num-gpus", {}, true}, &F::num_gpus},
    {{"tensor-parallel-size", {"tp"}, true}, &F::tensor_parallel_size},
    {{"pipeline-parallel-size", {"pp"}, true}, &F::pipeline_parallel_size},
    {{"partition-activations", {"pa"}, false}, nullptr, &F::partition_activations},
    {{"zero-stage", {"z"}, true}, &F::zero_stage},
    {{"checkpoint-activations", {"ca"}, false}, nullptr, &F::checkpoint_activations},
    {{"batch-size-per-gpu", {"b"}, true}, &F::batch_size_per_gpu},
    {{"hidden-size", {"hs"}, true}, &F::hidden_size},
    {{"num-attention-heads", {"a"}, true}, &F::num_attention_heads},
    {{"sequence-length", {"s"}, true}, &F::sequence_length},
    {{"num-layers", {"l"}, true}, &F::num_layers},
    {{"fp32-model", {}, false}, nullptr, &F::fp32_model},
    {{"fp32-grads", {}, false}, nullptr, &F::fp32_grads},
    {{"zero-allgather-bucket-size", {"zbs"}, true}, &F::zero_allgather_bucket_size},
    {{"zero3-max-live-params", {"zmlp"}, true}, &F::zero3_max_live_params},
    {{"misc-mem-gb", {}, true}, &F::misc_mem_gb},
    {{"infer", {}, false}, nullptr, &F::infer},
    // memplan's own.
    {{"eleuther", {}, false}},
    {{"units", {}, true}},
    {{"json", {}, false}},
    {{"num-key-value-heads", {}, true}, &F::num_key_value_heads},
    {{"vocab-size", {}, true}, &F::vocab_size},
    {{"sequence-parallel", {}, false}, nullptr, &F::sequence_parallel},
    {{"recompute", {}, true}, &F::recompute},
    {{"flash-attention", {}, false}, nullptr, &F::flash_attention},
    {{"gpu-memory", {}, true}, &F::gpu_memory},
};

std::vector<option_spec> specs() {
    std::vector<option_spec> out;
    for (const auto& f : flag_table) out.push_back(f.spec);
    return out;
}

transformer_mem_flags flags_of(const parsed_args& args) {
    transformer_mem_flags out;
    for (const auto& f : flag_table) {
        if (f.text != nullptr) out.*f.text = args.value(f.spec.name);
        if (f.on != nullptr) out.*f.on = args.has(f.spec.name);
    }
    return out;
}

int run_eleuther(const parsed_args& args, const eleuther_args& script, bool json) {
    for (const char* own : {"num-key-value-heads", "vocab-size", "sequence-parallel", "recompute", "flash-attention",
                            "gpu-memory", "units"})
        if (args.has(own)) return usage_error(std::string("--") + own + " cannot be combined with --eleuther");
    const auto report = eleuther_transformer_mem(script);
    // The core names the script's arguments (num_gpus); the user typed their flags (--num-gpus).
    if (!report.errors.empty()) return report_errors(dashed_fields(report.errors), json);
    if (json) {
        std::cout << eleuther_report_json(report) << "\n";
        return 0;
    }
    for (const auto& line : report.lines) std::cout << line << "\n";
    std::cout << "(--eleuther: transformer_mem.py's figures, defects included; its \"GB\" are GiB, 2^30 bytes)\n";
    return 0;
}

}  // namespace

int run_transformer_mem(const std::vector<std::string>& argv) {
    const auto args = parse_args(argv, specs());
    if (!args.error.empty()) return usage_error(args.error);
    const bool json = args.has("json");
    const transformer_mem_flags flags = flags_of(args);
    const auto script = eleuther_args_from_flags(flags);
    diagnostics errors = script.errors;
    bool gib = true;
    if (const auto units = args.value("units")) {
        if (*units == "GB") gib = false;
        else if (*units != "GiB") errors.push_back({"units", "must be GB or GiB"});
    }
    if (!errors.empty()) return report_errors(errors, json);
    if (args.has("eleuther")) return run_eleuther(args, script.value, json);

    // Corrected model: the same inputs as an estimate_config.
    const auto config = transformer_mem_config(flags);
    if (!config.ok()) return report_errors(config.errors, json);
    const estimate_config& c = config.value;
    const auto r = estimate(c);
    if (json) {
        std::cout << to_json(r) << "\n";
        return r.errors.empty() ? 0 : exit_usage;
    }
    if (!r.errors.empty()) return report_errors(r.errors, false);
    for (const auto& w : r.warnings) std::cerr << "memplan: warning: " << w.field << ": " << w.message << "\n";
    const memory_breakdown& b = r.per_gpu;
    auto line = [&](const char* label, std::uint64_t bytes) { std::cout << label << ": " << in_units(bytes, gib) << "\n"; };
    std::cout << "Number of Parameters: " << with_commas(r.params) << "\n";
    line("Model Memory", b.weights);
    if (c.mode == run_mode::infer) {
        line("KV Cache Memory", b.kv_cache);
        line("Miscellaneous Memory", b.misc);
        line("Total Memory Required for Inference", b.total);
    } else {
        line("Gradient Memory", b.gradients);
        line("Activation Memory", b.activations);
        if (b.logits != 0) line("Logits Memory", b.logits);
        line("Optimizer Memory", b.optimizer_states);
        line("Communication Memory", b.communication);
        line("Miscellaneous Memory", b.misc);
        line("Total Memory Required for Training", b.total);
    }
    if (r.has_capacity)
        std::cout << (r.fits ? "Fits, headroom " + in_units(r.headroom_bytes, gib)
                             : "Does not fit, short by " + in_units(r.shortfall_bytes, gib))
                  << "\n";
    std::cout << "(per GPU, data parallel " << r.data_parallel << "; " << (gib ? "GiB = 2^30" : "GB = 1e9")
              << " bytes; corrected formulas, see --eleuther for the script's own)\n";
    return 0;
}

}  // namespace memplan::cli
