// libFuzzer target over memplan's JSON entry points (docs/reliability.md).
//
// One input is a configuration text, optionally followed by a NUL byte and a Hugging Face
// config.json text: "CONFIG\0HF_CONFIG". Each input goes through estimate_json, resolve_model_json
// and analyze_json, and the outputs are checked, so that a wrong answer is a finding, not only a crash:
//   - every output is a JSON object with an "errors" array;
//   - every number in it is a non-negative integer of at most 2^53 (no NaN, no negative size);
//   - estimate: "per_gpu" present exactly when "errors" is empty, and per_gpu.total = sum of the parts;
//   - the same input gives the same text twice (no hidden state);
//   - resolve_model_json's "model", fed back as the configuration's model, resolves to itself;
//   - analyze_json's "estimate" is estimate_json's result;
//   - a Hugging Face config read as the hf_config text and as the configuration's "model" object
//     gives the same result (its errors naming hf_config.KEY where the other says model.KEY).
// Build and run: scripts/fuzz.sh (CMake option MEMPLAN_FUZZ, preset "fuzz").
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>

#include <nlohmann/json.hpp>

#include "memplan/search/analyze.hpp"
#include "memplan/report/json.hpp"
#include "memplan/io/json.hpp"
#include "memplan/base/types.hpp"

namespace {
using json = nlohmann::json;

[[noreturn]] void fail(const char* what, const std::string& output) {
    std::fprintf(stderr, "memplan fuzz invariant violated: %s\noutput: %.2000s\n", what, output.c_str());
    std::abort();
}

/// Every number in `value` is an unsigned integer of at most 2^53.
void check_numbers(const json& value, const std::string& output) {
    switch (value.type()) {
        case json::value_t::object:
        case json::value_t::array:
            for (const auto& item : value) check_numbers(item, output);
            break;
        case json::value_t::number_unsigned:
            if (value.get<std::uint64_t>() > memplan::max_exact_integer) fail("number above 2^53", output);
            break;
        case json::value_t::number_integer:
            if (value.get<std::int64_t>() < 0) fail("negative number", output);
            break;
        case json::value_t::number_float:
            fail("non-integer number", output);
        default:
            break;
    }
}

/// Parses an output object and checks the invariants every output shares.
json checked_output(const std::string& output) {
    json doc = json::parse(output, nullptr, /*allow_exceptions=*/false);
    if (doc.is_discarded() || !doc.is_object()) fail("output is not a JSON object", output);
    const auto errors = doc.find("errors");
    if (errors == doc.end() || !errors->is_array()) fail("output has no errors array", output);
    for (const auto& e : *errors)
        if (!e.is_object() || !e.contains("field") || !e.contains("message") || !e["field"].is_string() ||
            !e["message"].is_string() || e["message"].get<std::string>().empty())
            fail("malformed error entry", output);
    check_numbers(doc, output);
    return doc;
}

void check_estimate(const json& doc, const std::string& output) {
    const bool ok = doc["errors"].empty();
    if (ok != doc.contains("per_gpu")) fail("per_gpu present exactly when errors is empty", output);
    if (!ok) return;
    const json& b = doc["per_gpu"];
    std::uint64_t sum = 0;
    for (const char* part : {"weights", "gradients", "optimizer_states", "activations", "logits", "communication",
                             "kv_cache", "dequant_workspace", "misc"}) {
        if (!b.contains(part) || !b[part].is_number_unsigned()) fail("per_gpu part missing", output);
        sum += b[part].get<std::uint64_t>();  // each ≤ 2^53 (checked), so 9 of them cannot wrap
    }
    if (b["total"].get<std::uint64_t>() != sum) fail("per_gpu.total is not the sum of the parts", output);
}
}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    if (size > 65536) return 0;  // real configurations are a few kB; longer inputs only slow the search
    const std::string input(reinterpret_cast<const char*>(data), size);
    const auto nul = input.find('\0');
    const std::string config = input.substr(0, nul);
    const std::string hf = nul == std::string::npos ? std::string() : input.substr(nul + 1);

    const std::string estimated = memplan::estimate_json(config, hf);
    check_estimate(checked_output(estimated), estimated);
    if (memplan::estimate_json(config, hf) != estimated) fail("estimate_json is not deterministic", estimated);

    // A Hugging Face config given as the configuration's "model" object is read the same way as
    // given as the hf_config text: both succeed with the same result, or both fail.
    if (!hf.empty()) {
        json base = json::parse(config, nullptr, false);
        const json model = json::parse(hf, nullptr, false);
        if (base.is_object() && !base.contains("model") && model.is_object() && model.contains("model_type")) {
            base["model"] = model;
            const std::string inline_text = memplan::estimate_json(base.dump(), "");
            const json inline_doc = json::parse(inline_text, nullptr, false);
            // The hf_config path names the imported model's keys hf_config.KEY where the inline path
            // says model.KEY: compared with those names written the inline way.
            std::string as_inline = estimated;
            for (std::size_t at = as_inline.find("hf_config."); at != std::string::npos; at = as_inline.find("hf_config.", at))
                as_inline.replace(at, 10, "model.");
            const json hf_doc = json::parse(as_inline, nullptr, false);
            // A document refused as text (a key twice, a NUL byte, too deep) is not the same input
            // once re-serialised by nlohmann, which keeps the last duplicate: nothing to compare.
            bool refused_as_text = false;
            for (const auto& e : hf_doc["errors"])
                refused_as_text = refused_as_text || e["field"] == "hf_config" || e["field"] == "config";
            if (!refused_as_text && (inline_doc["errors"].empty() != hf_doc["errors"].empty() ||
                (hf_doc["errors"].empty() && inline_doc != hf_doc)))
                fail("the model as hf_config and as config.model differ", estimated + "\ninline: " + inline_text);
        }
    }

    const std::string resolved = memplan::resolve_model_json(config, hf);
    const json model = checked_output(resolved);
    if (model["errors"].empty() && model["model"].is_object()) {
        // The resolved keys describe the same model: resolving them again changes nothing.
        const std::string again = memplan::resolve_model_json(json{{"model", model["model"]}}.dump());
        if (again != resolved) fail("resolve_model_json does not round-trip", resolved + "\nagain: " + again);
    }

    const std::string analyzed = memplan::analyze_json(config, hf);
    const json analysis = checked_output(analyzed);
    // analyze's "estimate" is the estimate of the same input: the same object as estimate_json's.
    if (!analysis.contains("estimate") || analysis["estimate"] != json::parse(estimated, nullptr, false))
        fail("analyze_json's estimate differs from estimate_json", estimated + "\nanalyze: " + analyzed);
    return 0;
}
