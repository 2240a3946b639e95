// Per-GPU memory of a transformer training step or serving, for the most loaded GPU.
// Every formula names its source or derivation; all arithmetic is exact in 128-bit integers and
// rounded up to a whole byte once, at the end of each part.
#include "memplan/estimate.hpp"

#include <algorithm>
#include <array>

#include "checks.hpp"
#include "memplan/arch.hpp"

namespace memplan {

using detail::ceil_div;
using detail::u128;

// ---------------------------------------------------------------------------------------------
// Names

namespace {
template <class E, std::size_t N>
struct name_table {
    std::array<std::pair<E, const char*>, N> entries;
    const char* name(E value) const {
        for (const auto& entry : entries)
            if (entry.first == value) return entry.second;
        return "?";
    }
    bool parse(const std::string& text, E& out) const {
        for (const auto& entry : entries)
            if (text == entry.second) {
                out = entry.first;
                return true;
            }
        return false;
    }
};

constexpr name_table<dtype, 6> dtype_names{{{{dtype::fp32, "fp32"},
                                              {dtype::bf16, "bf16"},
                                              {dtype::fp16, "fp16"},
                                              {dtype::fp8, "fp8"},
                                              {dtype::int8, "int8"},
                                              {dtype::int4, "int4"}}}};
constexpr name_table<run_mode, 2> mode_names{{{{run_mode::train, "train"}, {run_mode::infer, "infer"}}}};
constexpr name_table<recompute_mode, 3> recompute_names{{{{recompute_mode::none, "none"},
                                                          {recompute_mode::selective, "selective"},
                                                          {recompute_mode::full, "full"}}}};
constexpr name_table<optimizer_kind, 6> optimizer_names{{{{optimizer_kind::adam, "adam"},
                                                           {optimizer_kind::adam_8bit, "adam_8bit"},
                                                           {optimizer_kind::sgd, "sgd"},
                                                           {optimizer_kind::sgd_momentum, "sgd_momentum"},
                                                           {optimizer_kind::lion, "lion"},
                                                           {optimizer_kind::none, "none"}}}};
constexpr name_table<norm_kind, 2> norm_names{{{{norm_kind::layernorm, "layernorm"}, {norm_kind::rmsnorm, "rmsnorm"}}}};
constexpr name_table<mlp_kind, 2> mlp_names{{{{mlp_kind::plain, "plain"}, {mlp_kind::gated, "gated"}}}};
}  // namespace

const char* to_string(norm_kind kind) { return norm_names.name(kind); }
const char* to_string(mlp_kind kind) { return mlp_names.name(kind); }
bool parse_enum(const std::string& name, norm_kind& out) { return norm_names.parse(name, out); }
bool parse_enum(const std::string& name, mlp_kind& out) { return mlp_names.parse(name, out); }
const char* to_string(dtype type) { return dtype_names.name(type); }
const char* to_string(run_mode mode) { return mode_names.name(mode); }
const char* to_string(recompute_mode mode) { return recompute_names.name(mode); }
const char* to_string(optimizer_kind kind) { return optimizer_names.name(kind); }
bool parse_enum(const std::string& name, dtype& out) { return dtype_names.parse(name, out); }
bool parse_enum(const std::string& name, run_mode& out) { return mode_names.parse(name, out); }
bool parse_enum(const std::string& name, recompute_mode& out) { return recompute_names.parse(name, out); }
bool parse_enum(const std::string& name, optimizer_kind& out) { return optimizer_names.parse(name, out); }

std::uint64_t dtype_bits(dtype type) {
    switch (type) {
        case dtype::fp32: return 32;
        case dtype::bf16:
        case dtype::fp16: return 16;
        case dtype::fp8:
        case dtype::int8: return 8;
        case dtype::int4: return 4;
    }
    return 32;
}

// ---------------------------------------------------------------------------------------------
// Validation

namespace {
constexpr std::uint64_t max_degree = 1024;            // tp, pp
constexpr std::uint64_t max_batch = 1048576;          // 2^20 sequences
constexpr std::uint64_t max_tokens = 16777216;        // 2^24 tokens per sequence
constexpr std::uint64_t max_width = 1048576;          // 2^20 hidden / FFN width
constexpr std::uint64_t max_heads = 65536;            // 2^16 heads, head size, layers
constexpr std::uint64_t max_vocab = 16777216;         // 2^24

void check_range(std::uint64_t value, const char* field, std::uint64_t lo, std::uint64_t hi, diagnostics& errors) {
    if (value < lo || value > hi) errors.push_back({field, detail::integer_range_message(lo, hi)});
}

bool has_architecture(const model_config& m) {
    return m.num_hidden_layers != 0 && m.hidden_size != 0 && m.num_attention_heads != 0;
}

void require_architecture(const model_config& m, const char* why, diagnostics& errors) {
    const std::string suffix = std::string("is required ") + why;
    if (m.num_hidden_layers == 0) errors.push_back({"model.num_hidden_layers", suffix});
    if (m.hidden_size == 0) errors.push_back({"model.hidden_size", suffix});
    if (m.num_attention_heads == 0) errors.push_back({"model.num_attention_heads", suffix});
}
}  // namespace

diagnostics validate(const estimate_config& c) {
    diagnostics errors;
    const model_config& m = c.model;
    check_range(m.params, "model.params", 0, max_param_count, errors);
    check_range(m.num_hidden_layers, "model.num_hidden_layers", 0, max_heads, errors);
    check_range(m.hidden_size, "model.hidden_size", 0, max_width, errors);
    check_range(m.num_attention_heads, "model.num_attention_heads", 0, max_heads, errors);
    check_range(m.num_key_value_heads, "model.num_key_value_heads", 0, max_heads, errors);
    check_range(m.head_dim, "model.head_dim", 0, max_heads, errors);
    check_range(m.intermediate_size, "model.intermediate_size", 0, max_width, errors);
    check_range(m.vocab_size, "model.vocab_size", 0, max_vocab, errors);

    const parallel_config& p = c.parallel;
    check_range(p.gpus, "parallel.gpus", 1, max_gpu_count, errors);
    check_range(p.tp, "parallel.tp", 1, max_degree, errors);
    check_range(p.pp, "parallel.pp", 1, max_degree, errors);
    if (p.zero_stage < 0 || p.zero_stage > 3) errors.push_back({"parallel.zero_stage", "must be 0, 1, 2 or 3"});
    check_range(p.zero_bucket_params, "parallel.zero_bucket_params", 0, max_param_count, errors);
    check_range(p.zero3_max_live_params, "parallel.zero3_max_live_params", 0, max_param_count, errors);

    check_range(c.train.micro_batch, "train.micro_batch", 1, max_batch, errors);
    check_range(c.train.seq_len, "train.seq_len", 1, max_tokens, errors);
    check_range(c.train.microbatches_in_flight, "train.microbatches_in_flight", 0, max_batch, errors);
    check_range(c.infer.batch, "infer.batch", 1, max_batch, errors);
    check_range(c.infer.context_len, "infer.context_len", 1, max_tokens, errors);
    check_range(c.misc_bytes, "overhead.misc_bytes", 0, max_exact_integer, errors);
    check_range(c.gpu_memory_bytes, "gpu.memory_bytes", 0, max_exact_integer, errors);
    if (!errors.empty()) return errors;

    // Layout: every GPU belongs to exactly one (data, tensor, pipeline) coordinate.
    if (p.gpus % (p.tp * p.pp) != 0)
        errors.push_back({"parallel.gpus", "must be a multiple of parallel.tp × parallel.pp (" +
                                               std::to_string(p.tp * p.pp) + ")"});

    // Model: an explicit count, or an architecture that determines one.
    if (m.params == 0 && !has_architecture(m))
        errors.push_back({"model.params", "give model.params or the architecture (num_hidden_layers, "
                                          "hidden_size, num_attention_heads)"});
    if (c.mode == run_mode::train) require_architecture(m, "for activation memory", errors);
    if (c.mode == run_mode::infer) require_architecture(m, "for the KV cache", errors);
    if (!errors.empty()) return errors;

    errors = validate_architecture(m);
    if (!errors.empty()) return errors;
    const std::uint64_t kv_heads = resolved_kv_heads(m);
    // Megatron tensor parallelism splits attention by heads (Shoeybi et al. 2019, §3).
    if (m.num_attention_heads % p.tp != 0)
        errors.push_back({"parallel.tp", "must divide model.num_attention_heads (" +
                                             std::to_string(m.num_attention_heads) + ")"});
    else if (kv_heads % p.tp != 0 && p.tp % kv_heads != 0)
        errors.push_back({"parallel.tp", "must divide model.num_key_value_heads (" + std::to_string(kv_heads) +
                                             ") or be a multiple of it"});
    if (p.pp > m.num_hidden_layers)
        errors.push_back({"parallel.pp", "must not exceed model.num_hidden_layers (" +
                                             std::to_string(m.num_hidden_layers) + ")"});
    return errors;
}

// ---------------------------------------------------------------------------------------------
// Formulas

namespace {

/// Bytes of `elements` values of `type`, rounded up (int4 packs two per byte).
u128 bytes_of(u128 elements, dtype type) { return ceil_div(elements * dtype_bits(type), 8); }

/// Optimizer-state bytes per parameter, as bytes per `2048` parameters to keep 8-bit block statistics exact.
u128 optimizer_bytes(u128 shard_params, const train_config& t) {
    if (t.optimizer == optimizer_kind::none) return 0;  // frozen weights: no optimizer at all
    // fp32 master copy when the working weights are narrower (Micikevicius et al. 2018, §3.1).
    const u128 master = (t.master_weights && dtype_bits(t.weight_dtype) < 32) ? 4 * shard_params : 0;
    switch (t.optimizer) {
        case optimizer_kind::adam:  // fp32 momentum + variance (Kingma & Ba 2015; ZeRO §3.1, K = 12 with master)
            return master + 8 * shard_params;
        case optimizer_kind::adam_8bit:  // int8 momentum + variance, one fp32 absmax per 2048-block each
            // (Dettmers et al. 2022, "8-bit Optimizers via Block-wise Quantization", §2, block size 2048)
            return master + 2 * shard_params + 2 * 4 * ceil_div(shard_params, 2048);
        case optimizer_kind::sgd:  // plain SGD keeps no state
            return master;
        case optimizer_kind::sgd_momentum:  // one fp32 momentum buffer (torch.optim.SGD)
        case optimizer_kind::lion:          // one fp32 momentum (Chen et al. 2023, "Symbolic Discovery", Alg. 1)
            return master + 4 * shard_params;
        case optimizer_kind::none: return 0;
    }
    return 0;
}

/// Activation bytes saved by one transformer layer for one micro-batch, as a fraction over tp.
/// Korthikanti et al. 2022, "Reducing Activation Recomputation in Large Transformer Models", Table 2,
/// with 2-byte activations and 1-byte dropout masks; s = seq_len, b = micro_batch, h = hidden, a = heads.
struct layer_activation {
    u128 numerator = 0;  // bytes × tp
};

layer_activation layer_activation_bytes(const estimate_config& c, recompute_mode mode) {
    const model_config& m = c.model;
    const u128 t = c.parallel.tp;
    const u128 sbh = u128{c.train.seq_len} * c.train.micro_batch * m.hidden_size;
    // Attention scores, softmax output and its dropout mask: 5as²b (Korthikanti §4.1, the 5as/h term · sbh).
    const u128 scores = (c.train.flash_attention || mode == recompute_mode::selective)
                            ? 0
                            : 5 * u128{m.num_attention_heads} * c.train.seq_len * c.train.seq_len * c.train.micro_batch;
    const bool sp = c.parallel.sequence_parallel;
    switch (mode) {
        case recompute_mode::full:
            // Only the layer input is kept: 2sbh, sharded over tp with sequence parallelism or
            // DeepSpeed's partitioned activations (Korthikanti Table 2, "full recompute").
            return {(sp || c.parallel.partition_activations) ? 2 * sbh : 2 * sbh * t};
        case recompute_mode::none:
        case recompute_mode::selective:
            // With SP: sbh(34/t + 5as/(ht)); without: sbh(10 + 24/t + 5as/(ht)) (Korthikanti Table 2).
            return {sp ? 34 * sbh + scores : 10 * sbh * t + 24 * sbh + scores};
    }
    return {};
}

struct stage_parts {
    u128 activations = 0;
    u128 logits = 0;
};

}  // namespace

namespace {
/// Parts of one pipeline stage that differ between stages: activations in flight and the logits.
stage_parts train_stage_parts(const estimate_config& c, std::uint64_t in_flight, bool holds_logits) {
    const model_config& m = c.model;
    const u128 t = c.parallel.tp;
    // Layers per stage: ceil(L / pp), the first stage's share (an upper bound when pp does not divide L).
    const u128 layers = ceil_div(m.num_hidden_layers, c.parallel.pp);
    const auto kept = layer_activation_bytes(c, c.train.recompute);
    stage_parts parts;
    // 1F1B: the first stage holds the activations of pp micro-batches (Narayanan et al. 2021, §2.2;
    // Korthikanti §4.2.3), the last one of a single micro-batch.
    parts.activations = ceil_div(layers * in_flight * kept.numerator, t);
    if (c.train.recompute == recompute_mode::full) {
        // During backward one layer is recomputed and its full activations are live at once
        // (Korthikanti §5: full recompute re-runs each layer's forward before its backward).
        parts.activations += ceil_div(layer_activation_bytes(c, recompute_mode::none).numerator, t);
    }
    if (holds_logits && m.vocab_size != 0) {
        // Output logits s·b·V/t in the 2-byte activation dtype plus the fp32 softmax that the
        // vocabulary-parallel cross entropy keeps for backward (Megatron-LM cross_entropy.py): 6 bytes each.
        parts.logits = u128{c.train.seq_len} * c.train.micro_batch * ceil_div(m.vocab_size, t) * (2 + 4);
    }
    return parts;
}

bool assign_checked(u128 value, const char* field, std::uint64_t& out, diagnostics& errors) {
    if (value > max_exact_integer) {
        errors.push_back({field, "exceeds " + detail::to_decimal(max_exact_integer) +
                                     " bytes (2^53); the inputs are out of any realistic range"});
        return false;
    }
    out = static_cast<std::uint64_t>(value);
    return true;
}
}  // namespace

estimate_result estimate(const estimate_config& c) {
    estimate_result r;
    r.errors = validate(c);
    if (!r.errors.empty()) return r;
    const model_config& m = c.model;
    const parallel_config& p = c.parallel;

    const auto counted = count_params(m);
    if (!counted.ok()) {
        r.errors = counted.errors;
        return r;
    }
    const u128 params = m.params != 0 ? u128{m.params} : u128{counted.value.total};
    r.params = static_cast<std::uint64_t>(params);
    const std::uint64_t model_parallel = p.tp * p.pp;
    const std::uint64_t dp = p.gpus / model_parallel;
    r.data_parallel = dp;
    // Tensor and pipeline parallelism split the parameters over tp·pp GPUs (Shoeybi et al. 2019 §3;
    // Huang et al. 2019); the busiest GPU holds the rounded-up share.
    const u128 local_params = ceil_div(params, model_parallel);
    // ZeRO shards over the data-parallel group only (Rajbhandari et al. 2020, §5).
    const u128 sharded = ceil_div(local_params, dp);
    if (m.num_hidden_layers % p.pp != 0)
        r.warnings.push_back({"parallel.pp", "does not divide model.num_hidden_layers; every stage is counted "
                                             "with the first stage's ceil(L/pp) layers"});

    u128 weights = 0, gradients = 0, optimizer = 0, activations = 0, logits = 0, communication = 0, kv = 0;
    if (c.mode == run_mode::train) {
        const train_config& t = c.train;
        weights = bytes_of(p.zero_stage >= 3 ? sharded : local_params, t.weight_dtype);
        if (t.optimizer != optimizer_kind::none)
            gradients = bytes_of(p.zero_stage >= 2 ? sharded : local_params, t.grad_dtype);
        optimizer = optimizer_bytes(p.zero_stage >= 1 ? sharded : local_params, t);
        // DeepSpeed keeps an allgather bucket of this many elements (stage ≥ 1) and, at stage 3, up to
        // stage3_max_live_parameters gathered parameters; neither exceeds this GPU's parameters.
        if (p.zero_stage >= 1)
            communication += bytes_of(std::min<u128>(p.zero_bucket_params, local_params), t.weight_dtype);
        if (p.zero_stage >= 3)
            communication += bytes_of(std::min<u128>(p.zero3_max_live_params, local_params), t.weight_dtype);

        const std::uint64_t in_flight = t.microbatches_in_flight != 0 ? t.microbatches_in_flight : p.pp;
        stage_parts busiest = train_stage_parts(c, in_flight, p.pp == 1);
        if (p.pp > 1) {
            // The last stage holds one micro-batch in flight but also the logits; report the larger.
            const stage_parts last = train_stage_parts(c, 1, true);
            if (last.activations + last.logits > busiest.activations + busiest.logits) busiest = last;
        }
        activations = busiest.activations;
        logits = busiest.logits;
    } else {
        const infer_config& inf = c.infer;
        weights = bytes_of(local_params, inf.weight_dtype);
        // KV cache: K and V for every layer, KV head, head dim, token and sequence (Pope et al. 2022,
        // "Efficiently Scaling Transformer Inference", §2); KV heads split over tp, replicated when tp > heads.
        const u128 layers = ceil_div(m.num_hidden_layers, p.pp);
        const u128 heads = ceil_div(resolved_kv_heads(m), p.tp);
        kv = bytes_of(2 * layers * heads * resolved_head_dim(m) * inf.context_len * inf.batch, inf.kv_dtype);
    }

    memory_breakdown& b = r.per_gpu;
    bool ok = assign_checked(weights, "per_gpu.weights", b.weights, r.errors) &&
              assign_checked(gradients, "per_gpu.gradients", b.gradients, r.errors) &&
              assign_checked(optimizer, "per_gpu.optimizer_states", b.optimizer_states, r.errors) &&
              assign_checked(activations, "per_gpu.activations", b.activations, r.errors) &&
              assign_checked(logits, "per_gpu.logits", b.logits, r.errors) &&
              assign_checked(communication, "per_gpu.communication", b.communication, r.errors) &&
              assign_checked(kv, "per_gpu.kv_cache", b.kv_cache, r.errors);
    b.misc = c.misc_bytes;
    const u128 total = weights + gradients + optimizer + activations + logits + communication + kv + c.misc_bytes;
    ok = ok && assign_checked(total, "per_gpu.total", b.total, r.errors);
    if (!ok) {
        r.per_gpu = memory_breakdown{};
        return r;
    }
    if (c.gpu_memory_bytes != 0) {
        r.has_capacity = true;
        r.fits = b.total <= c.gpu_memory_bytes;
        r.headroom_bytes = r.fits ? c.gpu_memory_bytes - b.total : 0;
        r.shortfall_bytes = r.fits ? 0 : b.total - c.gpu_memory_bytes;
    }
    return r;
}

}  // namespace memplan
