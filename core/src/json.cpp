// JSON schema v1 of memplan configurations and results (docs/schema.md).
#include "memplan/json.hpp"

#include <functional>
#include <set>

#include <nlohmann/json.hpp>

#include "checks.hpp"

namespace memplan {

namespace {
using json = nlohmann::json;
using ordered_json = nlohmann::ordered_json;

/// Reads one object level: each known key has a handler; unknown keys are errors.
class object_reader {
public:
    object_reader(const json& object, std::string path, diagnostics& errors)
        : object_(object), path_(std::move(path)), errors_(errors) {}

    std::string field(const std::string& key) const { return path_.empty() ? key : path_ + "." + key; }

    void integer(const char* key, std::uint64_t& out, std::uint64_t lo, std::uint64_t hi) {
        known_.emplace(key);
        const auto it = object_.find(key);
        if (it == object_.end()) return;
        const std::string name = field(key);
        if (it->is_number_unsigned()) {
            const auto value = it->get<std::uint64_t>();
            if (value < lo || value > hi) return fail(name, detail::integer_range_message(lo, hi));
            out = value;
        } else if (it->is_number()) {
            // Negative integers and floats: accept only an integral value in range (7e9 is fine).
            out = detail::checked_integer(it->get<double>(), name, lo, hi, errors_);
        } else {
            fail(name, detail::integer_range_message(lo, hi));
        }
    }

    void signed_integer(const char* key, std::int64_t& out, std::int64_t lo, std::int64_t hi, const char* message) {
        known_.emplace(key);
        const auto it = object_.find(key);
        if (it == object_.end()) return;
        if (it->is_number()) {
            const double value = it->get<double>();
            for (std::int64_t candidate = lo; candidate <= hi; ++candidate)
                if (value == static_cast<double>(candidate)) {
                    out = candidate;
                    return;
                }
        }
        fail(field(key), message);
    }

    void boolean(const char* key, bool& out) {
        known_.emplace(key);
        const auto it = object_.find(key);
        if (it == object_.end()) return;
        if (!it->is_boolean()) return fail(field(key), "must be true or false");
        out = it->get<bool>();
    }

    template <class E>
    void name(const char* key, E& out, const char* allowed) {
        known_.emplace(key);
        const auto it = object_.find(key);
        if (it == object_.end()) return;
        if (!it->is_string() || !parse_enum(it->get<std::string>(), out))
            fail(field(key), std::string("must be one of: ") + allowed);
    }

    /// A nested object; `read` is called only when the key is present and holds an object.
    void object(const char* key, const std::function<void(object_reader&)>& read) {
        known_.emplace(key);
        const auto it = object_.find(key);
        if (it == object_.end()) return;
        if (!it->is_object()) return fail(field(key), "must be an object");
        object_reader inner(*it, field(key), errors_);
        read(inner);
        inner.finish();
    }

    /// Reports every key that no handler claimed.
    void finish() {
        for (auto it = object_.begin(); it != object_.end(); ++it)
            if (known_.count(it.key()) == 0) fail(field(it.key()), "is not a known key");
    }

private:
    void fail(const std::string& name, const std::string& message) { errors_.push_back({name, message}); }

    const json& object_;
    std::string path_;
    diagnostics& errors_;
    std::set<std::string> known_;
};

constexpr std::uint64_t any_count = max_exact_integer;
constexpr const char* dtype_list = "fp32, bf16, fp16, fp8, int8, int4";

void read_model(object_reader& r, model_config& m) {
    r.integer("params", m.params, 0, max_param_count);
    r.integer("num_hidden_layers", m.num_hidden_layers, 1, 65536);
    r.integer("hidden_size", m.hidden_size, 1, 1048576);
    r.integer("num_attention_heads", m.num_attention_heads, 1, 65536);
    r.integer("num_key_value_heads", m.num_key_value_heads, 1, 65536);
    r.integer("head_dim", m.head_dim, 1, 65536);
    r.integer("intermediate_size", m.intermediate_size, 1, 1048576);
    r.integer("vocab_size", m.vocab_size, 1, 16777216);
}

void read_parallel(object_reader& r, parallel_config& p) {
    r.integer("gpus", p.gpus, 1, max_gpu_count);
    r.integer("tp", p.tp, 1, 1024);
    r.integer("pp", p.pp, 1, 1024);
    r.signed_integer("zero_stage", p.zero_stage, 0, 3, "must be 0, 1, 2 or 3");
    r.boolean("sequence_parallel", p.sequence_parallel);
    r.boolean("partition_activations", p.partition_activations);
    r.integer("zero_bucket_params", p.zero_bucket_params, 0, max_param_count);
    r.integer("zero3_max_live_params", p.zero3_max_live_params, 0, max_param_count);
}

void read_train(object_reader& r, train_config& t) {
    r.integer("micro_batch", t.micro_batch, 1, 1048576);
    r.integer("seq_len", t.seq_len, 1, 16777216);
    r.name("recompute", t.recompute, "none, selective, full");
    r.boolean("flash_attention", t.flash_attention);
    r.name("weight_dtype", t.weight_dtype, dtype_list);
    r.name("grad_dtype", t.grad_dtype, dtype_list);
    r.boolean("master_weights", t.master_weights);
    r.name("optimizer", t.optimizer, "adam, adam_8bit, sgd, sgd_momentum, lion, none");
    r.integer("microbatches_in_flight", t.microbatches_in_flight, 1, 1048576);
}

void read_infer(object_reader& r, infer_config& i) {
    r.integer("batch", i.batch, 1, 1048576);
    r.integer("context_len", i.context_len, 1, 16777216);
    r.name("weight_dtype", i.weight_dtype, dtype_list);
    r.name("kv_dtype", i.kv_dtype, dtype_list);
}

ordered_json errors_json(const diagnostics& list) {
    ordered_json out = ordered_json::array();
    for (const auto& e : list) out.push_back(ordered_json{{"field", e.field}, {"message", e.message}});
    return out;
}
}  // namespace

outcome<estimate_config> parse_config(const std::string& json_text) {
    outcome<estimate_config> out;
    const json doc = json::parse(json_text, nullptr, /*allow_exceptions=*/false);
    if (doc.is_discarded()) {
        out.errors.push_back({"config", "is not valid JSON"});
        return out;
    }
    if (!doc.is_object()) {
        out.errors.push_back({"config", "must be a JSON object"});
        return out;
    }
    estimate_config& c = out.value;
    object_reader top(doc, "", out.errors);
    std::int64_t version = 1;
    top.signed_integer("version", version, 1, 1, "must be 1");
    top.name("mode", c.mode, "train, infer");
    top.object("model", [&](object_reader& r) { read_model(r, c.model); });
    top.object("parallel", [&](object_reader& r) { read_parallel(r, c.parallel); });
    top.object("train", [&](object_reader& r) { read_train(r, c.train); });
    top.object("infer", [&](object_reader& r) { read_infer(r, c.infer); });
    top.object("overhead", [&](object_reader& r) { r.integer("misc_bytes", c.misc_bytes, 0, any_count); });
    top.object("gpu", [&](object_reader& r) { r.integer("memory_bytes", c.gpu_memory_bytes, 1, any_count); });
    top.finish();
    return out;
}

std::string to_json(const estimate_result& r) {
    ordered_json out;
    if (r.errors.empty()) {
        const memory_breakdown& b = r.per_gpu;
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
        if (r.has_capacity)
            out["gpu"] = ordered_json{{"fits", r.fits},
                                      {"headroom_bytes", r.headroom_bytes},
                                      {"shortfall_bytes", r.shortfall_bytes}};
    }
    out["warnings"] = errors_json(r.warnings);
    out["errors"] = errors_json(r.errors);
    // Replace invalid UTF-8 (from user-supplied key names) rather than throw.
    return out.dump(-1, ' ', false, ordered_json::error_handler_t::replace);
}

std::string estimate_json(const std::string& json_text) {
    const auto config = parse_config(json_text);
    if (!config.ok()) {
        estimate_result failed;
        failed.errors = config.errors;
        return to_json(failed);
    }
    return to_json(estimate(config.value));
}

}  // namespace memplan
