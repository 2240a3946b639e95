// A checkpoint's stored tensors reconciled with memplan's count (memplan/report/json.hpp checkpoint_json).
#include <map>

#include "io/json_text.hpp"
#include "memplan/io/json.hpp"
#include "memplan/model/arch.hpp"
#include "memplan/report/json.hpp"
#include "report/json.hpp"

namespace memplan {

namespace {
using detail::ordered_json;

bool has(const std::string& text, const char* part) { return text.find(part) != std::string::npos; }

/// The layer index of a tensor named "….layers.N.…" (or GPT-2's "h.N."), and the name after it; false
/// when the name holds no layer.
bool layer_of(const std::string& name, std::uint64_t& index, std::string& rest) {
    for (const char* marker : {"layers.", "h."}) {
        for (std::size_t at = name.find(marker); at != std::string::npos; at = name.find(marker, at + 1)) {
            if (at != 0 && name[at - 1] != '.') continue;
            std::size_t i = at + std::char_traits<char>::length(marker), digits = 0;
            std::uint64_t n = 0;
            while (i < name.size() && name[i] >= '0' && name[i] <= '9' && digits < 9) n = n * 10 + static_cast<std::uint64_t>(name[i++] - '0'), ++digits;
            if (digits == 0 || i >= name.size() || name[i] != '.') continue;
            index = n;
            rest = name.substr(i + 1);
            return true;
        }
    }
    return false;
}

/// memplan's part for a stored tensor, by the module names transformers gives them (modeling_llama.py,
/// modeling_qwen3_moe.py, modeling_deepseek_v3.py, modeling_gemma3.py): "quantization" for the scales
/// and packing metadata of a quantized checkpoint, "buffers" for non-parameter buffers, "other" when
/// the name says nothing memplan knows.
std::string part_of(const std::string& name, std::uint64_t layers) {
    if (has(name, "rotary_emb.inv_freq")) return "buffers";
    for (const char* q : {"weight_scale_inv", "weight_scale", "input_scale", ".scales", "_scales", ".qzeros", ".g_idx",
                          ".absmax", ".quant_map", ".quant_state", ".SCB", ".nested_absmax", ".nested_quant_map"})
        if (has(name, q)) return "quantization";
    if (has(name, "vision") || has(name, "visual") || has(name, "multi_modal_projector") || has(name, "mm_")) return "vision";
    std::uint64_t index = 0;
    std::string rest;
    if (layer_of(name, index, rest)) {
        if (index >= layers) return "mtp";
        const std::string first = rest.substr(0, rest.find('.'));
        if (has(first, "norm") || first.rfind("ln", 0) == 0) return "norms";
        if (has(rest, "shared_expert")) return "shared_experts";
        if (has(rest, ".experts.") || has(rest, "experts.")) return "experts";
        if (has(rest, "mlp.gate.") || has(rest, "router") || has(rest, "e_score_correction_bias") ||
            has(rest, "block_sparse_moe.gate.") || has(rest, "feed_forward.gate."))
            return "router";
        if (has(first, "attn") || has(first, "attention") || first == "mixer" || first == "linear_attn") return "attention";
        if (has(first, "mlp") || first == "feed_forward" || first == "block_sparse_moe") return "mlp";
        return "other";
    }
    if (has(name, "embed_tokens") || has(name, "wte") || has(name, "wpe") || has(name, "embed_in")) return "embedding";
    if (has(name, "lm_head") || has(name, "embed_out")) return "output";
    if (has(name, "norm") || has(name, "ln_f")) return "norms";
    return "other";
}
}  // namespace

std::string checkpoint_json(const std::string& hf_config_text, const std::vector<stored_tensor>& tensors) {
    ordered_json out;
    const auto parsed = parse_config(R"({"mode": "infer"})", hf_config_text);
    if (!parsed.ok()) {
        out["errors"] = detail::errors_json(parsed.errors);
        return detail::dump_json(out);
    }
    model_config m = parsed.value.model;
    // A checkpoint stores its MTP modules: counted with them.
    m.mtp = m.num_nextn_predict_layers != 0;
    const auto counted = count_params(m);
    if (!counted.ok()) {
        out["errors"] = detail::errors_json(counted.errors);
        detail::name_hf_config_fields(out);
        return detail::dump_json(out);
    }
    const model_param_parts& p = counted.value.parts;
    const std::pair<const char*, std::uint64_t> counts[] = {
        {"embedding", p.embedding.total}, {"attention", p.attention.total}, {"mlp", p.mlp.total},
        {"experts", p.experts.total},     {"shared_experts", p.shared_experts.total}, {"router", p.router.total},
        {"norms", p.norms.total},         {"output", p.output.total},  {"mtp", p.mtp.total},
        {"vision", p.vision.total},       {"quantization", 0},          {"buffers", 0},
        {"other", 0}};
    std::map<std::string, std::uint64_t> stored;
    std::map<std::string, std::pair<std::uint64_t, std::uint64_t>> by_dtype;
    std::uint64_t values = 0, bytes = 0;
    for (const stored_tensor& t : tensors) {
        stored[part_of(t.name, m.num_hidden_layers)] += t.values;
        by_dtype[t.dtype].first += t.values;
        by_dtype[t.dtype].second += t.bytes;
        values += t.values;
        bytes += t.bytes;
    }
    ordered_json dtypes = ordered_json::object();
    for (const auto& [dtype, vb] : by_dtype) dtypes[dtype] = ordered_json{{"values", vb.first}, {"bytes", vb.second}};
    out["model_type"] = m.model_type;
    out["params"] = counted.value.total;
    out["stored"] = ordered_json{{"values", values}, {"bytes", bytes}, {"tensors", tensors.size()}, {"by_dtype", dtypes}};
    ordered_json parts = ordered_json::array();
    std::uint64_t unexplained = 0;
    for (const auto& [part, mine] : counts) {
        const std::uint64_t theirs = stored.count(part) != 0 ? stored.at(part) : 0;
        if (mine == 0 && theirs == 0) continue;
        const std::string name = part;
        std::string note;
        if (name == "output" && m.tie_word_embeddings && mine == 0 && theirs == p.embedding.total)
            note = "lm_head stored although tie_word_embeddings is true: the tied copy, counted once by memplan";
        else if (name == "mtp" && theirs > mine && m.mtp)
            note = "the MTP modules' own copies of the embedding and output head are stored beside them "
                   "(memplan counts the main model's once)";
        else if (name == "quantization")
            note = "scales and packing metadata of the quantized checkpoint, not parameters";
        else if (name == "buffers")
            note = "buffers stored with the weights (rotary inv_freq), not parameters";
        const bool explained = !note.empty() && (name != "mtp" || (theirs - mine) % p.embedding.total == 0);
        if (mine != theirs && !explained) unexplained += mine > theirs ? mine - theirs : theirs - mine;
        ordered_json row{{"part", name}, {"memplan", mine}, {"stored", theirs}};
        row["difference"] = theirs >= mine ? theirs - mine : mine - theirs;
        row["larger"] = theirs == mine ? "neither" : theirs > mine ? "stored" : "memplan";
        if (!note.empty()) row["note"] = note;
        parts.push_back(row);
    }
    out["parts"] = parts;
    out["unexplained"] = unexplained;
    out["errors"] = ordered_json::array();
    return detail::dump_json(out);
}

}  // namespace memplan
