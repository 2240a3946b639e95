// JSON schema v1 of memplan configurations and results (docs/schema.md). The `model` section and
// Hugging Face config.json import are read in model_json.cpp.
#include "memplan/json.hpp"

#include <nlohmann/json.hpp>

#include "checks.hpp"
#include "json_text.hpp"
#include "model_json.hpp"

namespace memplan {

namespace {
using json = nlohmann::json;
using ordered_json = nlohmann::ordered_json;
using detail::dump_json;
using detail::errors_json;

using detail::object_reader;
using detail::read_model;
using detail::read_model_object;

constexpr std::uint64_t any_count = max_exact_integer;
constexpr const char* dtype_list = "fp32, bf16, fp16, fp8, int8, int4";


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
