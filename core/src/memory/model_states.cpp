// Model states: parameters per pipeline stage (after tensor and expert parallelism) and the
// optimizer bytes per parameter of each optimizer.
#include <algorithm>

#include "memory/stage.hpp"

namespace memplan::detail {

namespace {
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

}  // namespace

/// Optimizer-state bytes for `shard_params` parameters.
u128 optimizer_bytes(u128 shard_params, const train_config& t, const model_config& m) {
    if (t.optimizer == optimizer_kind::none) return 0;  // frozen weights: no optimizer at all
    // fp32 master copy when the working weights are narrower (Micikevicius et al. 2018, §3.1).
    const u128 master = (t.master_weights && dtype_bits(t.weight_dtype) < 32) ? 4 * shard_params : 0;
    // train.optimizer_state_dtype: moments and factors in fp32 (4 B) or bf16/fp16 (2 B) each
    // (torchao/Lightning bf16 states; the 8-bit optimizer keeps its own format).
    const u128 state = t.optimizer_state_dtype == float_precision::fp32 ? 4 : 2;
    switch (t.optimizer) {
        case optimizer_kind::adam:  // fp32 momentum + variance (Kingma & Ba 2015; ZeRO §3.1, K = 12 with master)
            return master + 2 * state * shard_params;
        case optimizer_kind::adam_8bit:  // int8 momentum + variance, one fp32 absmax per 2048-block each
            // (Dettmers et al. 2022, "8-bit Optimizers via Block-wise Quantization", §2, block size 2048)
            return master + 2 * shard_params + 2 * 4 * ceil_div(shard_params, 2048);
        case optimizer_kind::sgd:  // plain SGD keeps no state
            return master;
        case optimizer_kind::sgd_momentum:  // one fp32 momentum buffer (torch.optim.SGD)
        case optimizer_kind::lion:          // one fp32 momentum (Chen et al. 2023, "Symbolic Discovery", Alg. 1)
            return master + state * shard_params;
        case optimizer_kind::adafactor:  // factored fp32 second moment, no momentum (Shazeer & Stern 2018)
            return master + state * adafactor_elements(shard_params, m);
        case optimizer_kind::none: return 0;
    }
    return 0;
}

/// Layers of stage i: L/pp each, the first L mod pp stages one more (an upper bound when uneven).
u128 layers_of_stage(const model_config& m, std::uint64_t pp, std::uint64_t i) {
    return m.num_hidden_layers / pp + (i < m.num_hidden_layers % pp ? 1 : 0);
}

stage_params params_of_stage(const estimate_config& c, const param_breakdown& counted, std::uint64_t i,
                             bool uniform_layers) {
    const model_config& m = c.model;
    const parallel_config& p = c.parallel;
    stage_params out;
    out.layers = layers_of_stage(m, p.pp, i);
    if (m.params != 0) {
        // An explicit count carries no structure: spread it evenly over tp · pp (upper bound).
        out.dense = ceil_div(ceil_div(m.params, p.pp), p.tp);
        out.linear = out.dense;
        // Stored bytes (model.stored_weight_bytes) spread the same way.
        out.native_bytes = ceil_div(ceil_div(m.stored_weight_bytes, p.pp), p.tp);
        return out;
    }
    // Embeddings (and a vision tower) on the first stage; final norm, output layer and MTP modules on
    // the last, which with tied embeddings keeps its own copy of the embedding matrix (Megatron-LM,
    // Narayanan et al. 2021 §4.1). Layers differ (dense, MoE, hybrid mixers): the stage sums its own.
    // First layer of stage i: the i stages before it hold L/pp layers each and one more each of the
    // first min(i, L mod pp) (layers_of_stage), in closed form rather than summed stage by stage.
    const std::uint64_t first = i * (m.num_hidden_layers / p.pp) + std::min<std::uint64_t>(i, m.num_hidden_layers % p.pp);
    out.first_layer = first;
    layer_params sum;  // the stage's layers and, on the last stage, the MTP modules
    if (uniform_layers && !counted.layers.empty()) {
        // Every layer alike: the stage's layer count (those that exist) times one layer's.
        const std::uint64_t size = counted.layers.size();
        sum = counted.layers.front();
        sum *= first >= size ? 0 : static_cast<std::uint64_t>(std::min<u128>(out.layers, size - first));
    }
    for (std::uint64_t l = first; !uniform_layers && l < first + out.layers && l < counted.layers.size(); ++l)
        sum += counted.layers[static_cast<std::size_t>(l)];
    // Outside the layers, the checkpoint keeps embeddings, norms, output head and vision tower in bf16.
    u128 outside = 0;
    if (i == 0) outside += counted.embedding + counted.vision;
    if (i + 1 == p.pp) {
        outside += counted.lm_head + counted.final_norm;
        sum += counted.mtp_layer;
        if (p.pp > 1 && m.tie_word_embeddings) outside += u128{m.vocab_size} * m.hidden_size;
    }
    const u128 dense = sum.total - sum.experts + outside;
    const u128 native = sum.native_bytes + 2 * outside;
    out.native_bytes = ceil_div(native, p.tp) + ceil_div(sum.native_expert_bytes, u128{p.tp} * p.ep);
    out.native_scales = ceil_div(sum.native_scale_bytes, p.tp);
    out.native_fp32 = ceil_div(sum.native_fp32_bytes, p.tp);
    out.packed = ceil_div(sum.packed_params, p.tp) + ceil_div(sum.packed_expert_params, u128{p.tp} * p.ep);
    // Tensor parallelism splits every matrix (vocabulary-parallel embeddings included, Shoeybi et al.
    // 2019 §3); the replicated norms and row-parallel biases are a rounding error and are split too.
    // Routed experts are split over tp · ep.
    out.dense = ceil_div(dense, p.tp);
    out.experts = ceil_div(sum.experts, u128{p.tp} * p.ep);
    out.linear = ceil_div(sum.linear, p.tp) + ceil_div(sum.expert_linear, u128{p.tp} * p.ep);
    return out;
}

}  // namespace memplan::detail
