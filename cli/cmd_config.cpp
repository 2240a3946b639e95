// memplan estimate / analyze / compare: the JSON interface shared with the WebAssembly API (docs/schema.md).
#include <iostream>

#include "args.hpp"
#include "commands.hpp"
#include "hf_model.hpp"
#include "input.hpp"
#include "memplan/api/front_end.hpp"
#include "memplan/io/presets.hpp"
#include "memplan/report/gguf.hpp"
#include "memplan/report/json.hpp"
#include "report.hpp"

namespace memplan::cli {

namespace {

/// --config FILE|- (optional), --hf-config FILE or --hf-model PATH, --preset ID, --recipe ID (the core applies it).
int run_config_command(const std::vector<std::string>& argv, json_reply (*answer)(const json_request&)) {
    const auto args = parse_args(argv, {{"config", {"c"}, true}, {"hf-config", {}, true}, {"hf-model", {}, true},
                                        {"preset", {}, true}, {"recipe", {}, true}});
    if (!args.error.empty()) return usage_error(args.error);
    if (!args.has("config") && !args.has("hf-config") && !args.has("hf-model") && !args.has("preset"))
        return usage_error("--config FILE.json (or - for standard input), --hf-config FILE, --hf-model PATH or --preset ID is required");
    if (args.has("hf-config") + args.has("hf-model") + args.has("preset") > 1)
        return usage_error("--hf-config, --hf-model and --preset cannot be combined (each gives the model)");
    json_request request;
    diagnostics errors;
    if (const auto path = args.value("config")) {
        auto text = read_input(*path, "config", /*required=*/false);  // empty text: the core says "is not valid JSON"
        errors.insert(errors.end(), text.errors.begin(), text.errors.end());
        request.config_text = std::move(text.value);
    }
    if (const auto path = args.value("hf-config")) {
        auto text = read_input(*path, "hf_config", /*required=*/true);  // given but empty must not mean "none"
        errors.insert(errors.end(), text.errors.begin(), text.errors.end());
        request.hf_config_text = std::move(text.value);
    }
    gguf_header gguf;
    const auto hf_model = args.value("hf-model");
    const bool from_gguf = hf_model && is_gguf_path(*hf_model);
    if (from_gguf && answer != estimate_reply)
        return usage_error("--hf-model FILE.gguf is read by estimate and checkpoint (analyze and compare take a model folder)");
    if (from_gguf) {
        // The config.json its metadata describes (memplan/io/gguf.hpp); the header only, no tensor data.
        auto header = read_gguf(*hf_model);
        errors.insert(errors.end(), header.errors.begin(), header.errors.end());
        if (header.ok()) {
            gguf = std::move(header.value);
            auto config = gguf_hf_config(gguf, *hf_model);
            errors.insert(errors.end(), config.errors.begin(), config.errors.end());
            request.hf_config_text = std::move(config.value);
        }
    } else if (const auto path = hf_model) {
        auto model = read_hf_model(*path, /*headers=*/false);  // its config.json; no network
        errors.insert(errors.end(), model.errors.begin(), model.errors.end());
        request.hf_config_text = std::move(model.value.config_text);
    }
    if (!errors.empty()) return report_errors(errors, true);
    if (const auto id = args.value("preset")) {
        if (find_preset(*id) == nullptr) return usage_error("unknown preset " + *id + " (memplan presets lists them)");
        request.preset = *id;
    }
    if (const auto id = args.value("recipe")) request.recipe = *id;
    json_reply reply = answer(request);
    if (!reply.ok && hf_model && !from_gguf) {
        // The families refused it (or something else failed): with the checkpoint's headers the core can
        // estimate it from its stored bytes (the day-one path); the headers are read only now.
        auto stored = read_hf_model(*hf_model, /*headers=*/true);
        if (stored.ok() && !stored.value.tensors.empty()) {
            request.stored_tensors = std::move(stored.value.tensors);
            request.day_one = &day_one_json;
            reply = answer(request);
        }
    }
    // The estimate's weights are at the configuration's dtype, not the GGUF's bytes: said in its warnings.
    std::cout << (from_gguf ? gguf_estimate_json(reply.text, gguf, *hf_model) : reply.text) << "\n";
    return reply.ok ? 0 : exit_usage;
}

}  // namespace

int run_estimate(const std::vector<std::string>& args) { return run_config_command(args, estimate_reply); }

int run_analyze(const std::vector<std::string>& args) { return run_config_command(args, analyze_reply); }

int run_compare(const std::vector<std::string>& args) { return run_config_command(args, compare_reply); }

int run_checkpoint(const std::vector<std::string>& argv) {
    const auto args = parse_args(argv, {{"hf-model", {}, true}});
    if (!args.error.empty()) return usage_error(args.error);
    const auto path = args.value("hf-model");
    if (!path) return usage_error("--hf-model PATH (a model folder, a Hugging Face cache folder, ORG/NAME or FILE.gguf) is required");
    if (is_gguf_path(*path)) {
        const auto header = read_gguf(*path);  // the header only, in bounded chunks; no tensor data
        if (!header.ok()) return report_errors(header.errors, true);
        const std::string text = checkpoint_gguf_json(header.value, *path);
        std::cout << text << "\n";
        return text.find("\"errors\":[]") != std::string::npos ? 0 : exit_usage;
    }
    const auto model = read_hf_model(*path, /*headers=*/true);
    if (!model.ok()) return report_errors(model.errors, true);
    const std::string text = checkpoint_json(model.value.config_text, model.value.tensors);
    std::cout << text << "\n";
    return text.find("\"errors\":[]") != std::string::npos ? 0 : exit_usage;
}

int run_fits(const std::vector<std::string>& argv) {
    const auto args = parse_args(argv, {{"config", {"c"}, true}});
    if (!args.error.empty()) return usage_error(args.error);
    const auto path = args.value("config");
    if (!path) return usage_error("--config FILE.json (or - for standard input) is required");
    auto text = read_input(*path, "config", /*required=*/false);
    if (!text.errors.empty()) return report_errors(text.errors, true);
    const json_reply reply = preset_fits_reply(text.value);
    std::cout << reply.text << "\n";
    return reply.ok ? 0 : exit_usage;
}

}  // namespace memplan::cli
