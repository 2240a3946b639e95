// The JSON of an estimate (memplan/report/json.hpp): the result object with its configuration echo,
// the whole estimate of a configuration's text, the resolved model, and the error objects.
#include "memplan/report/json.hpp"

#include <cctype>

#include "io/json_text.hpp"
#include "memplan/io/gpus.hpp"
#include "memplan/config/field_text.hpp"
#include "memplan/memory/frameworks.hpp"
#include "memplan/serving/serving.hpp"
#include "memplan/io/json.hpp"
#include "report/json.hpp"

namespace memplan {

namespace {
using ordered_json = nlohmann::ordered_json;
using detail::dump_json;
using detail::errors_json;
}  // namespace

std::string to_json(const estimate_result& r) { return dump_json(detail::result_json(r, nullptr)); }

std::string to_json(const estimate_result& r, const estimate_config* config) {
    return dump_json(detail::result_json(r, config));
}

void detail::add_memory_parts(ordered_json& out, const memory_breakdown& b) {
    out["weights"] = b.weights;
    out["gradients"] = b.gradients;
    out["optimizer_states"] = b.optimizer_states;
    out["activations"] = b.activations;
    out["logits"] = b.logits;
    out["communication"] = b.communication;
    out["kv_cache"] = b.kv_cache;
}

ordered_json detail::result_json(const estimate_result& r, const estimate_config* config) {
    ordered_json out;
    if (r.errors.empty()) {
        const memory_breakdown& b = r.per_gpu;
        const estimate_details& d = r.details;
        out["params"] = r.params;
        out["data_parallel"] = r.data_parallel;
        ordered_json per_gpu = ordered_json::object();
        add_memory_parts(per_gpu, b);
        per_gpu["dequant_workspace"] = b.dequant_workspace;
        per_gpu["misc"] = b.misc;
        per_gpu["total"] = b.total;
        out["per_gpu"] = per_gpu;
        out["details"] = ordered_json{{"params_active", d.params_active},
                                      {"params_on_gpu", d.params_on_gpu},
                                      {"stage", d.stage},
                                      {"layers_on_gpu", d.layers_on_gpu},
                                      {"microbatches_in_flight", d.microbatches_in_flight},
                                      {"layer_activation_bytes", d.layer_activation_bytes},
                                      {"quantization_overhead_bytes", d.quantization_overhead_bytes},
                                      {"kv_cache_bytes_per_token", d.kv_cache_bytes_per_token},
                                      {"prefill_chunk_tokens", d.prefill_chunk_tokens},
                                      {"prefill_pass_tokens", d.prefill_pass_tokens},
                                      {"host_bytes_per_node", d.host_bytes_per_node},
                                      {"nvme_bytes_per_node", d.nvme_bytes_per_node}};
        ordered_json tensors = ordered_json::array();
        for (const auto& t : d.layer_activations)
            tensors.push_back(ordered_json{{"name", t.name}, {"bytes", t.bytes}, {"note", t.note}});
        out["details"]["layer_activations"] = tensors;
        // Fine-tuning (memplan/adapters.hpp): which weight bytes are the frozen base and which the adapters.
        out["details"]["params_trainable"] = d.params_trainable;
        out["details"]["adapter_params"] = d.adapter_params;
        out["details"]["base_weight_bytes"] = d.base_weight_bytes;
        out["details"]["adapter_bytes"] = d.adapter_bytes;
        // Paged optimizer states (bitsandbytes, CUDA unified memory): in no per_gpu part nor phase, as PyTorch's
        // allocator does not count them; resident beside its reserved peak + paged out to host == the states.
        out["details"]["paged_optimizer_bytes"] = d.paged_optimizer_bytes;
        out["details"]["paged_optimizer_resident_bytes"] = d.paged_optimizer_resident_bytes;
        out["details"]["paged_optimizer_host_bytes"] = d.paged_optimizer_host_bytes;
        out["details"]["offloaded_activation_bytes"] = d.offloaded_activation_bytes;
        if (d.phases.present) {  // training: the live (allocated) bytes of each phase; per_gpu.total is the steady-state sum
            const step_phases& ph = d.phases;
            out["details"]["phases"] = ordered_json{{"forward_end", ph.forward_end_bytes},
                                                    {"loss_backward", ph.loss_backward_bytes},
                                                    {"layer_backward", ph.layer_backward_bytes},
                                                    {"optimizer_step", ph.optimizer_step_bytes},
                                                    {"optimizer_temp_bytes", ph.optimizer_temp_bytes},
                                                    {"peak", step_phase_names[static_cast<int>(ph.peak)]},
                                                    {"peak_bytes", ph.peak_bytes},
                                                    {"figure", "allocated"},
                                                    {"reserved_low_bytes", ph.reserved_low_bytes},
                                                    {"reserved_typical_bytes", ph.reserved_typical_bytes},
                                                    {"reserved_high_bytes", ph.reserved_high_bytes}};
            // The framework whose conventions apply and the figure its log prints (memory/frameworks.hpp).
            const framework_conventions& f = conventions_of(ph.framework);
            // Its pinned version and log line: frameworks_json (mp.frameworks()).
            out["details"]["framework"] = ordered_json{{"id", to_string(f.id)},
                                                       {"label", f.label},
                                                       {"logs", allocator_figure_names[static_cast<int>(f.logs)]},
                                                       {"log_unit", f.log_unit}};
        }
        write_model_details(out["details"], d);
        if (r.has_capacity)
            out["gpu"] = ordered_json{{"fits", verdict_fits(r)},
                                      {"needed_bytes", r.needed_bytes},
                                      {"headroom_bytes", r.headroom_bytes},
                                      {"shortfall_bytes", r.shortfall_bytes},
                                      {"capacity_bytes", r.capacity_bytes}};
        // A model known only by its stored bytes and declared sizes (the day-one path): the verdict says so.
        if (r.has_capacity && config != nullptr && config->model.stored_weight_bytes != 0) out["gpu"]["approximate"] = true;
        // With an engine the verdict is whether it starts (verdict_fits); the sizes beside it stay memplan's sum.
        if (r.has_capacity && r.serving.present) out["gpu"]["decided_by"] = "engine";
        if (r.serving.present) {  // serving-engine arithmetic, per GPU (memplan/serving.hpp)
            const serving_result& s = r.serving;
            out["serving"] = ordered_json{{"engine", s.engine},
                                          {"engine_label", s.engine_label},
                                          {"engine_version", s.engine_version},
                                          {"budget_bytes", s.budget_bytes},
                                          {"weights_bytes", s.weights_bytes},
                                          {"draft_weights_bytes", s.draft_weights_bytes},
                                          {"activation_peak_bytes", s.activation_peak_bytes},
                                          {"non_torch_bytes", s.non_torch_bytes},
                                          {"cuda_graph_bytes", s.cuda_graph_bytes},
                                          {"kv_cache_bytes", s.kv_cache_bytes},
                                          {"page_bytes", s.page_bytes},
                                          {"block_size", s.block_size},
                                          {"num_blocks", s.num_blocks},
                                          {"kv_capacity_tokens", s.kv_capacity_tokens},
                                          {"cpu_blocks", s.cpu_blocks},
                                          {"max_model_len", s.max_model_len},
                                          {"blocks_per_request", s.blocks_per_request},
                                          {"max_concurrency", ordered_json{{"numerator", s.max_concurrency_numerator},
                                                                           {"denominator", s.max_concurrency_denominator}}},
                                          // Whole requests of max_model_len held at once (the ratio rounded down).
                                          {"max_concurrent_requests", s.max_concurrency_denominator != 0
                                                                          ? s.max_concurrency_numerator / s.max_concurrency_denominator
                                                                          : 0},
                                          {"replicas", s.replicas},
                                          {"starts", s.starts},
                                          {"refusal", s.refusal.empty() ? ordered_json(nullptr) : ordered_json(s.refusal)},
                                          {"max_model_len_that_starts", s.max_model_len_that_starts},
                                          {"draft_kv_cache_bytes", s.draft_kv_cache_bytes},
                                          {"state_page_bytes", s.state_page_bytes},
                                          {"state_page_padded_bytes", s.state_page_padded_bytes},
                                          {"swa_capacity_tokens", s.swa_capacity_tokens}};
            if (!s.release.empty()) out["serving"]["release"] = s.release;
            if (!s.release_modelled.empty()) out["serving"]["release_modelled"] = s.release_modelled;
            ordered_json rows = ordered_json::array();
            for (const serving_row& row : s.breakdown)
                rows.push_back(ordered_json{{"term", row.term},
                                            {"label", row.label},
                                            {"bytes", row.bytes},
                                            {"source", row.source},
                                            {"measured", row.measured}});
            if (!rows.empty()) out["serving"]["breakdown"] = rows;  // vLLM's modelled parts
        }
        if (config != nullptr) out["config"] = detail::config_echo_json(*config);
        // The named framework's defaults the estimate assumed for fields not given (memory/frameworks.hpp).
        if (config != nullptr && config->mode == run_mode::train) {
            ordered_json applied = ordered_json::array();
            for (const framework_default* fd : applied_framework_defaults(*config))
                applied.push_back(ordered_json{{"field", fd->path},
                                               {"value", fd->value},
                                               {"framework", to_string(fd->framework)},
                                               {"upstream", fd->upstream},
                                               {"source", fd->source}});
            out["framework_defaults"] = applied;
        }
    }
    out["warnings"] = errors_json(r.warnings);
    out["errors"] = errors_json(r.errors);
    return out;
}

namespace {
/// `text` with each "model.KEY" (a word boundary before it, KEY not mtp) written "hf_config.KEY".
std::string hf_config_names(const std::string& text) {
    std::string out;
    std::size_t from = 0;
    for (std::size_t at = text.find("model."); at != std::string::npos; at = text.find("model.", at + 1)) {
        const bool boundary = at == 0 || !(std::isalnum(static_cast<unsigned char>(text[at - 1])) || text[at - 1] == '_' || text[at - 1] == '.');
        const bool mtp = text.compare(at + 6, 3, "mtp") == 0 &&
                         (at + 9 == text.size() || !(std::isalnum(static_cast<unsigned char>(text[at + 9])) || text[at + 9] == '_'));
        if (!boundary || mtp) continue;
        out += text.substr(from, at - from) + "hf_config.";
        from = at + 6;
    }
    return out + text.substr(from);
}
}  // namespace

void detail::name_hf_config_fields(ordered_json& out) {
    if (out.is_array()) {
        for (auto& item : out) name_hf_config_fields(item);
        return;
    }
    if (!out.is_object()) return;
    for (auto& item : out.items()) {
        if (item.key() == "errors" && item.value().is_array()) {
            for (auto& d : item.value()) {
                if (!d.is_object()) continue;
                for (const char* key : {"field", "message"})
                    if (d.contains(key) && d[key].is_string()) d[key] = hf_config_names(d[key].get<std::string>());
            }
        } else {
            name_hf_config_fields(item.value());
        }
    }
}

std::string estimate_json(const std::string& json_text, const std::string& hf_config_text) {
    const auto config = parse_config(json_text, hf_config_text);
    if (!config.ok()) {
        estimate_result failed;
        failed.errors = config.errors;
        return to_json(failed);
    }
    ordered_json out = detail::result_json(estimate_with_engine(config.value), &config.value);
    if (!hf_config_text.empty()) detail::name_hf_config_fields(out);
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

std::string gpu_json(const std::string& id) {
    const gpu_entry* gpu = find_gpu(id);
    if (gpu == nullptr) return "null";
    ordered_json out;
    out["id"] = gpu->id;
    out["name"] = gpu->name;
    out["capacity_bytes"] = gpu_capacity_bytes(*gpu);
    return dump_json(out);
}

std::string field_text_json(const std::string& path, const std::string& text) {
    ordered_json out;
    out["value"] = nullptr;
    out["text"] = nullptr;
    out["note"] = "";
    const field_spec* field = find_field(path);
    outcome<std::uint64_t> parsed;
    if (field == nullptr || (field->type != field_type::integer && field->type != field_type::bytes))
        parsed.errors.push_back({path, "is not a number field of the schema"});
    else
        parsed = parse_field_text(*field, text);
    if (parsed.ok()) {
        out["value"] = parsed.value;
        out["text"] = field_value_text(*field, parsed.value);
        out["note"] = field_text_note(*field, text);
    }
    out["errors"] = errors_json(parsed.errors);
    return dump_json(out);
}

namespace detail {
ordered_json model_keys_json(const model_config& m) {
    ordered_json model;
    // Keys whose allowed range starts at 1 are left out when 0 ("not given": the core's default).
    const auto positive = [&model](const char* key, std::uint64_t value) {
        if (value != 0) model[key] = value;
    };
    if (!m.model_type.empty()) model["model_type"] = m.model_type;
    if (m.params != 0) model["params"] = m.params;
    if (m.stored_weight_bytes != 0) model["stored_weight_bytes"] = m.stored_weight_bytes;
    positive("num_hidden_layers", m.num_hidden_layers);
    positive("hidden_size", m.hidden_size);
    positive("num_attention_heads", m.num_attention_heads);
    positive("num_key_value_heads", m.num_key_value_heads);
    positive("head_dim", m.head_dim);
    positive("intermediate_size", m.intermediate_size);
    // No width stated: GPT-2's documented n_inner null (4 × hidden, arch.cpp resolved_ffn), which the reader
    // accepts as a stated width (io/model_json.cpp require_sizes); only a model with a model_type is read as a
    // Hugging Face config, where null means "not set".
    if (m.intermediate_size == 0 && !m.model_type.empty()) model["n_inner"] = nullptr;
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
    // With a per-layer list the sliding layers are the list's (as reading the list back sets them).
    std::uint64_t sliding_layers = m.sliding_window_layers;
    if (!m.layer_attention.empty()) {
        sliding_layers = 0;
        for (auto k : m.layer_attention) sliding_layers += k == attention_kind::sliding ? 1 : 0;
    }
    model["sliding_window_layers"] = sliding_layers;
    // The structures of 2025–2026 models: written when set or when they differ from the family's
    // defaults (a flag the family implies, such as Qwen3's qk_norm, is written true, so that a form built
    // from this model shows it as the count has it).
    const model_config base = family_defaults(m.model_type);
    if (!m.layer_attention.empty()) {
        ordered_json kinds = ordered_json::array();
        for (auto k : m.layer_attention) kinds.push_back(to_string(k));
        model["layer_types"] = kinds;
    }
    if (!m.layer_mlp.empty()) {
        ordered_json kinds = ordered_json::array();
        for (auto k : m.layer_mlp) kinds.push_back(to_string(k));
        model["mlp_layer_types"] = kinds;
    }
    const auto flag = [&model](const char* key, bool value, bool fallback) {
        if (value || value != fallback) model[key] = value;
    };
    flag("qk_norm", m.qk_norm, base.qk_norm);
    flag("attention_sinks", m.attention_sinks, base.attention_sinks);
    flag("sliding_attention_sinks", m.sliding_attention_sinks, base.sliding_attention_sinks);
    flag("attention_output_gate", m.attention_output_gate, base.attention_output_gate);
    flag("router_bias", m.router_bias, base.router_bias);
    flag("shared_expert_gate", m.shared_expert_gate, base.shared_expert_gate);
    flag("router_scales", m.router_scales, base.router_scales);
    flag("layer_scalar", m.layer_scalar, base.layer_scalar);
    flag("full_value_from_key", m.full_value_from_key, base.full_value_from_key);
    flag("linear_kda", m.linear_kda, base.linear_kda);
    flag("mamba_conv_bias", m.mamba_conv_bias, base.mamba_conv_bias);
    flag("mamba_proj_bias", m.mamba_proj_bias, base.mamba_proj_bias);
    flag("mtp", m.mtp, base.mtp);
    flag("quant_experts_only", m.quant_experts_only, base.quant_experts_only);
    flag("quant_mixer_kept", m.quant_mixer_kept, base.quant_mixer_kept);
    flag("quant_double", m.quant_double, base.quant_double);
    flag("quant_g_idx", m.quant_g_idx, base.quant_g_idx);
    flag("quant_symmetric", m.quant_symmetric, base.quant_symmetric);
    for (const auto& [key, value] : std::initializer_list<std::pair<const char*, std::uint64_t>>{
             {"attention_chunk_size", m.attention_chunk_size}, {"q_lora_rank", m.q_lora_rank},
             {"kv_lora_rank", m.kv_lora_rank}, {"qk_nope_head_dim", m.qk_nope_head_dim},
             {"qk_rope_head_dim", m.qk_rope_head_dim}, {"v_head_dim", m.v_head_dim},
             {"rotary_dim", m.rotary_dim},
             {"index_n_heads", m.index_n_heads}, {"index_head_dim", m.index_head_dim},
             {"moe_latent_size", m.moe_latent_size},
             {"sliding_num_key_value_heads", m.sliding_num_key_value_heads},
             {"full_head_dim", m.full_head_dim}, {"full_num_key_value_heads", m.full_num_key_value_heads},
             {"linear_num_key_heads", m.linear_num_key_heads}, {"linear_num_value_heads", m.linear_num_value_heads},
             {"linear_key_head_dim", m.linear_key_head_dim}, {"linear_value_head_dim", m.linear_value_head_dim},
             {"linear_conv_kernel_dim", m.linear_conv_kernel_dim}, {"mamba_version", m.mamba_version},
             {"mamba_d_inner", m.mamba_d_inner}, {"mamba_d_state", m.mamba_d_state}, {"mamba_d_conv", m.mamba_d_conv},
             {"mamba_dt_rank", m.mamba_dt_rank}, {"mamba_num_heads", m.mamba_num_heads},
             {"mamba_n_groups", m.mamba_n_groups}, {"num_nextn_predict_layers", m.num_nextn_predict_layers},
             {"vision_params", m.vision_params}, {"quant_block", m.quant_block},
             {"max_position_embeddings", m.max_position_embeddings}})
        if (value != 0 && !(std::string(key) == "mamba_version" && value == base.mamba_version)) model[key] = value;
    if (m.checkpoint != checkpoint_format::none) model["checkpoint"] = to_string(m.checkpoint);
    if (m.ssm_state_dtype != base.ssm_state_dtype) model["ssm_state_dtype"] = to_string(m.ssm_state_dtype);
    return model;
}
}  // namespace detail

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
    // DeepSeek-V4's compress_ratios, grouped output projection, hyper-connections and hash layers have no memplan
    // keys: a resolved model without them would count another model, so none is written.
    if (m.o_groups != 0) {
        out["errors"] = errors_json({{"model.compress_ratios", "DeepSeek-V4's compressed layers, grouped output "
                                                               "projection and hyper-connections have no memplan keys: "
                                                               "give its config.json (hf_config) instead"}});
        return dump_json(out);
    }
    out["model"] = detail::model_keys_json(m);
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
    diagnostics assumed;
    for (const auto& a : m.assumptions) assumed.push_back({"model.model_type", a});
    out["warnings"] = errors_json(assumed);
    if (!hf_config_json.empty()) detail::name_hf_config_fields(out);
    return dump_json(out);
}

}  // namespace memplan

// ---- the model-structure fields of an estimate result (report/json.hpp write_model_details)

namespace memplan {

namespace detail {
nlohmann::ordered_json param_parts_json(const model_param_parts& q) {
    nlohmann::ordered_json out;
    const std::pair<const char*, const param_part*> parts[] = {
        {"embedding", &q.embedding}, {"attention", &q.attention}, {"mlp", &q.mlp},       {"experts", &q.experts},
        {"shared_experts", &q.shared_experts}, {"router", &q.router}, {"norms", &q.norms}, {"output", &q.output},
        {"mtp", &q.mtp},             {"vision", &q.vision}};
    for (const auto& [name, part] : parts) out[name] = {{"total", part->total}, {"active", part->active}};
    return out;
}

nlohmann::ordered_json layer_kinds_json(const layer_kind_counts& k) {
    nlohmann::ordered_json out;
    out["attention"] = {{"full", k.full},     {"sliding", k.sliding}, {"chunked", k.chunked}, {"mla", k.mla},
                        {"linear", k.linear}, {"mamba", k.mamba},     {"none", k.no_attention}};
    out["mlp"] = {{"dense", k.dense}, {"moe", k.moe}, {"none", k.no_mlp}};
    return out;
}
}  // namespace detail

void write_model_details(nlohmann::ordered_json& details, const estimate_details& d) {
    details["param_breakdown"] = detail::param_parts_json(d.param_parts);
    details["layer_kinds"] = detail::layer_kinds_json(d.layer_kinds);
    details["state_bytes_per_sequence"] = d.state_bytes_per_sequence;
    nlohmann::ordered_json by_dtype = nlohmann::ordered_json::object();
    for (const auto& [name, bytes] : d.weight_bytes_by_dtype) by_dtype[name] = bytes;
    details["weight_bytes_by_dtype"] = by_dtype;
}

}  // namespace memplan
