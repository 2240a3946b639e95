// One training stage: weights, gradients, optimizer states under ZeRO and offload, activations
// (tensor by tensor, activations.cpp), logits and communication buffers.
#include <algorithm>

#include "stage.hpp"

namespace memplan::detail {

namespace {

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
}  // namespace

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

}  // namespace memplan::detail
