// Per-GPU memory of a transformer training step or serving, for the most loaded GPU.
// Every formula names its source or derivation; all arithmetic is exact in 128-bit integers and
// rounded up to a whole byte once, at the end of each part.
#include "memplan/estimate.hpp"

#include <algorithm>
#include <array>

#include "checks.hpp"
#include "memplan/activations.hpp"
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
constexpr name_table<optimizer_kind, 7> optimizer_names{{{{optimizer_kind::adam, "adam"},
                                                           {optimizer_kind::adam_8bit, "adam_8bit"},
                                                           {optimizer_kind::sgd, "sgd"},
                                                           {optimizer_kind::sgd_momentum, "sgd_momentum"},
                                                           {optimizer_kind::lion, "lion"},
                                                           {optimizer_kind::adafactor, "adafactor"},
                                                           {optimizer_kind::none, "none"}}}};
constexpr name_table<offload_target, 3> offload_names{
    {{{offload_target::none, "none"}, {offload_target::cpu, "cpu"}, {offload_target::nvme, "nvme"}}}};
constexpr name_table<norm_kind, 2> norm_names{{{{norm_kind::layernorm, "layernorm"}, {norm_kind::rmsnorm, "rmsnorm"}}}};
constexpr name_table<mlp_kind, 2> mlp_names{{{{mlp_kind::plain, "plain"}, {mlp_kind::gated, "gated"}}}};
}  // namespace

const char* to_string(norm_kind kind) { return norm_names.name(kind); }
const char* to_string(offload_target target) { return offload_names.name(target); }
bool parse_enum(const std::string& name, offload_target& out) { return offload_names.parse(name, out); }
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
    check_range(m.learned_positions, "model.learned_positions", 0, max_tokens, errors);
    check_range(m.norms_per_layer, "model.norms_per_layer", 0, 16, errors);
    check_range(m.num_experts, "model.num_local_experts", 0, max_heads, errors);
    check_range(m.experts_per_token, "model.num_experts_per_tok", 0, max_heads, errors);
    check_range(m.moe_intermediate_size, "model.moe_intermediate_size", 0, max_width, errors);
    check_range(m.shared_expert_intermediate_size, "model.shared_expert_intermediate_size", 0, max_width, errors);
    check_range(m.sliding_window, "model.sliding_window", 0, max_tokens, errors);
    check_range(m.sliding_window_layers, "model.sliding_window_layers", 0, max_heads, errors);

    const parallel_config& p = c.parallel;
    check_range(p.gpus, "parallel.gpus", 1, max_gpu_count, errors);
    check_range(p.tp, "parallel.tp", 1, max_degree, errors);
    check_range(p.pp, "parallel.pp", 1, max_degree, errors);
    check_range(p.cp, "parallel.cp", 1, max_degree, errors);
    check_range(p.ep, "parallel.ep", 1, max_degree, errors);
    check_range(p.virtual_stages, "parallel.virtual_stages", 1, 64, errors);
    if (p.zero_stage < 0 || p.zero_stage > 3) errors.push_back({"parallel.zero_stage", "must be 0, 1, 2 or 3"});
    check_range(p.zero_shard_size, "parallel.zero_shard_size", 0, max_gpu_count, errors);
    check_range(p.zero_bucket_params, "parallel.zero_bucket_params", 0, max_param_count, errors);
    check_range(p.zero3_max_live_params, "parallel.zero3_max_live_params", 0, max_param_count, errors);
    check_range(p.gpus_per_node, "parallel.gpus_per_node", 1, 1024, errors);

    check_range(c.train.micro_batch, "train.micro_batch", 1, max_batch, errors);
    check_range(c.train.seq_len, "train.seq_len", 1, max_tokens, errors);
    check_range(c.train.microbatches_in_flight, "train.microbatches_in_flight", 0, max_batch, errors);
    check_range(c.infer.batch, "infer.batch", 1, max_batch, errors);
    check_range(c.infer.context_len, "infer.context_len", 1, max_tokens, errors);
    check_range(c.infer.quant_group_size, "infer.quant_group_size", 0, max_width, errors);
    check_range(c.infer.prefill_tokens, "infer.prefill_tokens", 0, max_tokens, errors);
    check_range(c.misc_bytes, "overhead.misc_bytes", 0, max_exact_integer, errors);
    check_range(c.gpu_memory_bytes, "gpu.memory_bytes", 0, max_exact_integer, errors);
    if (!errors.empty()) return errors;

    // Layout: every GPU belongs to exactly one (data, tensor, pipeline, context) coordinate.
    const std::uint64_t model_parallel = p.tp * p.pp * p.cp;
    if (p.gpus % model_parallel != 0) {
        errors.push_back({"parallel.gpus", p.cp == 1 ? "must be a multiple of parallel.tp × parallel.pp (" +
                                                           std::to_string(p.tp * p.pp) + ")"
                                                     : "must be a multiple of parallel.tp × parallel.pp × parallel.cp (" +
                                                           std::to_string(model_parallel) + ")"});
        return errors;
    }
    const std::uint64_t replicas = p.gpus / model_parallel * p.cp;  // the ZeRO group: dp × cp
    if (replicas % p.ep != 0)
        errors.push_back({"parallel.ep", "must divide the data-parallel × context-parallel degree (" +
                                             std::to_string(replicas) + ")"});
    if (p.zero_shard_size != 0 && replicas % p.zero_shard_size != 0)
        errors.push_back({"parallel.zero_shard_size", "must divide the data-parallel × context-parallel degree (" +
                                                          std::to_string(replicas) + ")"});
    if (p.offload_params != offload_target::none && p.zero_stage != 3)
        errors.push_back({"parallel.offload_params", "needs parallel.zero_stage 3"});
    if (p.virtual_stages > 1 && p.pp == 1)
        errors.push_back({"parallel.virtual_stages", "needs parallel.pp above 1"});
    if (c.mode == run_mode::train && c.train.seq_len % p.cp != 0)
        errors.push_back({"train.seq_len", "must be a multiple of parallel.cp (" + std::to_string(p.cp) + ")"});
    const bool integer_weights = c.infer.weight_dtype == dtype::int4 || c.infer.weight_dtype == dtype::int8;
    if (c.mode == run_mode::infer && c.infer.quant_group_size != 0 && !integer_weights)
        errors.push_back({"infer.quant_group_size", "applies to int4 and int8 weights only"});
    if (c.infer.prefill_tokens > c.infer.context_len)
        errors.push_back({"infer.prefill_tokens", "must not exceed infer.context_len (" +
                                                      std::to_string(c.infer.context_len) + ")"});

    // Model: an explicit count, or an architecture that determines one; activations and the KV
    // cache need the architecture in any case.
    const bool partial = m.num_hidden_layers != 0 || m.hidden_size != 0 || m.num_attention_heads != 0;
    if (m.params == 0 && !partial)
        errors.push_back({"model.params", "give model.params or the architecture (num_hidden_layers, "
                                          "hidden_size, num_attention_heads)"});
    else if (c.mode == run_mode::train) require_architecture(m, "for activation memory", errors);
    else require_architecture(m, "for the KV cache", errors);
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
    if (p.pp * p.virtual_stages > m.num_hidden_layers)
        errors.push_back({p.virtual_stages > 1 ? "parallel.virtual_stages" : "parallel.pp",
                          "parallel.pp × parallel.virtual_stages must not exceed model.num_hidden_layers (" +
                              std::to_string(m.num_hidden_layers) + ")"});
    if (p.ep > 1 && (m.num_experts == 0 || m.num_experts % p.ep != 0))
        errors.push_back({"parallel.ep", "must divide model.num_local_experts (" + std::to_string(m.num_experts) + ")"});
    return errors;
}

// ---------------------------------------------------------------------------------------------
// Formulas

namespace {

/// Bytes of `elements` values of `type`, rounded up (int4 packs two per byte).
u128 bytes_of(u128 elements, dtype type) { return ceil_div(elements * dtype_bits(type), 8); }

/// Elements of the factored second moment Adafactor keeps (Shazeer & Stern 2018, §3): a row and a
/// column vector per weight matrix, the full size for vectors; approximated per layer by its matrices.
u128 adafactor_elements(u128 shard_params, const model_config& m) {
    const u128 h = m.hidden_size;
    const u128 f = m.num_experts != 0 && m.moe_intermediate_size != 0 ? m.moe_intermediate_size : resolved_ffn(m);
    // One block's matrices are h×h-ish (attention) and h×f (MLP); their row+column vectors relative to
    // their size give the state fraction: (r + c) / (r · c) per element.
    const u128 matrix_elements = 4 * h * h + 3 * h * f;
    const u128 factored = 4 * (h + h) + 3 * (h + f);
    return ceil_div(shard_params * factored, matrix_elements);
}

/// Optimizer-state bytes for `shard_params` parameters.
u128 optimizer_bytes(u128 shard_params, const train_config& t, const model_config& m) {
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
        case optimizer_kind::adafactor:  // factored fp32 second moment, no momentum (Shazeer & Stern 2018)
            return master + 4 * adafactor_elements(shard_params, m);
        case optimizer_kind::none: return 0;
    }
    return 0;
}

/// One layer's shape on this GPU for the tensor-by-tensor activation model (activations.cpp).
layer_activation_input layer_shape(const estimate_config& c, u128 s_local, bool checkpoint_sharded) {
    layer_activation_input in;
    in.model = c.model;
    in.seq_len = static_cast<std::uint64_t>(s_local);
    in.micro_batch = c.train.micro_batch;
    in.tp = c.parallel.tp;
    // DeepSpeed's partitioned activations shard the checkpointed layer inputs over tp like SP does.
    in.sequence_parallel = c.parallel.sequence_parallel || checkpoint_sharded;
    in.flash_attention = c.train.flash_attention;
    in.activation_dtype = dtype::bf16;
    return in;
}

/// Parameters of one pipeline stage, split into the parts sharded differently.
struct stage_params {
    u128 layers = 0;
    u128 dense = 0;     ///< on this GPU after tp (attention, norms, shared parts, embeddings)
    u128 experts = 0;   ///< on this GPU after tp and ep
    u128 linear = 0;    ///< block linear weights on this GPU (what quantization packs)
};

/// Layers of stage i: L/pp each, the first L mod pp stages one more (an upper bound when uneven).
u128 layers_of_stage(const model_config& m, std::uint64_t pp, std::uint64_t i) {
    return m.num_hidden_layers / pp + (i < m.num_hidden_layers % pp ? 1 : 0);
}

stage_params params_of_stage(const estimate_config& c, const param_breakdown& counted, std::uint64_t i) {
    const model_config& m = c.model;
    const parallel_config& p = c.parallel;
    stage_params out;
    out.layers = layers_of_stage(m, p.pp, i);
    if (m.params != 0) {
        // An explicit count carries no structure: spread it evenly over tp · pp (upper bound).
        out.dense = ceil_div(ceil_div(m.params, p.pp), p.tp);
        out.linear = out.dense;
        return out;
    }
    // Embeddings on the first stage; final norm and output layer on the last, which with tied
    // embeddings keeps its own copy of the embedding matrix (Megatron-LM, Narayanan et al. 2021 §4.1).
    u128 dense = out.layers * (counted.per_layer - counted.per_layer_experts);
    if (i == 0) dense += counted.embedding;
    if (i + 1 == p.pp) {
        dense += counted.lm_head + counted.final_norm;
        if (p.pp > 1 && m.tie_word_embeddings) dense += u128{m.vocab_size} * m.hidden_size;
    }
    // Tensor parallelism splits every matrix (vocabulary-parallel embeddings included, Shoeybi et al.
    // 2019 §3); the replicated norms and row-parallel biases are a rounding error and are split too.
    out.dense = ceil_div(dense, p.tp);
    out.experts = ceil_div(out.layers * counted.per_layer_experts, u128{p.tp} * p.ep);
    out.linear = ceil_div(out.layers * counted.per_layer_linear, p.tp) +
                 ceil_div(out.layers * counted.per_layer_expert_linear, u128{p.tp} * p.ep);
    return out;
}

/// Parts of one stage, in 128 bits before the range check.
struct parts128 {
    u128 weights = 0, gradients = 0, optimizer = 0, activations = 0, logits = 0, communication = 0, kv = 0;
    u128 host = 0, nvme = 0, quant_overhead = 0, kv_per_token = 0, layer_activation = 0, in_flight = 0;
    std::vector<activation_tensor> layer_tensors;  ///< what one layer keeps for one micro-batch (training)
    u128 total() const { return weights + gradients + optimizer + activations + logits + communication + kv; }
};

parts128 train_stage(const estimate_config& c, const param_breakdown& counted, std::uint64_t i) {
    const model_config& m = c.model;
    const parallel_config& p = c.parallel;
    const train_config& t = c.train;
    const stage_params sp = params_of_stage(c, counted, i);
    parts128 r;

    // ZeRO shards over the data-parallel group, which with context parallelism is dp × cp (Megatron's
    // distributed optimizer); experts over the ranks holding the same experts, dp × cp / ep.
    const u128 replicas = u128{p.gpus} / (u128{p.tp} * p.pp * p.cp) * p.cp;
    const u128 dense_group = p.zero_shard_size != 0 ? u128{p.zero_shard_size} : replicas;
    const u128 expert_group = std::max<u128>(1, std::min<u128>(dense_group, replicas / p.ep));
    auto sharded = [&](bool shard) {
        return shard ? ceil_div(sp.dense, dense_group) + ceil_div(sp.experts, expert_group) : sp.dense + sp.experts;
    };
    const u128 local = sp.dense + sp.experts;
    const u128 w_elems = sharded(p.zero_stage >= 3);
    const u128 g_elems = sharded(p.zero_stage >= 2);
    const u128 o_elems = sharded(p.zero_stage >= 1);

    // Weights: fp8 training (Transformer Engine) keeps bf16 parameters and caches their fp8 cast
    // for the GEMMs: 2 + 1 bytes each (TE fp8 weight caching).
    const u128 weight_bytes = t.weight_dtype == dtype::fp8 ? 3 * w_elems : bytes_of(w_elems, t.weight_dtype);
    const u128 grad_bytes = t.optimizer == optimizer_kind::none ? 0 : bytes_of(g_elems, t.grad_dtype);
    const u128 opt_bytes = optimizer_bytes(o_elems, t, m);
    r.weights = p.offload_params == offload_target::none ? weight_bytes : 0;
    // ZeRO-Offload (Ren et al. 2021, §4.1): optimizer states, fp32 master weights and the gradients
    // they update live in host memory; gradients leave the GPU bucket by bucket.
    const bool offload_opt = p.offload_optimizer != offload_target::none && t.optimizer != optimizer_kind::none;
    r.gradients = offload_opt ? 0 : grad_bytes;
    r.optimizer = offload_opt ? 0 : opt_bytes;
    const u128 offloaded = (offload_opt ? opt_bytes + 4 * g_elems : 0);
    const u128 offloaded_params = p.offload_params != offload_target::none ? weight_bytes : 0;
    (p.offload_optimizer == offload_target::nvme ? r.nvme : r.host) += offloaded;
    (p.offload_params == offload_target::nvme ? r.nvme : r.host) += offloaded_params;

    // DeepSpeed keeps an allgather bucket (stage ≥ 1) and, at stage 3, up to stage3_max_live_parameters
    // gathered parameters; neither exceeds this GPU's parameters.
    if (p.zero_stage >= 1) r.communication += bytes_of(std::min<u128>(p.zero_bucket_params, local), t.weight_dtype);
    if (p.zero_stage >= 3) r.communication += bytes_of(std::min<u128>(p.zero3_max_live_params, local), t.weight_dtype);

    // Activations. 1F1B: stage i holds pp − i micro-batches (Narayanan et al. 2021, §2.2; Korthikanti §4.2.3).
    const u128 first_in_flight = t.microbatches_in_flight != 0 ? t.microbatches_in_flight : p.pp;
    const u128 in_flight = first_in_flight > i ? first_in_flight - i : 1;
    const u128 s_local = u128{t.seq_len} / p.cp;  // context parallelism splits the sequence
    const u128 tp = p.tp;
    const bool full = t.recompute == recompute_mode::full;
    const auto kept_tensors =
        stored_activation_tensors(layer_shape(c, s_local, full && p.partition_activations), t.recompute);
    const u128 kept = total_bytes(kept_tensors);
    u128 numerator = sp.layers * in_flight * kept;
    u128 denominator = 1;
    if (i == 0 && p.virtual_stages > 1) {
        // Interleaved 1F1B holds (1 + (pp − 1)/(pp · v)) times as much on the first stage
        // (Narayanan et al. 2021 §2.2.1; Megatron-LM theoretical_memory_usage.py).
        const u128 pv = u128{p.pp} * p.virtual_stages;
        numerator *= pv + p.pp - 1;
        denominator = pv;
    }
    r.activations = ceil_div(numerator, denominator);
    if (full)  // one layer re-run in backward holds its full working set (Korthikanti §5)
        r.activations += total_bytes(layer_activation_tensors(layer_shape(c, s_local, false)));
    if (i == 0) {
        // The embedding's backward keeps the int64 token ids, 8 bytes per token (Megatron-LM
        // theoretical_memory_usage.py, "input to embedding"), whole on every tensor-parallel rank.
        r.activations += in_flight * s_local * t.micro_batch * 8;
        if (m.dropout)  // embedding dropout mask, 1 byte per element (Korthikanti §4.3)
            r.activations += ceil_div(in_flight * s_local * t.micro_batch * m.hidden_size,
                                      p.sequence_parallel ? tp : u128{1});
    }
    r.layer_tensors = kept_tensors;
    r.layer_activation = kept;
    r.in_flight = in_flight;
    if (i + 1 == p.pp && m.vocab_size != 0) {
        // Output logits s·b·V/t in the 2-byte activation dtype plus the fp32 softmax that the
        // vocabulary-parallel cross entropy keeps for backward (Megatron-LM cross_entropy.py): 6 bytes each.
        r.logits = s_local * t.micro_batch * ceil_div(m.vocab_size, tp) * (2 + 4);
    }
    return r;
}

parts128 infer_stage(const estimate_config& c, const param_breakdown& counted, std::uint64_t i) {
    const model_config& m = c.model;
    const parallel_config& p = c.parallel;
    const infer_config& inf = c.infer;
    const stage_params sp = params_of_stage(c, counted, i);
    parts128 r;

    // Weights: block linear weights in the chosen dtype; embeddings, norms and biases stay bf16 when
    // the linear weights are quantized (as GPTQ and AWQ checkpoints keep them).
    const u128 local = sp.dense + sp.experts;
    const bool quantized = dtype_bits(inf.weight_dtype) < 16;
    const u128 packed = quantized ? sp.linear : local;
    r.weights = bytes_of(packed, inf.weight_dtype) + bytes_of(local - packed, quantized ? dtype::bf16 : inf.weight_dtype);
    if (inf.quant_group_size != 0) {
        // Group-wise quantization: one fp16 scale and one zero point of the weight width per group of G
        // weights (Frantar et al. 2023, GPTQ §4; Lin et al. 2024, AWQ §3).
        r.quant_overhead = ceil_div(ceil_div(packed, inf.quant_group_size) * (16 + dtype_bits(inf.weight_dtype)), 8);
        r.weights += r.quant_overhead;
    }

    // KV cache: K and V for every layer, KV head, head dim, token and sequence (Pope et al. 2022,
    // "Efficiently Scaling Transformer Inference", §2); KV heads split over tp, replicated when tp
    // exceeds them; context parallelism splits the tokens.
    const u128 layers = sp.layers;
    const u128 sliding_total = resolved_sliding_layers(m);
    const u128 sliding = ceil_div(layers * sliding_total, m.num_hidden_layers);
    const u128 heads = ceil_div(resolved_kv_heads(m), p.tp);
    const u128 per_token_layer = 2 * heads * resolved_head_dim(m);
    const u128 full_tokens = ceil_div(inf.context_len, p.cp);
    // Sliding-window layers cache at most `window` tokens (Beltagy et al. 2020; Jiang et al. 2023, Mistral §2).
    const u128 window_tokens = ceil_div(std::min<u128>(inf.context_len, m.sliding_window), p.cp);
    const u128 elements = per_token_layer * inf.batch * ((layers - sliding) * full_tokens + sliding * window_tokens);
    r.kv = bytes_of(elements, inf.kv_dtype);
    r.kv_per_token = bytes_of(per_token_layer * layers, inf.kv_dtype);

    // Forward workspace: the largest set of tensors live at once inside one layer during prefill of
    // batch × prefill tokens (derivation: residual + normed input + the widest intermediates).
    const u128 tp = p.tp;
    const u128 h = m.hidden_size;
    const u128 d = resolved_head_dim(m);
    const u128 prefill = ceil_div(inf.prefill_tokens != 0 ? inf.prefill_tokens : inf.context_len, p.cp);
    const u128 tokens = u128{inf.batch} * prefill;
    const u128 q_width = ceil_div(u128{m.num_attention_heads} * d, tp);
    const u128 kv_width = heads * d;
    u128 attention_live = 2 * h + 2 * q_width + 2 * kv_width;  // residual, normed, q, k, v, attention output
    u128 ffn = resolved_ffn(m);
    if (m.num_experts != 0)  // routed copies of each token: top-k experts plus the shared expert
        ffn = u128{m.experts_per_token} * (m.moe_intermediate_size != 0 ? m.moe_intermediate_size : resolved_ffn(m)) +
              m.shared_expert_intermediate_size;
    const u128 mlp_live = 2 * h + (m.mlp == mlp_kind::gated ? 3 : 2) * ceil_div(ffn, tp);  // gate, up, product
    u128 workspace = tokens * std::max(attention_live, mlp_live) * 2;  // bf16 activations
    if (!inf.flash_attention)  // eager attention materialises fp16 scores and softmax: 2 + 2 bytes each
        workspace += u128{inf.batch} * ceil_div(m.num_attention_heads, tp) * prefill * prefill * 4;
    r.activations = workspace;
    if (i + 1 == p.pp && m.vocab_size != 0)  // last position's logits: bf16 output + fp32 copy for sampling
        r.logits = u128{inf.batch} * m.vocab_size * (2 + 4);
    return r;
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
    const param_breakdown& pb = counted.value;
    r.params = m.params != 0 ? m.params : pb.total;
    r.data_parallel = p.gpus / (p.tp * p.pp * p.cp);
    if (m.num_hidden_layers % p.pp != 0)
        r.warnings.push_back({"parallel.pp", "does not divide model.num_hidden_layers; the first stages get one "
                                             "layer more"});
    if (m.params != 0 && m.vocab_size != 0) {  // without a vocabulary the count is incomplete
        const u128 diff = pb.total > m.params ? pb.total - m.params : m.params - pb.total;
        if (diff * 100 > m.params)
            r.warnings.push_back({"model.params", "differs by more than 1% from the architecture's count (" +
                                                      detail::to_decimal(pb.total) +
                                                      "); the explicit count is used, spread evenly over stages"});
    }

    // Every pipeline stage is computed; the most loaded one is reported (first-stage activations
    // against last-stage logits and output layer).
    parts128 busiest;
    std::uint64_t busiest_stage = 0;
    for (std::uint64_t i = 0; i < p.pp; ++i) {
        const parts128 s = c.mode == run_mode::train ? train_stage(c, pb, i) : infer_stage(c, pb, i);
        if (i == 0 || s.total() > busiest.total()) {
            busiest = s;
            busiest_stage = i;
        }
    }

    memory_breakdown& b = r.per_gpu;
    bool ok = assign_checked(busiest.weights, "per_gpu.weights", b.weights, r.errors) &&
              assign_checked(busiest.gradients, "per_gpu.gradients", b.gradients, r.errors) &&
              assign_checked(busiest.optimizer, "per_gpu.optimizer_states", b.optimizer_states, r.errors) &&
              assign_checked(busiest.activations, "per_gpu.activations", b.activations, r.errors) &&
              assign_checked(busiest.logits, "per_gpu.logits", b.logits, r.errors) &&
              assign_checked(busiest.communication, "per_gpu.communication", b.communication, r.errors) &&
              assign_checked(busiest.kv, "per_gpu.kv_cache", b.kv_cache, r.errors);
    b.misc = c.misc_bytes;
    ok = ok && assign_checked(busiest.total() + c.misc_bytes, "per_gpu.total", b.total, r.errors);
    // Host memory per node: every GPU of the node offloads its own shard.
    const u128 gpus_in_node = std::min<u128>(p.gpus, p.gpus_per_node);
    estimate_details& d = r.details;
    ok = ok && assign_checked(busiest.host * gpus_in_node, "details.host_bytes_per_node", d.host_bytes_per_node, r.errors) &&
         assign_checked(busiest.nvme * gpus_in_node, "details.nvme_bytes_per_node", d.nvme_bytes_per_node, r.errors);
    if (!ok) {
        r.per_gpu = memory_breakdown{};
        r.details = estimate_details{};
        return r;
    }
    d.params_active = m.params != 0 ? m.params : pb.active;
    const stage_params sp = params_of_stage(c, pb, busiest_stage);
    d.params_on_gpu = static_cast<std::uint64_t>(sp.dense + sp.experts);
    d.stage = busiest_stage;
    d.layers_on_gpu = static_cast<std::uint64_t>(sp.layers);
    d.microbatches_in_flight = static_cast<std::uint64_t>(busiest.in_flight);
    d.layer_activation_bytes = static_cast<std::uint64_t>(busiest.layer_activation);
    d.quantization_overhead_bytes = static_cast<std::uint64_t>(busiest.quant_overhead);
    d.kv_cache_bytes_per_token = static_cast<std::uint64_t>(busiest.kv_per_token);
    d.layer_activations = busiest.layer_tensors;

    if (c.gpu_memory_bytes != 0) {
        r.has_capacity = true;
        r.fits = b.total <= c.gpu_memory_bytes;
        r.headroom_bytes = r.fits ? c.gpu_memory_bytes - b.total : 0;
        r.shortfall_bytes = r.fits ? 0 : b.total - c.gpu_memory_bytes;
    }
    return r;
}

}  // namespace memplan
