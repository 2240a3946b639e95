// A model's files fetched from the Hugging Face Hub, read for the page (memplan/report/hub.hpp).
#include "memplan/report/hub.hpp"

#include <map>

#include "io/json_text.hpp"
#include "memplan/base/limits.hpp"
#include "memplan/io/hub.hpp"
#include "memplan/io/json.hpp"
#include "memplan/io/safetensors.hpp"
#include "memplan/model/arch.hpp"
#include "memplan/report/json.hpp"
#include "report/json.hpp"

namespace memplan {

namespace {
using detail::ordered_json;

std::string errors_only(const diagnostics& errors) {
    ordered_json out;
    out["errors"] = detail::errors_json(errors);
    return detail::dump_json(out);
}
}  // namespace

std::string hub_model_json(const std::string& text) {
    const auto parsed = parse_hub_model(text);
    ordered_json out;
    const bool ok = parsed.ok();
    const hub_model& m = parsed.value;
    out["id"] = ok ? ordered_json(m.id) : ordered_json();
    out["revision"] = ok ? ordered_json(m.revision) : ordered_json();
    out["link"] = ok ? ordered_json(m.link) : ordered_json();
    out["files_url"] = ok ? ordered_json(m.files_url) : ordered_json();
    out["api_url"] = ok ? ordered_json(m.api_url) : ordered_json();
    out["limits"] = ordered_json{{"timeout_ms", hub_timeout_ms},
                                 {"parallel", hub_parallel_requests},
                                 {"max_reply_bytes", hub_max_reply_bytes},
                                 {"max_config_bytes", max_config_bytes}};
    out["errors"] = detail::errors_json(parsed.errors);
    return detail::dump_json(out);
}

std::string safetensors_range_json(const std::string& first_bytes, const std::string& content_range,
                                   const std::string& file) {
    std::uint64_t total = 0;
    const bool known = content_range_total(content_range, total);
    // Without a stated total the file's size is unknown: only the format's own bound applies.
    const auto length = safetensors_header_length(first_bytes, known ? total : ~std::uint64_t{0}, file);
    ordered_json out;
    out["length"] = length.ok() ? ordered_json(length.value) : ordered_json();
    out["range"] = length.ok() ? ordered_json("bytes=8-" + std::to_string(8 + length.value - 1)) : ordered_json();
    out["file_bytes"] = known ? ordered_json(total) : ordered_json();
    out["errors"] = detail::errors_json(length.errors);
    return detail::dump_json(out);
}

std::string safetensors_index_json(const std::string& index_text, const std::string& file) {
    const auto shards = safetensors_index_files(index_text, file);
    ordered_json out;
    out["files"] = shards.value;
    out["errors"] = detail::errors_json(shards.errors);
    return detail::dump_json(out);
}

namespace detail {
diagnostics stored_tensors_of_headers(const std::string& headers_json, std::vector<stored_tensor>& tensors) {
    ordered_json doc;
    if (!detail::parse_json(headers_json, doc) || !doc.is_array() || doc.empty())
        return {{"headers", "must be a non-empty list of {file, length, header}"}};
    diagnostics errors;
    for (const ordered_json& entry : doc) {
        if (!entry.is_object() || !entry.contains("file") || !entry["file"].is_string() || !entry.contains("length") ||
            !entry["length"].is_number_unsigned() || !entry.contains("header") || !entry["header"].is_string()) {
            errors.push_back({"headers", "each entry must be {file, length, header}"});
            continue;
        }
        const std::string file = entry["file"].get<std::string>();
        const std::string& header = entry["header"].get_ref<const std::string&>();
        const std::uint64_t length = entry["length"].get<std::uint64_t>();
        if (header.size() != length) {
            errors.push_back({file, "states a header of " + std::to_string(length) + " bytes but " +
                                        std::to_string(header.size()) + " bytes came (a truncated reply)"});
            continue;
        }
        auto parsed = parse_safetensors_header(header, file);
        errors.insert(errors.end(), parsed.errors.begin(), parsed.errors.end());
        for (auto& t : parsed.value) tensors.push_back(std::move(t));
    }
    return errors;
}
}  // namespace detail

std::string checkpoint_headers_json(const std::string& hf_config_text, const std::string& headers_json) {
    std::vector<stored_tensor> tensors;
    const diagnostics errors = detail::stored_tensors_of_headers(headers_json, tensors);
    if (!errors.empty()) return errors_only(errors);
    return checkpoint_json(hf_config_text, tensors);
}

std::string checkpoint_api_json(const std::string& hf_config_text, const std::string& api_text, const std::string& file) {
    ordered_json api;
    if (!detail::parse_json(api_text, api) || !api.is_object())
        return errors_only({{file, "is not a JSON object (the Hub API's reply about the model)"}});
    if (!api.contains("safetensors") || !api["safetensors"].is_object() || !api["safetensors"].contains("parameters") ||
        !api["safetensors"]["parameters"].is_object() || api["safetensors"]["parameters"].empty())
        return errors_only({{file, "has no safetensors.parameters: the Hub holds no per-dtype counts of this "
                                   "model's safetensors files"}});
    const auto parsed = parse_config(R"({"mode": "infer"})", hf_config_text);
    if (!parsed.ok()) {
        ordered_json out;
        out["errors"] = detail::errors_json(parsed.errors);
        return detail::dump_json(out);
    }
    model_config m = parsed.value.model;
    m.mtp = m.num_nextn_predict_layers != 0;  // a checkpoint stores its MTP modules (as checkpoint_json)
    const auto counted = count_params(m);
    if (!counted.ok()) {
        ordered_json out;
        out["errors"] = detail::errors_json(counted.errors);
        detail::name_hf_config_fields(out);
        return detail::dump_json(out);
    }
    std::map<std::string, std::pair<std::uint64_t, std::uint64_t>> by_dtype;
    std::uint64_t values = 0, bytes = 0;
    constexpr std::uint64_t limit = std::uint64_t{1} << 56;  // no checkpoint comes near; a hostile reply must not wrap
    for (const auto& item : api["safetensors"]["parameters"].items()) {
        const std::uint64_t bits = safetensors_dtype_bits(item.key());
        if (bits == 0) return errors_only({{file, "safetensors.parameters." + item.key() + " is not a safetensors dtype"}});
        if (!item.value().is_number_unsigned() || item.value().get<std::uint64_t>() > limit)
            return errors_only({{file, "safetensors.parameters." + item.key() + " must be a count of values"}});
        const std::uint64_t n = item.value().get<std::uint64_t>();
        const std::uint64_t b = (n * bits + 7) / 8;
        by_dtype[item.key()] = {n, b};
        values += n;
        bytes += b;
    }
    ordered_json dtypes = ordered_json::object();
    for (const auto& [dtype, vb] : by_dtype) dtypes[dtype] = ordered_json{{"values", vb.first}, {"bytes", vb.second}};
    const std::uint64_t mine = counted.value.total;
    ordered_json out;
    out["model_type"] = m.model_type;
    out["params"] = mine;
    out["stored"] = ordered_json{{"values", values}, {"bytes", bytes}, {"by_dtype", dtypes}};
    const ordered_json& total = api["safetensors"].contains("total") ? api["safetensors"]["total"] : ordered_json();
    out["api_total"] = total.is_number_unsigned() ? total : ordered_json();
    out["difference"] = values >= mine ? values - mine : mine - values;
    out["larger"] = values == mine ? "neither" : values > mine ? "stored" : "memplan";
    const std::uint64_t embedding = counted.value.parts.embedding.total;
    std::string note = "the Hub API counts values by dtype only; the tensors' names, which place a difference in "
                       "its part, are in the safetensors headers";
    if (values > mine && m.tie_word_embeddings && values - mine == embedding)
        note = "the difference is the embedding's size: most likely lm_head stored beside embed_tokens although "
               "tie_word_embeddings is true (counted once by memplan; the API gives no names to confirm it)";
    out["note"] = note;
    out["errors"] = ordered_json::array();
    return detail::dump_json(out);
}

}  // namespace memplan
