// The day-one path (memplan/report/json.hpp day_one_json): a config.json that none of memplan's families
// counts — a model_type it does not know, or keys its family's reader refuses — estimated from the bytes
// its checkpoint stores (exact, from the safetensors headers) and the sizes its config declares, every
// assumption named.
#include <algorithm>
#include <map>
#include <string>
#include <vector>

#include "io/json_text.hpp"
#include "memplan/io/json.hpp"
#include "memplan/model/arch.hpp"
#include "memplan/model/families.hpp"
#include "memplan/report/json.hpp"
#include "base/checks.hpp"
#include "report/json.hpp"

namespace memplan {

namespace {
using detail::ordered_json;

/// The first of `keys` in `o` that holds a whole number of at least 1 (4096.0 too); its key in `found`.
/// 0 when none does. Sizes above 2^40 are no model's and read as absent (the caller names what is missing).
std::uint64_t whole(const ordered_json& o, std::initializer_list<const char*> keys, std::string* found = nullptr) {
    for (const char* k : keys) {
        const auto it = o.find(k);
        if (it == o.end() || !it->is_number() || it->is_boolean()) continue;
        const double v = it->get<double>();
        if (!(v >= 1 && v <= 1099511627776.0) || v != static_cast<double>(static_cast<std::uint64_t>(v))) continue;
        if (found != nullptr) *found = k;
        return static_cast<std::uint64_t>(v);
    }
    return 0;
}

/// Stored integer dtypes that pack several values per element (AWQ/GPTQ int32, NVFP4/MXFP4 uint8, NF4 uint8).
bool packed_dtype(const std::string& dtype) {
    return dtype == "I32" || dtype == "U32" || dtype == "U8" || dtype == "I8" || dtype == "U16" || dtype == "I16";
}

std::string text(std::uint64_t v) { return detail::to_decimal(v); }

/// The object that holds the language model's sizes: text_config (multimodal), language_config or llm_config
/// when present, else the config itself.
const ordered_json& text_part(const ordered_json& config, std::string& where) {
    for (const char* k : {"text_config", "language_config", "llm_config"}) {
        const auto it = config.find(k);
        if (it != config.end() && it->is_object()) {
            where = std::string(k) + ".";
            return *it;
        }
    }
    return config;
}

}  // namespace

std::string day_one_json(const std::string& hf_config_text, const std::vector<stored_tensor>& tensors) {
    ordered_json out;
    out["model"] = nullptr;
    out["stored"] = nullptr;
    out["assumptions"] = ordered_json::array();
    diagnostics errors;
    const ordered_json config = detail::parse_document(hf_config_text, "hf_config", errors, /*python_tokens=*/true);
    const auto fail = [&out](const diagnostics& e) {
        out["errors"] = detail::errors_json(e);
        return detail::dump_json(out);
    };
    if (!errors.empty()) return fail(errors);
    // Only for what the families refuse: a config they read is counted exactly, never approximated.
    const auto counted = parse_config(R"({"mode": "infer"})", hf_config_text);
    if (counted.ok())
        return fail({{"hf_config", "is read by memplan's families (model_type " +
                                       detail::echoed_name(counted.value.model.model_type) +
                                       "): its count is exact, the day-one path is for configs they refuse"}});
    if (tensors.empty())
        return fail({{"hf_model", "has no stored tensors: the day-one estimate takes the weights from the checkpoint's "
                                  "safetensors headers (a model folder, the Hugging Face cache or the Hub)"}});

    std::string where;
    const ordered_json& t = text_part(config, where);
    std::string model_type;
    if (const auto it = config.find("model_type"); it != config.end() && it->is_string()) model_type = it->get<std::string>();
    std::vector<std::string> notes;
    const diagnostics& refused = counted.errors;
    std::string refused_field = refused.front().field, refused_message = refused.front().message;
    if (const std::size_t list = refused_message.find(" (known model_type"); list != std::string::npos)
        refused_message.erase(list);  // the list of every family: long, and not what this note is about
    if (refused_field.rfind("model.", 0) == 0) refused_field = "hf_config." + refused_field.substr(6);
    notes.push_back("day-one estimate: model_type " + detail::echoed_name(model_type) +
                    " is not counted by memplan's families (" + refused_field + " " + refused_message +
                    (refused.size() > 1 ? "; " + text(refused.size() - 1) + " more" : std::string()) +
                    "): the weights are the checkpoint's stored bytes, the rest follows the sizes its config declares");

    // The sizes every estimate needs; without them nothing can be said.
    model_config m = family_defaults("");
    std::string key;
    m.num_hidden_layers = whole(t, {"num_hidden_layers", "n_layer", "num_layers", "n_layers"});
    m.hidden_size = whole(t, {"hidden_size", "d_model", "n_embd", "dim"});
    m.num_attention_heads = whole(t, {"num_attention_heads", "n_head", "num_heads", "n_heads"});
    for (const auto& [value, name] : {std::pair<std::uint64_t, const char*>{m.num_hidden_layers, "num_hidden_layers"},
                                      {m.hidden_size, "hidden_size"},
                                      {m.num_attention_heads, "num_attention_heads"}})
        if (value == 0)
            errors.push_back({"hf_config." + where + name, "is required by the day-one estimate (a whole number ≥ 1, "
                                                           "or one of its aliases): without it neither the KV cache nor the "
                                                           "activations can be sized"});
    if (!errors.empty()) return fail(errors);

    // Attention: KV heads and head width as declared, MLA when the config gives its latent.
    m.num_key_value_heads = whole(t, {"num_key_value_heads", "num_kv_heads", "n_head_kv", "n_kv_heads",
                                      "multi_query_group_num", "num_query_groups"}, &key);
    if (m.num_key_value_heads == 0) {
        m.num_key_value_heads = m.num_attention_heads;
        notes.push_back("no num_key_value_heads: every query head caches its own K and V (multi-head attention), an "
                        "upper bound");
    }
    m.head_dim = whole(t, {"head_dim", "kv_channels", "attention_head_dim", "head_size"});
    if (m.head_dim == 0) {
        m.head_dim = std::max<std::uint64_t>(1, m.hidden_size / m.num_attention_heads);
        notes.push_back("no head_dim: hidden_size / num_attention_heads = " + text(m.head_dim));
    }
    const std::uint64_t kv_lora = whole(t, {"kv_lora_rank"}), rope = whole(t, {"qk_rope_head_dim"});
    const std::uint64_t nope = whole(t, {"qk_nope_head_dim"}), v_dim = whole(t, {"v_head_dim"});
    if (kv_lora != 0 && rope != 0 && nope != 0 && v_dim != 0) {
        // Multi-head latent attention: one latent of kv_lora_rank + qk_rope_head_dim per token (DeepSeek-V2 §2.1.2).
        m.kv_lora_rank = kv_lora;
        m.qk_rope_head_dim = rope;
        m.qk_nope_head_dim = nope;
        m.v_head_dim = v_dim;
        m.q_lora_rank = whole(t, {"q_lora_rank"});
        m.head_dim = 0;
        notes.push_back("kv_lora_rank " + text(kv_lora) + " and qk_rope_head_dim " + text(rope) +
                        ": every attention layer caches one MLA latent of " + text(kv_lora + rope) + " values per token");
    } else if (kv_lora != 0) {
        notes.push_back("kv_lora_rank without qk_rope_head_dim, qk_nope_head_dim and v_head_dim: cached as K and V of "
                        "num_key_value_heads × head_dim, an upper bound");
    }

    // Layer kinds: full, sliding and chunked as declared; any other kind is cached as full attention.
    const std::uint64_t window = whole(t, {"sliding_window", "sliding_window_size", "window_size", "attention_window_size"});
    const std::uint64_t chunk = whole(t, {"attention_chunk_size"});
    if (const auto lt = t.find("layer_types"); lt != t.end() && lt->is_array()) {
        std::map<std::string, std::uint64_t> unknown;
        std::vector<attention_kind> kinds;
        bool any_other = false;
        for (const auto& e : *lt) {
            const std::string s = e.is_string() ? e.get<std::string>() : e.dump();
            if (s == "sliding_attention" || s == "sliding" || s == "local" || s == "local_attention" || s == "swa") {
                if (window != 0) {
                    kinds.push_back(attention_kind::sliding);
                    any_other = true;
                    continue;
                }
            } else if (s == "chunked_attention" && chunk != 0) {
                kinds.push_back(attention_kind::chunked);
                any_other = true;
                continue;
            } else if (s == "full_attention" || s == "attention" || s == "global" || s == "full" || s == "global_attention") {
                kinds.push_back(m.kv_lora_rank != 0 ? attention_kind::mla : attention_kind::full);
                continue;
            }
            ++unknown[detail::echoed_name(s)];
            kinds.push_back(m.kv_lora_rank != 0 ? attention_kind::mla : attention_kind::full);
        }
        if (kinds.size() != m.num_hidden_layers) {
            notes.push_back("layer_types lists " + text(kinds.size()) + " layers for " + text(m.num_hidden_layers) +
                            ": not read, every layer cached as full attention (an upper bound)");
        } else {
            if (any_other) {
                m.layer_attention = kinds;
                m.sliding_window = window;
                m.attention_chunk_size = chunk;
            }
            for (const auto& [kind, n] : unknown)
                notes.push_back("layer_types " + kind + " (" + text(n) + " layers) is a kind memplan does not model: "
                                "cached as full attention, an upper bound (a linear-attention or state layer holds less)");
        }
    } else if (window != 0) {
        notes.push_back("sliding_window " + text(window) + " without layer_types: which layers use it is not declared, so "
                        "every layer is cached as full attention (an upper bound)");
    }

    // Sizes of the prefill workspace and of training activations.
    m.intermediate_size = whole(t, {"intermediate_size", "ffn_hidden_size", "n_inner", "ffn_dim"});
    if (m.intermediate_size == 0) notes.push_back("no intermediate_size: the MLP taken 4 × hidden_size wide");
    const std::uint64_t experts = whole(t, {"num_local_experts", "num_experts", "n_routed_experts", "moe_num_experts"});
    const std::uint64_t top_k = whole(t, {"num_experts_per_tok", "moe_topk", "num_experts_per_token", "top_k", "moe_k"});
    const std::uint64_t expert_width = whole(t, {"moe_intermediate_size", "expert_intermediate_size"});
    if (experts != 0 && top_k != 0 && top_k <= experts && expert_width != 0) {
        m.num_experts = experts;
        m.experts_per_token = top_k;
        m.moe_intermediate_size = expert_width;
        m.shared_expert_intermediate_size = whole(t, {"n_shared_experts", "num_shared_experts"}) * expert_width;
        notes.push_back("every layer's MLP is taken as its MoE (" + text(experts) + " experts, " + text(top_k) +
                        " per token) for the prefill workspace and activations");
    } else if (experts != 0) {
        notes.push_back("experts declared without a complete top-k and expert width: the MLP is taken dense for the "
                        "prefill workspace and activations");
    }
    m.vocab_size = whole(t, {"vocab_size", "padded_vocab_size", "n_vocab"});
    if (m.vocab_size == 0) m.vocab_size = whole(config, {"vocab_size", "padded_vocab_size"});
    if (m.vocab_size == 0) notes.push_back("no vocab_size: no logits are counted");
    m.max_position_embeddings = whole(t, {"max_position_embeddings", "n_positions", "max_sequence_length", "seq_length"});
    m.norm = norm_kind::rmsnorm;
    m.mlp = mlp_kind::gated;
    m.qkv_bias = m.attention_out_bias = m.mlp_bias = m.dropout = false;
    notes.push_back("activations are those of a decoder block with RMSNorm, a gated MLP and no biases or dropout "
                    "(most 2025–2026 models); training counts every stored value as a trainable dense weight");

    // The checkpoint as stored: bytes exact; parameters are the stored values of its weights.
    std::map<std::string, std::pair<std::uint64_t, std::uint64_t>> by_dtype;
    std::uint64_t values = 0, bytes = 0, params = 0, packed_values = 0, metadata = 0, tied_head_bytes = 0;
    // A tied output layer stored anyway is not loaded: vLLM's models skip "lm_head." when tie_word_embeddings
    // (vllm/model_executor/models/llama.py LlamaForCausalLM.load_weights, AutoWeightsLoader skip_prefixes).
    bool tied = false;
    for (const ordered_json* o : {&t, &config})
        if (const auto it = o->find("tie_word_embeddings"); it != o->end() && it->is_boolean()) tied = tied || it->get<bool>();
    constexpr std::uint64_t limit = std::uint64_t{1} << 56;  // no checkpoint comes near; hostile headers must not wrap
    for (const stored_tensor& s : tensors) {
        if (s.values > limit || s.bytes > limit || values > limit || bytes > limit)
            return fail({{"hf_model", "stores more than 2^56 values or bytes: no checkpoint does"}});
        values += s.values;
        by_dtype[s.dtype].first += s.values;
        by_dtype[s.dtype].second += s.bytes;
        if (tied && (s.name == "lm_head.weight" || detail::ends_with(s.name, ".lm_head.weight"))) {
            tied_head_bytes += s.bytes;
            continue;
        }
        bytes += s.bytes;
        // Scales, zero points, indices and tables of a quantized format, and buffers, are no parameters.
        if (const std::string part = detail::part_of(s.name, m.num_hidden_layers);
            part == "quantization" || part == "buffers") {
            ++metadata;
            continue;
        }
        params += s.values;
        if (packed_dtype(s.dtype)) packed_values += s.values;
    }
    if (params == 0 || bytes == 0 || bytes > max_exact_integer || params > max_param_count)
        return fail({{"hf_model", "stores " + text(params) + " weight values in " + text(bytes) +
                                      " bytes: not a checkpoint memplan can size"}});
    m.params = params;
    m.stored_weight_bytes = bytes;
    notes.push_back("the weights are the " + text(bytes) + " bytes of the stored tensors, every one loaded (MTP modules "
                    "and vision towers included), in their stored dtypes" +
                    (tied_head_bytes != 0 ? "; the stored lm_head.weight (" + text(tied_head_bytes) +
                                                " B) is left out, as tie_word_embeddings makes engines skip it"
                                          : std::string()));
    if (metadata != 0 || packed_values != 0)
        notes.push_back("parameters: the " + text(params) + " stored values of the weights (" + text(metadata) +
                        " scale, zero-point and index tensors left out" +
                        (packed_values != 0 ? "; " + text(packed_values) + " values of packed integer dtypes counted as "
                                                                             "stored, not unpacked"
                                            : std::string()) +
                        ")");

    // What cannot be estimated even so: the declared sizes must make a block memplan can build.
    // What cannot be estimated even so: sizes outside the schema's ranges (read back as memplan's own model keys,
    // as every consumer of the section reads them) or a block memplan cannot build.
    const ordered_json section = detail::model_keys_json(m);
    diagnostics shape = parse_config(detail::dump_json(ordered_json{{"mode", "infer"}, {"model", section}})).errors;
    if (shape.empty()) shape = validate_architecture(m);
    if (!shape.empty()) {
        diagnostics named;
        for (const auto& e : shape) named.push_back({"hf_config." + where + e.field.substr(e.field.find('.') + 1), e.message});
        return fail(named);
    }
    ordered_json stored;
    stored["tensors"] = tensors.size();
    stored["values"] = values;
    stored["bytes"] = bytes + tied_head_bytes;
    ordered_json dtypes = ordered_json::object();
    for (const auto& [dtype, vb] : by_dtype) dtypes[dtype] = ordered_json{{"values", vb.first}, {"bytes", vb.second}};
    stored["by_dtype"] = dtypes;
    out["model"] = section;
    out["stored"] = stored;
    out["assumptions"] = notes;
    out["errors"] = ordered_json::array();
    return detail::dump_json(out);
}

std::string day_one_headers_json(const std::string& hf_config_text, const std::string& headers_json) {
    std::vector<stored_tensor> tensors;
    const diagnostics errors = detail::stored_tensors_of_headers(headers_json, tensors);
    if (!errors.empty()) {
        ordered_json out{{"model", nullptr}, {"stored", nullptr}, {"assumptions", ordered_json::array()}};
        out["errors"] = detail::errors_json(errors);
        return detail::dump_json(out);
    }
    return day_one_json(hf_config_text, tensors);
}

}  // namespace memplan
