// JSON schema v1 of memplan configurations and results (docs/schema.md), including Hugging Face
// config.json import for `model`.
#include "memplan/json.hpp"

#include <functional>
#include <set>

#include <nlohmann/json.hpp>

#include "checks.hpp"
#include "json_text.hpp"
#include "memplan/arch.hpp"
#include "memplan/presets.hpp"

namespace memplan {

namespace {
using json = nlohmann::json;
using ordered_json = nlohmann::ordered_json;
using detail::dump_json;
using detail::errors_json;

/// Reads one object level: each known key has a handler; unknown keys are errors unless the object
/// is a Hugging Face config (lenient), whose many unrelated keys are ignored and whose nulls read as absent.
class object_reader {
public:
    object_reader(const json& object, std::string path, diagnostics& errors, bool lenient = false)
        : object_(object), path_(std::move(path)), errors_(errors), lenient_(lenient) {}

    std::string field(const std::string& key) const { return path_.empty() ? key : path_ + "." + key; }

    /// The value of `key` when present and not null; marks the key as known.
    const json* find(const char* key) {
        known_.emplace(key);
        const auto it = object_.find(key);
        // Hugging Face configs write null for "not set"; memplan's own objects treat null as a wrong type.
        if (it == object_.end() || (lenient_ && it->is_null())) return nullptr;
        return &*it;
    }

    bool has(const char* key) { return find(key) != nullptr; }

    void integer(const char* key, std::uint64_t& out, std::uint64_t lo, std::uint64_t hi) {
        const json* v = find(key);
        if (v == nullptr) return;
        const std::string name = field(key);
        if (v->is_number_unsigned()) {
            const auto value = v->get<std::uint64_t>();
            if (value < lo || value > hi) return fail(name, detail::integer_range_message(lo, hi));
            out = value;
        } else if (v->is_number()) {
            // Negative integers and floats: accept only an integral value in range (7e9 is fine).
            out = detail::checked_integer(v->get<double>(), name, lo, hi, errors_);
        } else {
            fail(name, detail::integer_range_message(lo, hi));
        }
    }

    void signed_integer(const char* key, std::int64_t& out, std::int64_t lo, std::int64_t hi, const char* message) {
        const json* v = find(key);
        if (v == nullptr) return;
        if (v->is_number()) {
            const double value = v->get<double>();
            for (std::int64_t candidate = lo; candidate <= hi; ++candidate)
                if (value == static_cast<double>(candidate)) {
                    out = candidate;
                    return;
                }
        }
        fail(field(key), message);
    }

    void boolean(const char* key, bool& out) {
        const json* v = find(key);
        if (v == nullptr) return;
        if (!v->is_boolean()) return fail(field(key), "must be true or false");
        out = v->get<bool>();
    }

    /// A probability (dropout rates); false when absent, an error when not a number from 0 to 1.
    bool probability(const char* key, double& out) {
        const json* v = find(key);
        if (v == nullptr) return false;
        if (!v->is_number() || !(v->get<double>() >= 0 && v->get<double>() <= 1)) {
            fail(field(key), "must be a number from 0 to 1");
            return false;
        }
        out = v->get<double>();
        return true;
    }

    void text(const char* key, std::string& out) {
        const json* v = find(key);
        if (v == nullptr) return;
        if (!v->is_string()) return fail(field(key), "must be a string");
        out = v->get<std::string>();
    }

    template <class E>
    void name(const char* key, E& out, const char* allowed) {
        const json* v = find(key);
        if (v == nullptr) return;
        if (!v->is_string() || !parse_enum(v->get<std::string>(), out))
            fail(field(key), std::string("must be one of: ") + allowed);
    }

    /// A nested object; `read` is called only when the key is present and holds an object.
    void object(const char* key, const std::function<void(object_reader&)>& read) {
        const json* v = find(key);
        if (v == nullptr) return;
        if (!v->is_object()) return fail(field(key), "must be an object");
        object_reader inner(*v, field(key), errors_);
        read(inner);
        inner.finish();
    }

    /// Reports every key that no handler claimed (strict objects only).
    void finish() {
        if (lenient_) return;
        for (auto it = object_.begin(); it != object_.end(); ++it)
            if (known_.count(it.key()) == 0) fail(field(it.key()), "is not a known key");
    }

    void fail(const std::string& name, const std::string& message) { errors_.push_back({name, message}); }
    const json& raw() const { return object_; }
    diagnostics& errors() { return errors_; }

private:
    const json& object_;
    std::string path_;
    diagnostics& errors_;
    bool lenient_;
    std::set<std::string> known_;
};

constexpr std::uint64_t any_count = max_exact_integer;
constexpr const char* dtype_list = "fp32, bf16, fp16, fp8, int8, int4";

/// Structural defaults for a family; an unknown family is recognised by its keys (RMSNorm epsilon,
/// SiLU activation), as most recent decoder-only models are Llama-like.
model_config defaults_for(const json& object, const std::string& model_type) {
    if (model_type.empty() || is_known_family(model_type)) return family_defaults(model_type);
    model_config m = family_defaults("");
    m.model_type = model_type;
    if (object.contains("rms_norm_eps")) {
        m = family_defaults("llama");
        m.model_type = model_type;
    }
    const auto act = object.find("hidden_act");
    if (act != object.end() && act->is_string()) {
        const std::string a = act->get<std::string>();
        m.mlp = (a == "silu" || a == "swiglu" || a == "swish") ? mlp_kind::gated : m.mlp;
    }
    return m;
}

void read_model_object(object_reader& r, model_config& m, int depth);

/// Hugging Face config.json keys (lenient), and memplan's own structural keys.
void read_model_keys(object_reader& r, model_config& m) {
    r.integer("params", m.params, 0, max_param_count);
    // Sizes, with GPT-2's names as aliases (n_layer, n_embd, n_head, n_inner).
    for (const char* k : {"num_hidden_layers", "n_layer", "num_layers"}) r.integer(k, m.num_hidden_layers, 1, 65536);
    for (const char* k : {"hidden_size", "n_embd", "d_model"}) r.integer(k, m.hidden_size, 1, 1048576);
    for (const char* k : {"num_attention_heads", "n_head"}) r.integer(k, m.num_attention_heads, 1, 65536);
    r.integer("num_key_value_heads", m.num_key_value_heads, 1, 65536);
    r.integer("head_dim", m.head_dim, 1, 65536);
    for (const char* k : {"intermediate_size", "n_inner", "ffn_hidden_size"}) r.integer(k, m.intermediate_size, 1, 1048576);
    r.integer("vocab_size", m.vocab_size, 1, 16777216);
    r.boolean("tie_word_embeddings", m.tie_word_embeddings);
    r.integer("learned_positions", m.learned_positions, 0, 16777216);
    if (m.model_type == "gpt2") r.integer("n_positions", m.learned_positions, 0, 16777216);
    r.name("norm", m.norm, "layernorm, rmsnorm");
    r.name("mlp", m.mlp, "plain, gated");
    r.integer("norms_per_layer", m.norms_per_layer, 0, 16);
    bool attention_bias = m.qkv_bias;
    if (r.has("attention_bias")) {  // Llama-family key: biases on q, k, v and o
        r.boolean("attention_bias", attention_bias);
        m.qkv_bias = m.attention_out_bias = attention_bias;
    }
    r.boolean("qkv_bias", m.qkv_bias);
    r.boolean("attention_out_bias", m.attention_out_bias);
    r.boolean("mlp_bias", m.mlp_bias);
    r.boolean("dropout", m.dropout);
    // Dropout probabilities of HF configs: any positive one means dropout layers are active in training.
    bool any_probability = false, any_positive = false;
    for (const char* k : {"attention_dropout", "hidden_dropout", "resid_pdrop", "attn_pdrop", "embd_pdrop",
                          "hidden_dropout_prob", "attention_probs_dropout_prob"}) {
        double p = 0;
        if (r.probability(k, p)) {
            any_probability = true;
            any_positive = any_positive || p > 0;
        }
    }
    if (any_probability && !r.raw().contains("dropout")) m.dropout = any_positive;
    // Mixture of experts: Mixtral's num_local_experts, Qwen2-MoE's num_experts.
    for (const char* k : {"num_local_experts", "num_experts"}) r.integer(k, m.num_experts, 0, 65536);
    r.integer("num_experts_per_tok", m.experts_per_token, 0, 65536);
    r.integer("moe_intermediate_size", m.moe_intermediate_size, 1, 1048576);
    r.integer("shared_expert_intermediate_size", m.shared_expert_intermediate_size, 0, 1048576);
    // Sliding-window attention.
    r.integer("sliding_window", m.sliding_window, 0, 16777216);
    r.integer("sliding_window_layers", m.sliding_window_layers, 0, 65536);
    bool use_window = true;
    if (r.has("use_sliding_window")) r.boolean("use_sliding_window", use_window);
    if (!use_window) m.sliding_window = 0;  // Qwen2: the window is configured but switched off
    std::uint64_t max_window_layers = 0;
    if (use_window && r.has("max_window_layers") && m.sliding_window != 0) {
        // Qwen2: layers from max_window_layers on use the window (modeling_qwen2.py).
        r.integer("max_window_layers", max_window_layers, 0, 65536);
        if (max_window_layers < m.num_hidden_layers) m.sliding_window_layers = m.num_hidden_layers - max_window_layers;
    }
    if (m.model_type == "gemma2" && m.sliding_window != 0 && m.sliding_window_layers == 0)
        m.sliding_window_layers = (m.num_hidden_layers + 1) / 2;  // even layers slide (modeling_gemma2.py)
    if (const json* types = r.find("layer_types"); types != nullptr && types->is_array()) {
        std::uint64_t sliding = 0;  // newer configs list each layer's attention kind
        for (const auto& t : *types)
            if (t.is_string() && t.get<std::string>() == "sliding_attention") ++sliding;
        if (m.sliding_window != 0) m.sliding_window_layers = sliding;
    }
}

void read_model_object(object_reader& r, model_config& m, int depth) {
    const json& obj = r.raw();
    // A preset: the stored config of a published model, which the remaining keys may override.
    if (const json* preset = r.find("preset"); preset != nullptr) {
        if (!preset->is_string() || find_preset(preset->get<std::string>()) == nullptr) {
            r.fail(r.field("preset"), "must be the id of a model preset (memplan presets)");
            return;
        }
        const json stored = json::parse(find_preset(preset->get<std::string>())->config_json, nullptr, false);
        object_reader inner(stored, r.field("preset"), r.errors(), /*lenient=*/true);
        read_model_object(inner, m, depth + 1);
    }
    // Multimodal configs keep the language model under text_config.
    if (const json* text = r.find("text_config"); text != nullptr && text->is_object() && depth < 2 &&
                                                   !obj.contains("num_hidden_layers")) {
        object_reader inner(*text, r.field("text_config"), r.errors(), /*lenient=*/true);
        read_model_object(inner, m, depth + 1);
        return;
    }
    std::string model_type = m.model_type;
    r.text("model_type", model_type);
    if (model_type != m.model_type || !r.has("preset")) {
        const model_config sizes = m;
        m = defaults_for(obj, model_type);
        // keep sizes read from a preset
        m.params = sizes.params;
        m.num_hidden_layers = sizes.num_hidden_layers;
        m.hidden_size = sizes.hidden_size;
        m.num_attention_heads = sizes.num_attention_heads;
        m.num_key_value_heads = sizes.num_key_value_heads;
        m.head_dim = sizes.head_dim;
        m.intermediate_size = sizes.intermediate_size;
        m.vocab_size = sizes.vocab_size;
    }
    read_model_keys(r, m);
}

void read_model(const json& object, const std::string& path, model_config& m, diagnostics& errors) {
    // A Hugging Face config (it names its model_type, or comes from a preset) may carry any keys.
    const bool lenient = object.contains("model_type") || object.contains("preset") || object.contains("text_config");
    object_reader r(object, path, errors, lenient);
    read_model_object(r, m, 0);
    r.finish();
}

void read_parallel(object_reader& r, parallel_config& p) {
    r.integer("gpus", p.gpus, 1, max_gpu_count);
    r.integer("tp", p.tp, 1, 1024);
    r.integer("pp", p.pp, 1, 1024);
    r.integer("cp", p.cp, 1, 1024);
    r.integer("ep", p.ep, 1, 1024);
    r.integer("virtual_stages", p.virtual_stages, 1, 64);
    r.signed_integer("zero_stage", p.zero_stage, 0, 3, "must be 0, 1, 2 or 3");
    // PyTorch FSDP sharding strategies as names for ZeRO stages (Zhao et al. 2023, §3.2).
    std::string fsdp;
    r.text("fsdp", fsdp);
    if (!fsdp.empty()) {
        if (fsdp == "full_shard" || fsdp == "hybrid_shard") p.zero_stage = 3;
        else if (fsdp == "shard_grad_op" || fsdp == "hybrid_shard_zero2") p.zero_stage = 2;
        else if (fsdp == "no_shard") p.zero_stage = 0;
        else r.fail(r.field("fsdp"), "must be one of: full_shard, shard_grad_op, hybrid_shard, hybrid_shard_zero2, no_shard");
        if (fsdp.rfind("hybrid", 0) == 0 && !r.raw().contains("zero_shard_size")) p.zero_shard_size = p.gpus_per_node;
    }
    r.integer("zero_shard_size", p.zero_shard_size, 1, max_gpu_count);
    r.boolean("sequence_parallel", p.sequence_parallel);
    r.boolean("partition_activations", p.partition_activations);
    r.integer("zero_bucket_params", p.zero_bucket_params, 0, max_param_count);
    r.integer("zero3_max_live_params", p.zero3_max_live_params, 0, max_param_count);
    r.name("offload_optimizer", p.offload_optimizer, "none, cpu, nvme");
    r.name("offload_params", p.offload_params, "none, cpu, nvme");
    r.integer("gpus_per_node", p.gpus_per_node, 1, 1024);
}

void read_train(object_reader& r, train_config& t) {
    r.integer("micro_batch", t.micro_batch, 1, 1048576);
    r.integer("seq_len", t.seq_len, 1, 16777216);
    r.name("recompute", t.recompute, "none, selective, full");
    r.boolean("flash_attention", t.flash_attention);
    r.name("weight_dtype", t.weight_dtype, dtype_list);
    r.name("grad_dtype", t.grad_dtype, dtype_list);
    r.boolean("master_weights", t.master_weights);
    r.name("optimizer", t.optimizer, "adam, adam_8bit, sgd, sgd_momentum, lion, adafactor, none");
    r.integer("microbatches_in_flight", t.microbatches_in_flight, 1, 1048576);
}

void read_infer(object_reader& r, infer_config& i) {
    r.integer("batch", i.batch, 1, 1048576);
    r.integer("context_len", i.context_len, 1, 16777216);
    r.name("weight_dtype", i.weight_dtype, dtype_list);
    r.name("kv_dtype", i.kv_dtype, dtype_list);
    r.integer("quant_group_size", i.quant_group_size, 1, 1048576);
    r.boolean("flash_attention", i.flash_attention);
    r.integer("prefill_tokens", i.prefill_tokens, 1, 16777216);
}

json parse_document(const std::string& text, const char* field, diagnostics& errors) {
    json doc = json::parse(text, nullptr, /*allow_exceptions=*/false);
    if (doc.is_discarded()) errors.push_back({field, "is not valid JSON"});
    else if (!doc.is_object()) errors.push_back({field, "must be a JSON object"});
    return doc;
}
}  // namespace

outcome<estimate_config> parse_config(const std::string& json_text, const std::string& hf_config_text) {
    outcome<estimate_config> out;
    const json doc = parse_document(json_text, "config", out.errors);
    if (!out.ok()) return out;
    estimate_config& c = out.value;
    object_reader top(doc, "", out.errors);
    std::int64_t version = 1;
    top.signed_integer("version", version, 1, 1, "must be 1");
    top.name("mode", c.mode, "train, infer");
    // parallel first: FSDP hybrid sharding defaults to one node.
    top.object("parallel", [&](object_reader& r) { read_parallel(r, c.parallel); });
    if (const json* model = top.find("model"); model != nullptr) {
        if (!model->is_object()) top.fail("model", "must be an object");
        else read_model(*model, "model", c.model, out.errors);
    }
    top.object("train", [&](object_reader& r) { read_train(r, c.train); });
    top.object("infer", [&](object_reader& r) { read_infer(r, c.infer); });
    top.object("overhead", [&](object_reader& r) { r.integer("misc_bytes", c.misc_bytes, 0, any_count); });
    top.object("gpu", [&](object_reader& r) { r.integer("memory_bytes", c.gpu_memory_bytes, 1, any_count); });
    top.finish();
    if (!hf_config_text.empty()) {
        // A Hugging Face config.json replaces the model section.
        const json hf = parse_document(hf_config_text, "hf_config", out.errors);
        if (out.ok()) {
            c.model = model_config{};
            object_reader r(hf, "hf_config", out.errors, /*lenient=*/true);
            read_model_object(r, c.model, 0);
        }
    }
    return out;
}

std::string to_json(const estimate_result& r) {
    ordered_json out;
    if (r.errors.empty()) {
        const memory_breakdown& b = r.per_gpu;
        const estimate_details& d = r.details;
        out["params"] = r.params;
        out["data_parallel"] = r.data_parallel;
        out["per_gpu"] = ordered_json{{"weights", b.weights},
                                      {"gradients", b.gradients},
                                      {"optimizer_states", b.optimizer_states},
                                      {"activations", b.activations},
                                      {"logits", b.logits},
                                      {"communication", b.communication},
                                      {"kv_cache", b.kv_cache},
                                      {"misc", b.misc},
                                      {"total", b.total}};
        out["details"] = ordered_json{{"params_active", d.params_active},
                                      {"params_on_gpu", d.params_on_gpu},
                                      {"stage", d.stage},
                                      {"layers_on_gpu", d.layers_on_gpu},
                                      {"microbatches_in_flight", d.microbatches_in_flight},
                                      {"layer_activation_bytes", d.layer_activation_bytes},
                                      {"quantization_overhead_bytes", d.quantization_overhead_bytes},
                                      {"kv_cache_bytes_per_token", d.kv_cache_bytes_per_token},
                                      {"host_bytes_per_node", d.host_bytes_per_node},
                                      {"nvme_bytes_per_node", d.nvme_bytes_per_node}};
        ordered_json tensors = ordered_json::array();
        for (const auto& t : d.layer_activations)
            tensors.push_back(ordered_json{{"name", t.name}, {"bytes", t.bytes}, {"note", t.note}});
        out["details"]["layer_activations"] = tensors;
        if (r.has_capacity)
            out["gpu"] = ordered_json{{"fits", r.fits},
                                      {"headroom_bytes", r.headroom_bytes},
                                      {"shortfall_bytes", r.shortfall_bytes}};
    }
    out["warnings"] = errors_json(r.warnings);
    out["errors"] = errors_json(r.errors);
    return dump_json(out);
}

std::string estimate_json(const std::string& json_text, const std::string& hf_config_text) {
    const auto config = parse_config(json_text, hf_config_text);
    if (!config.ok()) {
        estimate_result failed;
        failed.errors = config.errors;
        return to_json(failed);
    }
    return to_json(estimate(config.value));
}

/// The model a configuration describes (preset, Hugging Face config and overrides applied), as the
/// explicit memplan model keys that reproduce it, with its exact parameter counts:
/// {"model": {...}, "params": N|null, "params_active": N|null, "errors": [...]}.
std::string resolve_model_json(const std::string& config_json, const std::string& hf_config_json) {
    const auto parsed = parse_config(config_json, hf_config_json);
    ordered_json out;
    out["model"] = nullptr;
    out["params"] = nullptr;
    out["params_active"] = nullptr;
    if (!parsed.ok()) {
        out["errors"] = errors_json(parsed.errors);
        return dump_json(out);
    }
    const model_config& m = parsed.value.model;
    ordered_json model;
    // Keys whose allowed range starts at 1 are left out when 0 ("not given": the core's default).
    const auto positive = [&model](const char* key, std::uint64_t value) {
        if (value != 0) model[key] = value;
    };
    if (!m.model_type.empty()) model["model_type"] = m.model_type;
    if (m.params != 0) model["params"] = m.params;
    positive("num_hidden_layers", m.num_hidden_layers);
    positive("hidden_size", m.hidden_size);
    positive("num_attention_heads", m.num_attention_heads);
    positive("num_key_value_heads", m.num_key_value_heads);
    positive("head_dim", m.head_dim);
    positive("intermediate_size", m.intermediate_size);
    positive("vocab_size", m.vocab_size);
    model["tie_word_embeddings"] = m.tie_word_embeddings;
    model["learned_positions"] = m.learned_positions;
    model["norm"] = to_string(m.norm);
    model["norms_per_layer"] = m.norms_per_layer;
    model["mlp"] = to_string(m.mlp);
    model["qkv_bias"] = m.qkv_bias;
    model["attention_out_bias"] = m.attention_out_bias;
    model["mlp_bias"] = m.mlp_bias;
    model["dropout"] = m.dropout;
    model["num_local_experts"] = m.num_experts;
    model["num_experts_per_tok"] = m.experts_per_token;
    positive("moe_intermediate_size", m.moe_intermediate_size);
    model["shared_expert_intermediate_size"] = m.shared_expert_intermediate_size;
    model["sliding_window"] = m.sliding_window;
    model["sliding_window_layers"] = m.sliding_window_layers;
    out["model"] = model;
    if (m.num_hidden_layers != 0 && m.hidden_size != 0 && m.num_attention_heads != 0) {
        const auto counted = count_params(m);
        if (counted.ok()) {
            out["params"] = counted.value.total;
            out["params_active"] = counted.value.active;
        }
        out["errors"] = errors_json(counted.errors);
    } else {
        out["errors"] = ordered_json::array();
    }
    return dump_json(out);
}

std::string errors_json_text(const diagnostics& errors) {
    return dump_json(ordered_json{{"errors", errors_json(errors)}});
}

std::string outcome_json_text(const outcome<std::uint64_t>& result) {
    ordered_json out;
    out["value"] = result.ok() ? ordered_json(result.value) : ordered_json(nullptr);
    out["errors"] = errors_json(result.errors);
    return dump_json(out);
}

}  // namespace memplan
