// memplan transformer-mem: EleutherAI's transformer_mem.py (cookbook repository,
// calc/transformer_mem.py) command line, answered by memplan's corrected model, or with --eleuther
// by the faithful reproduction of the script (memplan/eleuther.hpp).
#include <iostream>

#include "args.hpp"
#include "commands.hpp"
#include "memplan/eleuther.hpp"
#include "memplan/eleuther_flags.hpp"
#include "memplan/estimate.hpp"
#include "memplan/json.hpp"
#include "report.hpp"

namespace memplan::cli {

namespace {

const std::vector<option_spec> transformer_mem_specs = {
    // transformer_mem.py's flags, long and short (its defaults live in eleuther_args).
    {"params", {"p"}, true},
    {"num-gpus", {}, true},
    {"tensor-parallel-size", {"tp"}, true},
    {"pipeline-parallel-size", {"pp"}, true},
    {"partition-activations", {"pa"}, false},
    {"zero-stage", {"z"}, true},
    {"checkpoint-activations", {"ca"}, false},
    {"batch-size-per-gpu", {"b"}, true},
    {"hidden-size", {"hs"}, true},
    {"num-attention-heads", {"a"}, true},
    {"sequence-length", {"s"}, true},
    {"num-layers", {"l"}, true},
    {"fp32-model", {}, false},
    {"fp32-grads", {}, false},
    {"zero-allgather-bucket-size", {"zbs"}, true},
    {"zero3-max-live-params", {"zmlp"}, true},
    {"misc-mem-gb", {}, true},
    {"infer", {}, false},
    // memplan's own.
    {"eleuther", {}, false},
    {"units", {}, true},
    {"json", {}, false},
    {"num-key-value-heads", {}, true},
    {"vocab-size", {}, true},
    {"sequence-parallel", {}, false},
    {"recompute", {}, true},
    {"flash-attention", {}, false},
    {"gpu-memory", {}, true},
};

transformer_mem_flags flags_of(const parsed_args& args) {
    transformer_mem_flags f;
    f.params = args.value("params");
    f.num_gpus = args.value("num-gpus");
    f.tensor_parallel_size = args.value("tensor-parallel-size");
    f.pipeline_parallel_size = args.value("pipeline-parallel-size");
    f.zero_stage = args.value("zero-stage");
    f.batch_size_per_gpu = args.value("batch-size-per-gpu");
    f.hidden_size = args.value("hidden-size");
    f.num_attention_heads = args.value("num-attention-heads");
    f.sequence_length = args.value("sequence-length");
    f.num_layers = args.value("num-layers");
    f.zero_allgather_bucket_size = args.value("zero-allgather-bucket-size");
    f.zero3_max_live_params = args.value("zero3-max-live-params");
    f.misc_mem_gb = args.value("misc-mem-gb");
    f.partition_activations = args.has("partition-activations");
    f.checkpoint_activations = args.has("checkpoint-activations");
    f.fp32_model = args.has("fp32-model");
    f.fp32_grads = args.has("fp32-grads");
    f.infer = args.has("infer");
    f.num_key_value_heads = args.value("num-key-value-heads");
    f.vocab_size = args.value("vocab-size");
    f.recompute = args.value("recompute");
    f.gpu_memory = args.value("gpu-memory");
    f.sequence_parallel = args.has("sequence-parallel");
    f.flash_attention = args.has("flash-attention");
    return f;
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
    const auto args = parse_args(argv, transformer_mem_specs);
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
