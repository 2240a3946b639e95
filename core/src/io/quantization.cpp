// The quantization_config of a Hugging Face config.json (fp8, mxfp4, bitsandbytes, awq, gptq,
// compressed-tensors, NVIDIA ModelOpt), read into the model's checkpoint format for the `model`
// section read in model_json.cpp.
#include "io/object_reader.hpp"

#include <algorithm>
#include <cstdint>
#include <string>

#include "base/checks.hpp"
#include "memplan/model/arch.hpp"
#include "memplan/model/families.hpp"

namespace memplan::detail {

namespace {
using json = nlohmann::ordered_json;

/// NVIDIA ModelOpt's quantization_config (quant_method "modelopt": quant_algo NVFP4 or FP8, the modules left
/// unquantized in `ignore`, as Model Optimizer's Hugging Face export writes them; vLLM reads the same keys in
/// model_executor/layers/quantization/modelopt.py). memplan packs every linear layer, the routed experts only
/// (model.quant_experts_only) or every MLP with the attention unquantized (model.quant_mixer_kept), so the ignore
/// list must say one of the three: each pattern names lm_head, a vision tower, the MTP layers, a router, or per
/// layer the attention, the shared experts or the whole layer; every other pattern, and a list that matches
/// none of the three, is refused naming quantization_config.ignore.
void read_modelopt(object_reader& r, const json& q, const std::string& field, model_config& m) {
    const auto algo_it = q.find("quant_algo");
    const std::string algo = algo_it != q.end() && algo_it->is_string() ? algo_it->get<std::string>() : "";
    if (algo == "NVFP4") {
        m.checkpoint = checkpoint_format::nvfp4;
        m.quant_block = 16;
        if (const auto groups = q.find("config_groups"); groups != q.end() && groups->is_object())
            for (const auto& g : groups->items())
                if (const auto w = g.value().find("weights"); w != g.value().end() && w->is_object())
                    if (const auto gs = w->find("group_size"); gs != w->end() && gs->is_number_unsigned() &&
                                                              gs->get<std::uint64_t>() != 16)
                        return r.fail(field + ".config_groups", "NVFP4 weights must use groups of 16 (found " +
                                                                    gs->dump() + ")");
    } else if (algo == "FP8") {
        m.checkpoint = checkpoint_format::fp8_tensor;
    } else {
        return r.fail(field + ".quant_algo", "must be \"NVFP4\" or \"FP8\" for quant_method modelopt (" +
                                                 (algo.empty() ? std::string("none given") : "'" + algo + "'") +
                                                 " is not supported yet)");
    }
    const auto ignore_it = q.find("ignore");
    if (ignore_it == q.end() || ignore_it->is_null()) return;  // every linear layer packed
    const std::string where = field + ".ignore";
    if (!ignore_it->is_array()) return r.fail(where, "must be a list of module name patterns");
    const std::uint64_t L = m.num_hidden_layers;
    std::vector<char> whole(L, 0), attention(L, 0), shared(L, 0);
    bool any_layer = false;
    // What a pattern keeps in bf16 in each layer it reaches: the layer, its mixer, its shared experts or its
    // router; anything else is no part memplan can keep apart.
    enum class part { layer, mixer, shared_experts, router, other };
    const auto part_of = [](const std::string& rest) {
        const auto has = [&rest](const char* x) { return rest.find(x) != std::string::npos; };
        if (rest == "*") return part::layer;
        if (has("shared_expert")) return part::shared_experts;  // shared_expert, shared_experts, shared_expert_gate
        if (has("self_attn") || has("linear_attn")) return part::mixer;
        if (has("experts") || (has("mlp.") && !has(".gate"))) return part::other;
        if (has("gate")) return part::router;  // mlp.gate, block_sparse_moe.gate
        return part::other;
    };
    const auto mark = [&](std::uint64_t i, part k) {
        any_layer = true;
        if (k == part::layer) whole[i] = 1;
        else if (k == part::mixer) attention[i] = 1;
        else if (k == part::shared_experts) shared[i] = 1;
    };
    for (const auto& e : *ignore_it) {
        if (!e.is_string()) return r.fail(where, "must be a list of module name patterns");
        const std::string p = e.get<std::string>();
        const auto has = [&p](const char* x) { return p.find(x) != std::string::npos; };
        // lm_head (memplan keeps it in bf16), the vision tower and its projector (counted in bf16), the MTP layers.
        if (has("lm_head") || has("visual") || has("vision") || has("mm_projector") || has("mtp")) continue;
        const auto layers = p.find("layers.");
        if (layers == std::string::npos) {
            // A pattern over every layer (Qwen3.5-397B-A17B-NVFP4's "*.mlp.shared_expert.*").
            const part k = p.rfind('*', 0) == 0 ? part_of(p.substr(1)) : part::other;
            if (k == part::other || k == part::layer)
                return r.fail(where, "names \"" + p + "\", a module memplan cannot keep in bf16 apart (lm_head, the "
                                     "vision tower, the MTP layers and per layer the attention, the shared experts, "
                                     "the router or the whole layer are)");
            for (std::uint64_t i = 0; i < L; ++i) mark(i, k);
            continue;
        }
        const std::size_t at = layers + 7;
        std::size_t end = at;
        while (end < p.size() && p[end] >= '0' && p[end] <= '9') ++end;
        if (end == at || end >= p.size())
            return r.fail(where, "names \"" + p + "\", which no layer index begins");
        const std::string digits = p.substr(at, end - at);
        if (p[end] == '*' && end + 1 == p.size()) {
            // fnmatch's "layers.7*": every layer whose index begins with those digits, whole.
            for (std::uint64_t i = 0; i < L; ++i)
                if (std::to_string(i).rfind(digits, 0) == 0) mark(i, part::layer);
            continue;
        }
        if (p[end] != '.') return r.fail(where, "names \"" + p + "\", which no layer index ends");
        const std::uint64_t i = digits.size() > 9 ? L : std::stoull(digits);
        if (i >= L) continue;  // the MTP layer that follows the decoder layers (GLM-5.1-NVFP4's layer 78)
        const part k = part_of(p.substr(end + 1));
        if (k == part::other)
            return r.fail(where, "names \"" + p + "\", a module memplan cannot keep in bf16 apart (per layer the "
                                 "attention, the shared experts, the router or the whole layer are)");
        mark(i, k);
    }
    if (!any_layer) return;
    const auto mlps = resolved_layer_mlp(m);
    const auto kinds = resolved_layer_attention(m);
    const auto mixer_kept = [&](std::uint64_t i) {
        return !(i < kinds.size() && kinds[i] != attention_kind::none) || attention[i] != 0;
    };
    // The routed experts only: every layer's other linear layers unquantized (GLM-5.1-NVFP4, Qwen3.5-NVFP4).
    bool experts_only = true;
    for (std::uint64_t i = 0; i < L && experts_only; ++i)
        experts_only = whole[i] || (i < mlps.size() && mlps[i] == layer_mlp_kind::moe && mixer_kept(i) &&
                                    (m.shared_expert_intermediate_size == 0 || shared[i]));
    if (experts_only) {
        m.quant_experts_only = true;
        return;
    }
    // Every MLP packed, the mixers unquantized (Kimi-K2.5-NVFP4, Gemma-4-31B-IT-NVFP4).
    for (std::uint64_t i = 0; i < L; ++i)
        if (whole[i] || shared[i] || !mixer_kept(i))
            return r.fail(where, "keeps in bf16 a set of modules memplan cannot represent (layer " + std::to_string(i) +
                                     "): it packs every linear layer, the routed experts only, or every MLP with the "
                                     "attention unquantized");
    m.quant_mixer_kept = true;
}

/// A compressed-tensors quantization_config (Kimi K2.5): one group of symmetric int4 weights in groups of
/// group_size, packed eight to an int32 (format pack-quantized; compressed-tensors pack_quantized.py), with an
/// ignore list that keeps every module but the routed experts in bf16. Anything else is refused, naming the key.
void read_compressed_tensors(object_reader& r, const json& q, const std::string& field, model_config& m) {
    const auto word = [](const json& o, const char* key) {
        const auto it = o.find(key);
        return it != o.end() && it->is_string() ? it->get<std::string>() : std::string();
    };
    const auto empty = [](const json& o, const char* key) {
        const auto it = o.find(key);
        return it == o.end() || it->is_null();
    };
    if (const std::string format = word(q, "format"); format != "pack-quantized")
        return r.fail(field + ".format", "'" + format + "' is not supported yet (compressed-tensors pack-quantized int4 is)");
    if (const auto status = q.find("quantization_status"); status != q.end() && !status->is_null() &&
                                                           !(status->is_string() && status->get<std::string>() == "compressed"))
        return r.fail(field + ".quantization_status", "must be \"compressed\" (the packed weights of a released checkpoint)");
    for (const char* key : {"kv_cache_scheme", "sparsity_config", "transform_config"})
        if (!empty(q, key)) return r.fail(field + "." + key, "is not supported yet (weight-only int4 is)");
    const auto groups = q.find("config_groups");
    if (groups == q.end() || !groups->is_object() || groups->size() != 1)
        return r.fail(field + ".config_groups", "must hold one group (several schemes in one checkpoint are not supported yet)");
    const std::string where = field + ".config_groups." + groups->begin().key();
    const json& group = groups->begin().value();
    if (!group.is_object()) return r.fail(where, "must be an object");
    if (const std::string format = word(group, "format"); group.contains("format") && !group["format"].is_null() &&
                                                          format != "pack-quantized")
        return r.fail(where + ".format", "'" + format + "' is not supported yet (pack-quantized int4 is)");
    if (group.value("targets", json()) != json::array({"Linear"}))
        return r.fail(where + ".targets", "must be [\"Linear\"] (other targets are not supported yet)");
    for (const char* key : {"input_activations", "output_activations"})
        if (!empty(group, key)) return r.fail(where + "." + key, "is not supported yet (weight-only int4 is: null)");
    const auto w = group.find("weights");
    if (w == group.end() || !w->is_object()) return r.fail(where + ".weights", "must be an object");
    const std::string wf = where + ".weights.";
    if (w->value("num_bits", json()) != 4) return r.fail(wf + "num_bits", "must be 4 (other widths are not supported yet)");
    if (word(*w, "type") != "int") return r.fail(wf + "type", "must be \"int\" (float formats are not supported yet)");
    if (word(*w, "strategy") != "group") return r.fail(wf + "strategy", "must be \"group\" (other strategies are not supported yet)");
    if (w->value("symmetric", json()) != true)
        return r.fail(wf + "symmetric", "must be true (zero points of asymmetric groups are not supported yet)");
    for (const char* key : {"actorder", "block_structure"})
        if (!empty(*w, key)) return r.fail(wf + key, "must be null (not supported yet)");
    if (const auto d = w->find("dynamic"); d != w->end() && !d->is_null() && *d != false)
        return r.fail(wf + "dynamic", "must be false (stored scales)");
    const auto gs = w->find("group_size");
    if (gs == w->end() || !gs->is_number_unsigned() || gs->get<std::uint64_t>() == 0 || gs->get<std::uint64_t>() > 1048576)
        return r.fail(wf + "group_size", detail::integer_range_message(1, 1048576));
    // The ignore list: memplan keeps the modules these patterns name in bf16 and packs the routed experts
    // (quant_experts_only); the four kinds below must all be ignored, and nothing else may be named.
    const auto ignore = q.find("ignore");
    if (ignore == q.end() || !ignore->is_array())
        return r.fail(field + ".ignore", "must list the modules kept in bf16 (attention, shared experts, dense MLPs, lm_head)");
    static const char* const needed[][2] = {{"lm_head", "re:.*lm_head.*"},
                                            {"re:.*self_attn.*", nullptr},
                                            {"re:.*shared_experts.*", nullptr},
                                            {"re:.*mlp\\.(gate|up|gate_up|down)_proj.*", nullptr}};
    static const char* const towers[] = {"re:.*vision_tower.*", "re:.*mm_projector.*", "re:vision_tower.*", "re:mm_projector.*"};
    bool found[4] = {false, false, false, false};
    for (const auto& e : *ignore) {
        const std::string name = e.is_string() ? e.get<std::string>() : "";
        bool known = std::any_of(std::begin(towers), std::end(towers), [&name](const char* t) { return name == t; });
        for (int i = 0; i < 4; ++i)
            for (const char* pattern : needed[i])
                if (pattern != nullptr && name == pattern) found[i] = known = true;
        if (!known)
            return r.fail(field + ".ignore", "names " + e.dump() + ", which memplan does not model (it keeps lm_head, "
                                             "self_attn, shared_experts, the dense MLPs and the vision tower in bf16 "
                                             "and packs the routed experts)");
    }
    for (int i = 0; i < 4; ++i)
        if (!found[i])
            return r.fail(field + ".ignore", std::string("must list ") + needed[i][0] +
                                             " (memplan models checkpoints whose routed experts alone are int4)");
    m.checkpoint = checkpoint_format::int4_group;
    m.quant_block = gs->get<std::uint64_t>();
    m.quant_g_idx = false;
    m.quant_symmetric = true;
    m.quant_experts_only = true;
}

}  // namespace

/// quantization_config of a released checkpoint.
void read_quantization(object_reader& r, model_config& m) {
    const json* q = r.find("quantization_config");
    if (q == nullptr) return;
    const std::string field = r.field("quantization_config");
    if (!q->is_object()) return r.fail(field, "must be an object");
    const auto method_it = q->find("quant_method");
    // ModelOpt's older exports name only their producer (Qwen3-32B-FP8-Static-PerTensor: producer modelopt 0.31).
    if (const auto producer = q->find("producer"); (method_it == q->end() || method_it->is_null()) &&
                                                  producer != q->end() && producer->is_object() &&
                                                  producer->value("name", std::string()) == "modelopt")
        return read_modelopt(r, *q, field, m);
    if (method_it == q->end() || !method_it->is_string())
        return r.fail(field + ".quant_method", "must be a string (fp8, mxfp4, bitsandbytes, awq, gptq, compressed-tensors, modelopt are supported)");
    const std::string method = method_it->get<std::string>();
    const auto flag = [&](const char* key) { return flag_in(r, *q, key, false, field + "." + key); };
    if (method == "fp8") {
        // DeepSeek-V3 / Qwen3 FP8: weight_block_size [128, 128] (transformers finegrained_fp8.py).
        const auto bs = q->find("weight_block_size");
        if (bs == q->end() || !bs->is_array() || bs->size() != 2 || !(*bs)[0].is_number_unsigned() ||
            (*bs)[0] != (*bs)[1] || (*bs)[0].get<std::uint64_t>() == 0)
            return r.fail(field + ".weight_block_size", "must be a square block such as [128, 128] (other FP8 layouts are not supported yet)");
        m.checkpoint = checkpoint_format::fp8_block;
        m.quant_block = (*bs)[0].get<std::uint64_t>();
        // modules_to_not_convert (GLM-5-FP8): memplan already keeps every module that is no packed matrix in bf16,
        // and eh_proj and the indexer's weights_proj too (params.cpp); a list naming any other module describes
        // another checkpoint and is refused, naming the module.
        if (const auto kept = q->find("modules_to_not_convert"); kept != q->end() && !kept->is_null()) {
            const std::string where = field + ".modules_to_not_convert";
            if (!kept->is_array()) return r.fail(where, "must be a list of module names");
            static const char* const unpacked[] = {
                "lm_head", "embed_tokens", "norm", "layernorm", "enorm", "hnorm", "k_norm", "k_norm.bias", "mlp.gate",
                "mlp.gate.e_score_correction_bias", "eh_proj", "indexers_proj", "indexer.weights_proj",
                // MiniMax-M2's router (block_sparse_moe.gate, no other module of it holds "gate": its experts are
                // w1/w2/w3) and its e_score_correction_bias.
                "gate", "e_score_correction_bias"};
            for (const auto& e : *kept) {
                const std::string name = e.is_string() ? e.get<std::string>() : "";
                const bool known = std::any_of(std::begin(unpacked), std::end(unpacked), [&name](const char* suffix) {
                    const std::string s = suffix;
                    return name.size() >= s.size() && name.compare(name.size() - s.size(), s.size(), s) == 0 &&
                           (name.size() == s.size() || name[name.size() - s.size() - 1] == '.' ||
                            name[name.size() - s.size() - 1] == '_');
                });
                if (!known)
                    return r.fail(where, "names " + e.dump() + ", which memplan counts as an fp8 matrix (embeddings, "
                                         "lm_head, norms, the router, eh_proj and the indexer's weights_proj are kept "
                                         "in bf16 already)");
            }
        }
    } else if (method == "mxfp4") {
        // transformers quantizer_mxfp4.py: only the MoE experts are MXFP4; gpt-oss lists attention,
        // router, embeddings and lm_head in modules_to_not_convert.
        const model_family* family = find_family(m.model_type);
        if (m.num_experts == 0 && (family == nullptr || !family->mxfp4_checkpoint))
            return r.fail(field, "mxfp4 is supported for MoE experts only (gpt-oss)");
        m.checkpoint = checkpoint_format::mxfp4;
        m.quant_experts_only = true;
    } else if (method == "bitsandbytes") {
        if (flag("load_in_4bit")) {
            m.checkpoint = checkpoint_format::nf4;
            m.quant_block = 64;  // bitsandbytes Linear4bit blocksize
            m.quant_double = flag("bnb_4bit_use_double_quant");
        } else if (flag("load_in_8bit")) {
            m.checkpoint = checkpoint_format::int8;
        } else {
            return r.fail(field, "bitsandbytes needs load_in_4bit or load_in_8bit");
        }
    } else if (method == "awq" || method == "gptq") {
        const std::uint64_t bits = q->contains("bits") && (*q)["bits"].is_number_unsigned() ? (*q)["bits"].get<std::uint64_t>()
                                   : q->contains("w_bit") && (*q)["w_bit"].is_number_unsigned() ? (*q)["w_bit"].get<std::uint64_t>() : 0;
        if (bits != 4) return r.fail(field + ".bits", "must be 4 (other widths are not supported yet)");
        std::uint64_t group = 0;
        for (const char* k : {"group_size", "q_group_size"})
            if (q->contains(k) && (*q)[k].is_number_integer() && (*q)[k].get<std::int64_t>() > 0) group = (*q)[k].get<std::uint64_t>();
        if (group == 0) return r.fail(field + ".group_size", "must be a positive group size (per-channel is not supported yet)");
        m.checkpoint = checkpoint_format::int4_group;
        m.quant_block = group;
        m.quant_g_idx = method == "gptq";
    } else if (method == "modelopt") {
        read_modelopt(r, *q, field, m);
    } else if (method == "compressed-tensors") {
        read_compressed_tensors(r, *q, field, m);
    } else {
        r.fail(field + ".quant_method", "'" + method + "' is not supported yet (fp8, mxfp4, bitsandbytes, awq, gptq, compressed-tensors, modelopt are)");
    }
}

}  // namespace memplan::detail
