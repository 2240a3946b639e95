// A GGUF file's header reconciled with memplan's count (memplan/report/gguf.hpp).
#include "memplan/report/gguf.hpp"

#include <map>

#include "io/json_text.hpp"
#include "memplan/report/json.hpp"

namespace memplan {

namespace {
using detail::ordered_json;
}  // namespace

std::string checkpoint_gguf_json(const gguf_header& header, const std::string& file) {
    ordered_json out;
    out["file"] = file;
    out["format"] = "gguf";
    out["gguf_version"] = header.version;
    const auto arch = header.metadata.find("general.architecture");
    out["architecture"] = arch != header.metadata.end() && arch->second.type == 8 ? ordered_json(arch->second.text) : ordered_json();
    const auto config = gguf_hf_config(header, file);
    if (!config.ok()) {
        out["errors"] = detail::errors_json(config.errors);
        return detail::dump_json(out);
    }
    ordered_json hf;
    detail::parse_json(config.value, hf);
    out["hf_config"] = hf;
    ordered_json counted;
    detail::parse_json(checkpoint_json(config.value, gguf_hf_tensors(header)), counted);
    for (auto& item : counted.items()) out[item.key()] = item.value();
    return detail::dump_json(out);
}

std::string gguf_estimate_json(const std::string& estimate_text, const gguf_header& header, const std::string& file) {
    ordered_json out;
    if (!detail::parse_json(estimate_text, out) || !out.is_object() || !out.contains("warnings") || !out["warnings"].is_array())
        return estimate_text;  // an error reply: nothing to warn about
    std::map<std::string, std::uint64_t> by_type;
    std::uint64_t total = 0;
    for (const stored_tensor& t : header.tensors) {
        by_type[t.dtype] += t.bytes;
        total += t.bytes;
    }
    // The dtype the estimate counted the weights at: the mode's weight_dtype (docs/schema.md).
    std::string counted = "the configuration's weight dtype";
    const ordered_json& config = out.contains("config") ? out["config"] : ordered_json();
    if (config.is_object() && config.contains("mode") && config["mode"].is_string()) {
        const std::string mode = config["mode"].get<std::string>();
        if (config.contains(mode) && config[mode].is_object() && config[mode].contains("weight_dtype") &&
            config[mode]["weight_dtype"].is_string())
            counted = mode + ".weight_dtype " + config[mode]["weight_dtype"].get<std::string>();
    }
    if (out.contains("per_gpu") && out["per_gpu"].is_object() && out["per_gpu"].contains("weights") &&
        out["per_gpu"]["weights"].is_number_unsigned())
        counted += " (per_gpu.weights " + std::to_string(out["per_gpu"]["weights"].get<std::uint64_t>()) + " bytes)";
    std::string types;
    for (const auto& [type, bytes] : by_type) types += (types.empty() ? "" : ", ") + type + " " + std::to_string(bytes) + " bytes";
    out["warnings"].push_back(ordered_json{
        {"field", "hf_model"},
        {"message", file + " stores its tensors as " + types + " (" + std::to_string(total) +
                        " bytes in all); memplan has no GGUF weight format, so this estimate counts the weights at " +
                        counted + ", not at the GGUF's stored bytes"}});
    return detail::dump_json(out);
}

}  // namespace memplan
