// memplan — the JSON the core writes: the result of an estimate, analyze and compare, the schema, the
// stored models with their counts and the reproduction reports, each from a configuration's text or
// a computed result. Schema: docs/schema.md. The same text in gives the same text out, byte for byte,
// on every build.
#pragma once

#include <cstdint>
#include <memory>
#include <string>

#include "memplan/base/types.hpp"
#include "memplan/io/safetensors.hpp"
#include "memplan/memory/result.hpp"
#include "memplan/reproduce/eleuther.hpp"

namespace memplan {

// ---- estimate (report/json.cpp)

/// Serialises a result: params, data_parallel, per_gpu, gpu (when a capacity was given), warnings, errors.
std::string to_json(const estimate_result& result);

/// As above, followed by "config": the resolved configuration the estimate used (every schema
/// field, defaults filled in, FSDP names resolved to their ZeRO stage), before "warnings".
std::string to_json(const estimate_result& result, const estimate_config* config);

/// parse_config + estimate (memplan/api/estimate.hpp) + to_json; malformed input yields a result object whose `errors` say why.
std::string estimate_json(const std::string& json_text, const std::string& hf_config_text = "");

/// The model a configuration describes (preset, Hugging Face config and overrides applied), as the
/// explicit memplan model keys that reproduce it, with its exact parameter counts:
/// {"model": {...}, "params": N|null, "params_active": N|null, "errors": [...]}.
std::string resolve_model_json(const std::string& config_json, const std::string& hf_config_json = "");

/// {"errors": [{field, message}, …]}: the error object every JSON front end prints.
std::string errors_json_text(const diagnostics& errors);

/// {"value": N, "errors": []} or {"value": null, "errors": [{field, message}, …]}.
std::string outcome_json_text(const outcome<std::uint64_t>& result);

/// A number field's text as the field reads it (memplan/config/field_text.hpp): {"value": N, "text":
/// "8,192 tokens", "note": "" , "errors": []}, or value and text null with errors naming the field (an
/// unknown path, or a field that is not a number, is an error too).
std::string field_text_json(const std::string& path, const std::string& text);

/// One GPU of the catalogue by its exact id: {"id", "name", "capacity_bytes" (gpu_capacity_bytes)}, or
/// null for an id the catalogue does not hold. What an answer for one GPU needs, without writing the
/// whole catalogue (gpu_catalogue_json) and reading it back.
std::string gpu_json(const std::string& id);

// ---- analyze (report/analyze_json.cpp)

/// parse_config + analyze, as JSON: {estimate, stages, suggestions, sweep, limits, context_sweep,
/// errors}; never throws.
std::string analyze_json(const std::string& config_json, const std::string& hf_config_json = "");

// ---- compare (report/compare_json.cpp)

/// parse_config + compare, as JSON: {"memplan": {"total_bytes", "weights", …}, "tools": [{"tool",
/// "version", "source", "expressible", "lacks", "figure", "figure_text", "units", "terms": [{"term",
/// "tool_bytes", "memplan_bytes", "reason"}]}], "deepspeed_buffers": {…} or null, "errors": [{field,
/// message}]}. Deterministic text.
std::string compare_json(const std::string& config_json, const std::string& hf_config_json = "");

// ---- a checkpoint's stored tensors (report/checkpoint_json.cpp)

/// memplan's count of a Hugging Face config.json (its MTP modules included when it has any) beside the
/// tensors its safetensors files store: {"model_type", "params", "stored": {"values", "params", "bytes", "tensors",
/// "by_dtype": {DTYPE: {"values", "bytes"}}}, "parts": [{"part", "memplan", "stored", "bytes", "by_dtype":
/// {DTYPE: bytes}, "difference", "larger": "stored"|"memplan"|"neither", "note"}], "unexplained": N,
/// "unexplained_bytes": N, "refused_tensors": ["NAME: why"], "errors": [...]}. Each stored tensor is assigned to
/// one of memplan's parts by its name; "unexplained" is the sum of the differences that no note explains (0:
/// exact), "unexplained_bytes" the stored bytes of those parts that hold more than memplan counts. In a quantized checkpoint (the config's
/// quantization_config) a packed values tensor counts as the parameters it unpacks to, and each scale, zero point,
/// group index, scalar or table is checked against the shape and dtype its format's layout gives it beside the
/// values of its module: one that fits is "quantization", one that does not is "other" and named in
/// "refused_tensors".
std::string checkpoint_json(const std::string& hf_config_text, const std::vector<stored_tensor>& tensors);

// ---- the day-one path (report/day_one_json.cpp)

/// A config.json that memplan's families refuse (a model_type none of them knows, or keys its family's reader
/// does not read), made an estimable model from the tensors its checkpoint stores: {"model": {memplan model
/// keys: params (the stored values of its weights, scales left out), stored_weight_bytes (every stored byte),
/// the sizes the config declares (layers, width, heads, KV heads, head width, MLA latent, sliding window and
/// layer kinds, MLP and expert widths, vocabulary)} | null, "stored": {"tensors", "values", "bytes", "by_dtype":
/// {DTYPE: {"values", "bytes"}}} | null, "assumptions": ["…"] (the families' refusal first, then each size
/// assumed), "errors": [...]}. Refused, naming the key, where the config lacks the layers, the width or the
/// heads; refused naming hf_config where the families read the config (its count is exact); naming hf_model
/// where no tensors are given.
std::string day_one_json(const std::string& hf_config_text, const std::vector<stored_tensor>& tensors);

/// day_one_json with the tensors of fetched safetensors headers, as checkpoint_headers_json takes them (the page).
std::string day_one_headers_json(const std::string& hf_config_text, const std::string& headers_json);

// ---- the schema (report/schema_json.cpp)

/// {"version":1,"fields":[{path,type,min,max,default,choices,label,help,unit,modes}],"limits":{…}}.
std::string schema_json();

/// The configuration types as TypeScript declarations (`Config`, `ModelConfig`, one union type per
/// enumeration), each field documented from its row, and `ResolvedConfig`, the configuration echo of
/// every result (its `config`: every field, null where not set); web/memplan.d.ts carries this text verbatim.
std::string schema_typescript();

/// The schema as Markdown tables, one per section (docs/schema.md carries this text verbatim).
std::string schema_markdown();

// ---- the stored models (report/presets_json.cpp)

/// core/data/models.json as it was compiled in, each model with its counts added: "params",
/// "params_active", "param_breakdown" {embedding, attention, mlp, experts, shared_experts, router,
/// norms, output, mtp, vision: {total, active}}, "layer_kinds", and bf16 "kv_cache_bytes_per_token"
/// and "state_bytes_per_sequence" (one GPU).
std::string model_presets_json();

// ---- the serving engines (report/engines_json.cpp)

/// {"engines": [{"id", "label", "version", "share_field", "share_flag", "share_of", "budget"}, …],
///  "budget_terms": [{"key", "label", "formula"}, …]}: each engine memplan reproduces, with the upstream
/// source of its arithmetic, and the terms of the budget it divides into KV pages (serving_result's fields).
std::string engines_json();

/// What memplan applies for one training framework, in words, and the upstream files it read them from
/// (the listings' part of memplan/memory/frameworks.hpp's entry).
struct framework_notes {
    train_framework id;
    const char* version;      ///< the upstream repository and commit these facts are read from ("" for none)
    const char* log_text;     ///< what its log prints and the call behind it
    const char* conventions;  ///< what it saves for backward, its loss path, its buffers, its optimizer step, its layouts
    const char* source;       ///< the upstream files, at the entry's version
};
const framework_notes& framework_notes_of(train_framework framework);

/// {"frameworks": [{"id", "label", "version", "logs", "log_text", "log_unit", "conventions", "source"}, …],
///  "reserved_band": {"low_permille", "median_permille", "high_permille", "measurements"}}: the values of
/// train.framework with what each one's log prints (memplan/memory/frameworks.hpp) and the band of
/// reserved / allocated the reserved range uses.
std::string frameworks_json();

// ---- EleutherAI's transformer_mem.py (report/eleuther_json.cpp)

/// {"params": "6.9 B", "unit": "GiB", "rows": {label: GiB, …}}: the script's report as JSON, each
/// figure with 17 significant digits (the double the script computed, exactly).
std::string eleuther_report_json(const eleuther_report& report);

/// The layout planner (search/plan.hpp) over JSON: {"config": {…estimate configuration…}, "gpu": ID,
/// "gpus": N | "min_gpus": A, "max_gpus": B, "global_batch": sequences (training), "top_n": N,
/// "gemm_efficiency", "attention_efficiency", "tp_within_node"} → {"top": [...], "considered",
/// "fitting", "rejected", "empty_reason", "gpu_memory_bytes" (the capacity checked against), "gpu_counts" (every count searched), "by_gpus" (one row per
/// count: {gpus, considered, fitting, best: layout | null}), "done": true, "errors"} (docs/planner.md).
std::string plan_json(const std::string& request_json);

/// plan_json one GPU count at a time (search/plan.hpp plan_stream): each step() searches the next count
/// and returns the answer so far in plan_json's form, "done": false until the last count, whose answer
/// is plan_json's exactly. A bad request: the first step() returns its errors and done() is true.
class plan_json_stream {
public:
    explicit plan_json_stream(const std::string& request_json);
    ~plan_json_stream();
    plan_json_stream(const plan_json_stream&) = delete;
    plan_json_stream& operator=(const plan_json_stream&) = delete;
    std::string step();
    bool done() const;

private:
    struct parts;
    std::unique_ptr<parts> p_;
};

/// The step-time model (search/step_time.hpp) of one configuration as laid out: {"config", "gpu",
/// "global_batch", efficiencies} → {"step_s", "tokens_per_s_per_gpu", "mfu", …, "terms", "total_bytes", "fits"}.
std::string step_time_json(const std::string& request_json);

}  // namespace memplan
