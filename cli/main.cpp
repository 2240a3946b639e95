// memplan — command-line front end of the memplan core.
//   memplan model-states --params 7e9 --gpus 8 [--stage 1] [--json]
//   memplan max-params --gpu-bytes 80GB --gpus 8 [--stage 1] [--json]
//   memplan transformer-mem [transformer_mem.py flags] [--eleuther] [--units GB|GiB] [--json]
//   memplan estimate|analyze --config FILE.json|- [--hf-config FILE | --preset ID]
//   memplan presets [--json]
#include <cstdio>
#include <fstream>
#include <iostream>
#include <iterator>
#include <map>
#include <optional>
#include <sstream>
#include <string>
#include <vector>

#include "memplan/analyze.hpp"
#include "memplan/arch.hpp"
#include "memplan/eleuther.hpp"
#include "memplan/estimate.hpp"
#include "memplan/json.hpp"
#include "memplan/presets.hpp"
#include "memplan/reference.hpp"
#include "memplan/units.hpp"
#include "memplan/zero.hpp"

namespace {

using namespace memplan;

constexpr int exit_usage = 2;

const char* const usage_text = R"(memplan — GPU memory planner for transformer training and inference

usage:
  memplan model-states --params P --gpus N [--stage S] [--json]
      model-state bytes per GPU for mixed-precision Adam under ZeRO (all stages without --stage)
  memplan max-params --gpu-bytes B --gpus N [--stage S] [--json]
      largest parameter count whose model states fit in B bytes per GPU
  memplan transformer-mem [flags of EleutherAI's transformer_mem.py] [--eleuther] [--units GB|GiB] [--json]
      the seed script's report with corrected formulas; --eleuther reproduces the script exactly
  memplan estimate --config FILE.json|- [--hf-config config.json | --preset ID]
      the JSON interface shared with the WebAssembly API (docs/schema.md); --hf-config takes the
      model from a Hugging Face config.json, --preset from a stored model (memplan presets)
  memplan analyze  (same options as estimate)
      adds all ZeRO stages, the largest model, the fewest GPUs, the largest batch / context /
      micro-batch / sequence that fit, and what would make it fit (needs gpu.memory_bytes)
  memplan presets [--json]
      the stored models with their exact parameter counts and sources
  memplan deepspeed-estimate --stage 2|3 --params P [--largest-layer-params P] [--gpus-per-node N] [--nodes N]
      DeepSpeed's estimate_zero2/3_model_states_mem_needs table, reproduced (its "GB" are GiB)
  memplan megatron-memory --num-layers L --hidden-size H --num-attention-heads A --seq-length S
                          --padded-vocab-size V [Megatron-LM's other flags]
      Megatron-LM's theoretical memory report, reproduced (its "MB" are MiB)

numbers accept 7e9, 7000000000 and suffixes K M B T (counts), KB MB GB TB (1e3..1e12 bytes),
KiB MiB GiB TiB (2^10..2^40 bytes).
)";

// ---------------------------------------------------------------------------------------------
// Argument parsing in the manner of Python's argparse: --name=value, --name value, single-dash
// aliases (-tp 2), and unambiguous prefixes of long names (--param for --params).

struct option_spec {
    std::string name;                 // long name without dashes
    std::vector<std::string> aliases; // single-dash aliases without the dash
    bool takes_value;
};

struct parsed_args {
    std::map<std::string, std::string> values;
    std::map<std::string, bool> flags;
    std::string error;
    bool has(const std::string& name) const { return values.count(name) != 0 || flags.count(name) != 0; }
};

parsed_args parse_args(const std::vector<std::string>& argv, const std::vector<option_spec>& specs) {
    parsed_args out;
    for (std::size_t i = 0; i < argv.size(); ++i) {
        std::string arg = argv[i];
        std::optional<std::string> inline_value;
        const option_spec* spec = nullptr;
        if (arg.rfind("--", 0) == 0) {
            std::string name = arg.substr(2);
            const auto eq = name.find('=');
            if (eq != std::string::npos) {
                inline_value = name.substr(eq + 1);
                name = name.substr(0, eq);
            }
            std::vector<const option_spec*> matches;
            for (const auto& s : specs) {
                if (s.name == name) {
                    matches = {&s};
                    break;
                }
                if (!name.empty() && s.name.rfind(name, 0) == 0) matches.push_back(&s);
            }
            if (matches.size() > 1) {
                out.error = "ambiguous option --" + name;
                return out;
            }
            if (!matches.empty()) spec = matches.front();
        } else if (arg.size() > 1 && arg[0] == '-') {
            std::string name = arg.substr(1);
            const auto eq = name.find('=');
            if (eq != std::string::npos) {
                inline_value = name.substr(eq + 1);
                name = name.substr(0, eq);
            }
            for (const auto& s : specs)
                for (const auto& alias : s.aliases)
                    if (alias == name) spec = &s;
        }
        if (spec == nullptr) {
            out.error = "unrecognized argument " + arg;
            return out;
        }
        if (!spec->takes_value) {
            if (inline_value) {
                out.error = "--" + spec->name + " takes no value";
                return out;
            }
            out.flags[spec->name] = true;
            continue;
        }
        if (!inline_value) {
            if (i + 1 >= argv.size()) {
                out.error = "--" + spec->name + " needs a value";
                return out;
            }
            inline_value = argv[++i];
        }
        out.values[spec->name] = *inline_value;
    }
    return out;
}

// ---------------------------------------------------------------------------------------------
// Output helpers

std::string with_commas(std::uint64_t value) {
    std::string digits = std::to_string(value);
    for (int i = static_cast<int>(digits.size()) - 3; i > 0; i -= 3) digits.insert(static_cast<std::size_t>(i), ",");
    return digits;
}

std::string in_units(std::uint64_t bytes, bool gib) {
    char buffer[64];
    const double scaled = static_cast<double>(bytes) / static_cast<double>(gib ? bytes_per_gib : bytes_per_gb);
    std::snprintf(buffer, sizeof buffer, "%.2f %s", scaled, gib ? "GiB" : "GB");
    return buffer;
}

std::string json_escape(const std::string& text) {
    std::string out;
    for (const char ch : text) {
        if (ch == '"' || ch == '\\') {
            out += '\\';
            out += ch;
        } else if (static_cast<unsigned char>(ch) < 0x20) {
            char buffer[8];
            std::snprintf(buffer, sizeof buffer, "\\u%04x", static_cast<unsigned>(ch));
            out += buffer;
        } else {
            out += ch;
        }
    }
    return out;
}

int report_errors(const diagnostics& errors, bool json) {
    if (json) std::cout << errors_json_text(errors) << "\n";
    for (const auto& e : errors) std::cerr << "memplan: error: " << e.field << ": " << e.message << "\n";
    return exit_usage;
}

int usage_error(const std::string& message) {
    std::cerr << "memplan: error: " << message << "\n(run memplan --help for usage)\n";
    return exit_usage;
}

/// Reads a quantity option; on failure appends to errors and returns 0.
std::uint64_t quantity(const parsed_args& args, const std::string& name, std::uint64_t fallback, diagnostics& errors,
                       std::uint64_t max = max_exact_integer) {
    const auto it = args.values.find(name);
    if (it == args.values.end()) return fallback;
    auto parsed = parse_quantity(it->second, name, max);
    errors.insert(errors.end(), parsed.errors.begin(), parsed.errors.end());
    return parsed.value;
}

std::optional<std::int64_t> stage_option(const parsed_args& args, diagnostics& errors) {
    const auto it = args.values.find("stage");
    if (it == args.values.end()) return std::nullopt;
    const std::string& s = it->second;
    if (s == "0" || s == "1" || s == "2" || s == "3") return std::stoll(s);
    errors.push_back({"stage", "must be 0, 1, 2 or 3"});
    return std::nullopt;
}

// ---------------------------------------------------------------------------------------------
// model-states and max-params

int run_zero(const std::vector<std::string>& argv, bool inverse) {
    const std::vector<option_spec> specs = {
        {inverse ? "gpu-bytes" : "params", {}, true}, {"gpus", {}, true}, {"stage", {}, true}, {"json", {}, false}};
    const auto args = parse_args(argv, specs);
    if (!args.error.empty()) return usage_error(args.error);
    diagnostics errors;
    const std::string amount_name = inverse ? "gpu-bytes" : "params";
    if (!args.has(amount_name)) errors.push_back({amount_name, "is required"});
    if (!args.has("gpus")) errors.push_back({"gpus", "is required"});
    const std::uint64_t amount = quantity(args, amount_name, 0, errors, inverse ? max_exact_integer : max_param_count);
    const std::uint64_t gpus = quantity(args, "gpus", 1, errors, max_gpu_count);
    const auto stage = stage_option(args, errors);
    const bool json = args.has("json");
    if (!errors.empty()) return report_errors(errors, json);

    std::vector<std::int64_t> stages;
    if (stage) stages = {*stage};
    else stages = {0, 1, 2, 3};
    std::vector<std::uint64_t> values;
    for (const auto s : stages) {
        auto r = inverse ? max_params(amount, gpus, s) : model_state_bytes(amount, gpus, s);
        if (!r.ok()) return report_errors(r.errors, json);
        values.push_back(r.value);
    }
    const char* key = inverse ? "params" : "bytes";
    if (json) {
        if (stage) {
            std::cout << "{\"" << key << "\":" << values[0] << "}\n";
        } else {
            std::cout << "{\"stages\":[";
            for (std::size_t i = 0; i < values.size(); ++i)
                std::cout << (i ? "," : "") << "{\"stage\":" << stages[i] << ",\"" << key << "\":" << values[i] << "}";
            std::cout << "]}\n";
        }
        return 0;
    }
    if (inverse)
        std::cout << "largest model whose mixed-precision Adam states fit in " << with_commas(amount)
                  << " bytes per GPU (" << in_units(amount, false) << ", " << in_units(amount, true) << "), "
                  << gpus << " GPU" << (gpus == 1 ? "" : "s") << ":\n";
    else
        std::cout << "model states of " << with_commas(amount) << " parameters under mixed-precision Adam, " << gpus
                  << " GPU" << (gpus == 1 ? "" : "s") << ", per GPU:\n";
    for (std::size_t i = 0; i < values.size(); ++i) {
        if (inverse)
            std::cout << "  ZeRO stage " << stages[i] << ": " << with_commas(values[i]) << " parameters\n";
        else
            std::cout << "  ZeRO stage " << stages[i] << ": " << with_commas(values[i]) << " bytes ("
                      << in_units(values[i], false) << ", " << in_units(values[i], true) << ")\n";
    }
    return 0;
}

// ---------------------------------------------------------------------------------------------
// transformer-mem

const std::vector<option_spec> transformer_mem_specs = {
    // The seed script's flags, long and short, with its defaults (applied below).
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

int run_transformer_mem(const std::vector<std::string>& argv) {
    const auto args = parse_args(argv, transformer_mem_specs);
    if (!args.error.empty()) return usage_error(args.error);
    const bool json = args.has("json");
    diagnostics errors;
    eleuther_args e;  // the seed's defaults
    e.params = quantity(args, "params", e.params, errors, max_param_count);
    e.num_gpus = quantity(args, "num-gpus", e.num_gpus, errors, max_gpu_count);
    e.tensor_parallel_size = quantity(args, "tensor-parallel-size", e.tensor_parallel_size, errors, 1024);
    e.pipeline_parallel_size = quantity(args, "pipeline-parallel-size", e.pipeline_parallel_size, errors, 1024);
    e.partition_activations = args.has("partition-activations");
    if (args.has("zero-stage")) {
        const auto it = args.values.find("zero-stage");
        const std::string& s = it->second;
        if (s == "0" || s == "1" || s == "2" || s == "3") e.zero_stage = std::stoll(s);
        else errors.push_back({"zero-stage", "must be 0, 1, 2 or 3"});
    }
    e.checkpoint_activations = args.has("checkpoint-activations");
    e.batch_size_per_gpu = quantity(args, "batch-size-per-gpu", e.batch_size_per_gpu, errors, 1048576);
    e.hidden_size = quantity(args, "hidden-size", e.hidden_size, errors, 1048576);
    e.num_attention_heads = quantity(args, "num-attention-heads", e.num_attention_heads, errors, 65536);
    e.sequence_length = quantity(args, "sequence-length", e.sequence_length, errors, 16777216);
    e.num_layers = quantity(args, "num-layers", e.num_layers, errors, 65536);
    e.fp32_model = args.has("fp32-model");
    e.fp32_grads = args.has("fp32-grads");
    if (args.has("zero-allgather-bucket-size"))
        e.zero_allgather_bucket_size =
            static_cast<double>(quantity(args, "zero-allgather-bucket-size", 0, errors, max_param_count));
    if (args.has("zero3-max-live-params"))
        e.zero3_max_live_params = static_cast<double>(quantity(args, "zero3-max-live-params", 0, errors, max_param_count));
    e.misc_mem_gb = quantity(args, "misc-mem-gb", 0, errors, 1000000);
    e.infer = args.has("infer");

    bool gib = true;
    if (args.has("units")) {
        const std::string& u = args.values.at("units");
        if (u == "GB") gib = false;
        else if (u != "GiB") errors.push_back({"units", "must be GB or GiB"});
    }
    if (!errors.empty()) return report_errors(errors, json);

    if (args.has("eleuther")) {
        for (const char* own : {"num-key-value-heads", "vocab-size", "sequence-parallel", "recompute",
                                "flash-attention", "gpu-memory", "units"})
            if (args.has(own)) return usage_error(std::string("--") + own + " cannot be combined with --eleuther");
        const auto report = eleuther_transformer_mem(e);
        if (!report.errors.empty()) return report_errors(report.errors, json);
        if (json) {
            std::cout << "{\"params\":\"" << json_escape(report.params_text) << "\",\"unit\":\"GiB\",\"rows\":{";
            for (std::size_t i = 0; i < report.rows.size(); ++i) {
                char buffer[64];
                std::snprintf(buffer, sizeof buffer, "%.17g", report.rows[i].gib);
                std::cout << (i ? "," : "") << "\"" << report.rows[i].label << "\":" << buffer;
            }
            std::cout << "}}\n";
            return 0;
        }
        for (const auto& line : report.lines) std::cout << line << "\n";
        std::cout << "(--eleuther: transformer_mem.py's figures, defects included; its \"GB\" are GiB, 2^30 bytes)\n";
        return 0;
    }

    // Corrected model: the same inputs as an estimate_config.
    estimate_config c;
    c.mode = e.infer ? run_mode::infer : run_mode::train;
    c.model.params = e.params;
    c.model.num_hidden_layers = e.num_layers;
    c.model.hidden_size = e.hidden_size;
    c.model.num_attention_heads = e.num_attention_heads;
    c.model.num_key_value_heads = quantity(args, "num-key-value-heads", 0, errors, 65536);
    c.model.vocab_size = quantity(args, "vocab-size", 0, errors, 16777216);
    c.parallel.gpus = e.num_gpus;
    c.parallel.tp = e.tensor_parallel_size;
    c.parallel.pp = e.pipeline_parallel_size;
    c.parallel.zero_stage = e.zero_stage;
    c.parallel.sequence_parallel = args.has("sequence-parallel");
    c.parallel.partition_activations = e.partition_activations;
    c.parallel.zero_bucket_params = static_cast<std::uint64_t>(e.zero_allgather_bucket_size);
    c.parallel.zero3_max_live_params = static_cast<std::uint64_t>(e.zero3_max_live_params);
    c.train.micro_batch = e.batch_size_per_gpu;
    c.train.seq_len = e.sequence_length;
    c.train.recompute = e.checkpoint_activations ? recompute_mode::full : recompute_mode::none;
    if (args.has("recompute") && !parse_enum(args.values.at("recompute"), c.train.recompute))
        errors.push_back({"recompute", "must be one of: none, selective, full"});
    c.train.flash_attention = args.has("flash-attention");
    c.train.weight_dtype = e.fp32_model ? dtype::fp32 : dtype::bf16;
    // Gradients follow the weights unless --fp32-grads asks for fp32 accumulation.
    c.train.grad_dtype = (e.fp32_grads || e.fp32_model) ? dtype::fp32 : dtype::bf16;
    c.infer.batch = e.batch_size_per_gpu;
    c.infer.context_len = e.sequence_length;
    c.infer.weight_dtype = c.train.weight_dtype;
    c.infer.kv_dtype = c.train.weight_dtype;
    c.misc_bytes = e.misc_mem_gb * bytes_per_gib;  // the seed's "GB" are GiB
    c.gpu_memory_bytes = quantity(args, "gpu-memory", 0, errors);
    if (!errors.empty()) return report_errors(errors, json);

    const auto r = estimate(c);
    if (json) {
        std::cout << to_json(r) << "\n";
        return r.errors.empty() ? 0 : exit_usage;
    }
    if (!r.errors.empty()) {
        // Name the seed's flags rather than JSON fields where they correspond.
        return report_errors(r.errors, false);
    }
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

// ---------------------------------------------------------------------------------------------
// estimate

bool read_text(const std::string& path, std::string& text) {
    if (path == "-") {
        text.assign(std::istreambuf_iterator<char>(std::cin), std::istreambuf_iterator<char>());
        return true;
    }
    std::ifstream in(path, std::ios::binary);
    if (!in) return false;
    std::ostringstream buffer;
    buffer << in.rdbuf();
    text = buffer.str();
    return true;
}

/// estimate and analyze: --config FILE|- (optional), --hf-config FILE, --preset ID.
int run_json_command(const std::vector<std::string>& argv, bool analysis) {
    const auto args = parse_args(argv, {{"config", {"c"}, true}, {"hf-config", {}, true}, {"preset", {}, true}});
    if (!args.error.empty()) return usage_error(args.error);
    if (!args.has("config") && !args.has("hf-config") && !args.has("preset"))
        return usage_error("--config FILE.json (or - for standard input), --hf-config FILE or --preset ID is required");
    if (args.has("hf-config") && args.has("preset")) return usage_error("--hf-config and --preset cannot be combined");
    std::string config = "{}", hf;
    if (args.has("config") && !read_text(args.values.at("config"), config))
        return usage_error("cannot read " + args.values.at("config"));
    if (args.has("hf-config") && !read_text(args.values.at("hf-config"), hf))
        return usage_error("cannot read " + args.values.at("hf-config"));
    if (args.has("preset")) {
        const std::string id = args.values.at("preset");
        if (find_preset(id) == nullptr) return usage_error("unknown preset " + id + " (memplan presets lists them)");
        hf = "{\"preset\":\"" + json_escape(id) + "\"}";
    }
    const std::string result = analysis ? analyze_json(config, hf) : estimate_json(config, hf);
    std::cout << result << "\n";
    return result.find("\"errors\":[]}") != std::string::npos ? 0 : exit_usage;
}

/// DeepSpeed's estimate_zero{2,3}_model_states_mem_needs_all_cold, reproduced with its table.
int run_deepspeed(const std::vector<std::string>& argv) {
    const auto args = parse_args(argv, {{"stage", {}, true}, {"params", {}, true}, {"largest-layer-params", {}, true},
                                        {"gpus-per-node", {}, true}, {"nodes", {}, true}, {"json", {}, false}});
    if (!args.error.empty()) return usage_error(args.error);
    diagnostics errors;
    const bool json = args.has("json");
    const std::string stage = args.has("stage") ? args.values.at("stage") : "3";
    if (stage != "2" && stage != "3") errors.push_back({"stage", "must be 2 or 3"});
    if (!args.has("params")) errors.push_back({"params", "is required"});
    if (stage == "3" && !args.has("largest-layer-params")) errors.push_back({"largest-layer-params", "is required for stage 3"});
    const std::uint64_t params = quantity(args, "params", 0, errors, max_param_count);
    const std::uint64_t largest = quantity(args, "largest-layer-params", 0, errors, max_param_count);
    const std::uint64_t per_node = quantity(args, "gpus-per-node", 1, errors, 1024);
    const std::uint64_t nodes = quantity(args, "nodes", 1, errors, 65536);
    if (!errors.empty()) return report_errors(errors, json);
    const auto rows = stage == "2" ? deepspeed_zero2_estimate(params, per_node, nodes)
                                   : deepspeed_zero3_estimate(params, largest, per_node, nodes);
    if (!rows.ok()) return report_errors(rows.errors, json);
    if (json) {
        std::cout << "{\"rows\":[";
        for (std::size_t i = 0; i < rows.value.size(); ++i)
            std::cout << (i ? "," : "") << "{\"options\":\"" << rows.value[i].options << "\",\"cpu_bytes\":"
                      << rows.value[i].cpu_bytes << ",\"gpu_bytes\":" << rows.value[i].gpu_bytes << "}";
        std::cout << "]}\n";
        return 0;
    }
    std::cout << "Estimated memory needed for params, optim states and gradients for a:\n"
              << "HW: Setup with " << nodes << " node" << (nodes == 1 ? "" : "s") << ", " << per_node << " GPU"
              << (per_node == 1 ? "" : "s") << " per node.\n"
              << "SW: Model with " << params / 1000000 << "M total params"
              << (stage == "3" ? ", " + std::to_string(largest / 1000000) + "M largest layer params" : std::string()) << ".\n"
              << "  per CPU  |  per GPU |   Options\n";
    for (const auto& row : rows.value) {
        char line[160];
        std::snprintf(line, sizeof line, "%8.2fGB | %6.2fGB | %s", static_cast<double>(row.cpu_bytes) / bytes_per_gib,
                      static_cast<double>(row.gpu_bytes) / bytes_per_gib, row.options.c_str());
        std::cout << line << "\n";
    }
    std::cout << "(DeepSpeed's estimator reproduced: its \"GB\" are GiB, 2^30 bytes; CPU figures include its 1.5 buffer factor)\n";
    return 0;
}

/// Megatron-LM's theoretical memory report, reproduced.
int run_megatron(const std::vector<std::string>& argv) {
    const std::vector<option_spec> specs = {
        {"num-layers", {}, true}, {"hidden-size", {}, true}, {"num-attention-heads", {}, true},
        {"num-query-groups", {}, true}, {"kv-channels", {}, true}, {"ffn-hidden-size", {}, true},
        {"padded-vocab-size", {}, true}, {"seq-length", {}, true}, {"micro-batch-size", {}, true},
        {"num-experts", {}, true}, {"swiglu", {}, false}, {"untie-embeddings-and-output-weights", {}, false},
        {"use-distributed-optimizer", {}, false}, {"tensor-model-parallel-size", {}, true},
        {"pipeline-model-parallel-size", {}, true}, {"data-parallel-size", {}, true},
        {"virtual-pipeline-model-parallel-size", {}, true}, {"num-microbatches", {}, true}};
    const auto args = parse_args(argv, specs);
    if (!args.error.empty()) return usage_error(args.error);
    diagnostics errors;
    megatron_args a;
    auto q = [&](const char* name, std::uint64_t fallback) { return quantity(args, name, fallback, errors, max_param_count); };
    a.num_layers = q("num-layers", 0);
    a.hidden_size = q("hidden-size", 0);
    a.num_attention_heads = q("num-attention-heads", 0);
    a.num_query_groups = q("num-query-groups", 0);
    a.kv_channels = q("kv-channels", 0);
    a.ffn_hidden_size = q("ffn-hidden-size", 4 * a.hidden_size);
    a.padded_vocab_size = q("padded-vocab-size", 0);
    a.seq_length = q("seq-length", 0);
    a.micro_batch_size = q("micro-batch-size", 1);
    a.num_experts = q("num-experts", 0);
    a.swiglu = args.has("swiglu");
    a.untie_embeddings_and_output_weights = args.has("untie-embeddings-and-output-weights");
    a.use_distributed_optimizer = args.has("use-distributed-optimizer");
    a.tensor_model_parallel_size = q("tensor-model-parallel-size", 1);
    a.pipeline_model_parallel_size = q("pipeline-model-parallel-size", 1);
    a.data_parallel_size = q("data-parallel-size", 1);
    a.virtual_pipeline_model_parallel_size = q("virtual-pipeline-model-parallel-size", 0);
    a.num_microbatches = q("num-microbatches", 0);
    if (!errors.empty()) return report_errors(errors, false);
    const auto r = megatron_theoretical_memory(a);
    if (!r.errors.empty()) return report_errors(r.errors, false);
    char line[256];
    std::snprintf(line, sizeof line,
                  "Theoretical memory footprints: weight and optimizer=%.2f MB, activation=%.2f MB, total=%.2f MB\n",
                  r.weight_and_optimizer_mib, r.activation_mib, r.total_mib);
    std::cout << line << "(Megatron-LM's formula reproduced: its \"MB\" are MiB; it assumes sequence parallelism and selective recompute)\n";
    return 0;
}

int run_presets(const std::vector<std::string>& argv) {
    const auto args = parse_args(argv, {{"json", {}, false}});
    if (!args.error.empty()) return usage_error(args.error);
    if (args.has("json")) {
        std::cout << model_presets_json() << "\n";
        return 0;
    }
    std::size_t count = 0;
    const model_preset* presets = model_presets(count);
    for (std::size_t i = 0; i < count; ++i) {
        const auto parsed = parse_config(std::string("{\"model\":{\"preset\":\"") + presets[i].id + "\"}}");
        const auto counted = count_params(parsed.value.model);
        char line[256];
        std::snprintf(line, sizeof line, "%-18s %-20s %18s params", presets[i].id, presets[i].name,
                      counted.ok() ? with_commas(counted.value.total).c_str() : "?");
        std::cout << line << "  (" << presets[i].source << ")\n";
    }
    return 0;
}

}  // namespace

int main(int argc, char** argv) {
    std::vector<std::string> args(argv + 1, argv + argc);
    if (args.empty() || args[0] == "--help" || args[0] == "-h" || args[0] == "help") {
        std::cout << usage_text;
        return args.empty() ? exit_usage : 0;
    }
    if (args[0] == "--version") {
        std::cout << "memplan 0.1.0\n";
        return 0;
    }
    const std::string command = args[0];
    args.erase(args.begin());
    for (const auto& a : args)
        if (a == "--help" || a == "-h") {
            std::cout << usage_text;
            return 0;
        }
    if (command == "model-states") return run_zero(args, false);
    if (command == "max-params") return run_zero(args, true);
    if (command == "transformer-mem") return run_transformer_mem(args);
    if (command == "estimate") return run_json_command(args, false);
    if (command == "analyze") return run_json_command(args, true);
    if (command == "presets") return run_presets(args);
    if (command == "deepspeed-estimate") return run_deepspeed(args);
    if (command == "megatron-memory") return run_megatron(args);
    return usage_error("unknown command " + command);
}
