// One training stage: weights, gradients, optimizer states under ZeRO and offload, activations
// (tensor by tensor, activations.cpp), logits and communication buffers.
#include <algorithm>

#include "memplan/model/adapters.hpp"
#include "memplan/memory/comm_buffers.hpp"
#include "memplan/memory/frameworks.hpp"
#include "memory/stage.hpp"

namespace memplan::detail {

namespace {

/// One layer's shape on this GPU for the tensor-by-tensor activation model (activations.cpp).
/// in.model is left empty: the model is passed by reference (stored_activation_bytes), never copied.
layer_activation_input layer_shape(const estimate_config& c, u128 s_local, bool checkpoint_sharded) {
    layer_activation_input in;
    in.seq_len = static_cast<std::uint64_t>(s_local);
    in.micro_batch = c.train.micro_batch;
    in.tp = c.parallel.tp;
    // DeepSpeed's partitioned activations shard the checkpointed layer inputs over tp like SP does.
    in.sequence_parallel = c.parallel.sequence_parallel || checkpoint_sharded;
    in.flash_attention = c.train.flash_attention;
    in.activation_dtype = dtype::bf16;
    in.kernels = c.train.kernels;
    if (c.train.adapter_type != adapter_kind::none) {
        in.adapter.enabled = true;
        in.adapter.rank = c.train.adapter_rank;
        in.adapter.dropout = c.train.adapter_dropout;
        in.adapter.dora = c.train.adapter_type == adapter_kind::dora;
        in.adapter.base_keeps_inputs = c.train.base_keeps_inputs;
        in.adapter.targets = adapted_linear_names(c.model, c.train);
    }
    return in;
}

dtype as_dtype(float_precision p) {
    return p == float_precision::fp32 ? dtype::fp32 : p == float_precision::bf16 ? dtype::bf16 : dtype::fp16;
}
}  // namespace

train_layer train_layer_activations(const estimate_config& c, bool want_tensors) {
    const parallel_config& p = c.parallel;
    const train_config& t = c.train;
    const u128 s_local = u128{t.seq_len} / p.cp;  // context parallelism splits the sequence
    const bool full = t.recompute == recompute_mode::full;
    train_layer out;
    const layer_activation_input kept_shape = layer_shape(c, s_local, full && p.partition_activations);
    out.kept = stored_activation_bytes(c.model, kept_shape, t.recompute, want_tensors ? &out.tensors : nullptr);
    // One layer re-run in backward holds its full working set (Korthikanti §5); with train.recompute_layers
    // the layers that do not recompute keep that same set.
    if (full) {
        out.working_set = stored_activation_bytes(c.model, layer_shape(c, s_local, false), recompute_mode::none);
        // The re-run reads the checkpoint in place (it is already in `kept`): derivation, the recomputed
        // forward's first input is that tensor. Partitioned checkpoints are gathered into a new whole input.
        out.rerun = p.partition_activations ? out.working_set : out.working_set - std::min(out.working_set, out.kept);
    }
    // Under torchtitan's op-level policy the re-run layer adds its working set less what it keeps and reuses.
    if (t.recompute == recompute_mode::selective_op)
        out.rerun = out.working_set = selective_op_recompute_bytes(c.model, layer_shape(c, s_local, false));
    if (t.adapter_type != adapter_kind::none) {  // the same for every stage; validated in validate()
        out.finetune = count_finetune_params(c.model, t).value;
        out.frozen_base = count_frozen_base(c.model, t).value;
    }
    return out;
}

parts128 train_stage(const estimate_config& c, const param_breakdown& counted, std::uint64_t i, const train_layer& layer) {
    const model_config& m = c.model;
    const parallel_config& p = c.parallel;
    const train_config& t = c.train;
    const stage_params sp = params_of_stage(c, counted, i, layer.uniform_layers);
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
    const bool adapter = t.adapter_type != adapter_kind::none;
    const bool first = i == 0, last = i + 1 == p.pp;
    const u128 tp_ep = u128{p.tp} * p.ep;
    // Trainable elements of this stage after tp/ep (dense, experts): every parameter, or the adapters
    // and modules_to_save copies; and the same for one layer (optimizer in backward).
    u128 train_dense = sp.dense, train_experts = sp.experts;
    u128 layer_dense = ceil_div(u128{counted.per_layer - counted.per_layer_experts}, p.tp);
    u128 layer_experts = ceil_div(u128{counted.per_layer_experts}, tp_ep);
    u128 edge = std::max<u128>(first ? ceil_div(u128{counted.embedding}, p.tp) : 0,
                               last ? ceil_div(u128{counted.lm_head} + (p.pp > 1 && m.tie_word_embeddings ? u128{m.vocab_size} * m.hidden_size : 0), p.tp) : 0);
    finetune_params fp;
    frozen_base_bytes fb;
    if (adapter) {
        fp = layer.finetune;  // counted once per estimate (train_layer_activations)
        fb = layer.frozen_base;
        train_dense = ceil_div(sp.layers * fp.per_layer + (first ? fp.first_stage : 0) + (last ? fp.last_stage : 0), p.tp);
        train_experts = ceil_div(sp.layers * fp.per_layer_experts, tp_ep);
        layer_dense = ceil_div(u128{fp.per_layer}, p.tp);
        layer_experts = ceil_div(u128{fp.per_layer_experts}, tp_ep);
        edge = std::max<u128>(first ? ceil_div(u128{fp.first_stage}, p.tp) : 0, last ? ceil_div(u128{fp.last_stage}, p.tp) : 0);
    }
    auto trainable_sharded = [&](bool shard) {
        return shard ? ceil_div(train_dense, dense_group) + ceil_div(train_experts, expert_group) : train_dense + train_experts;
    };
    const u128 w_elems = adapter ? trainable_sharded(p.zero_stage >= 3) : sharded(p.zero_stage >= 3);
    u128 g_elems = adapter ? trainable_sharded(p.zero_stage >= 2) : sharded(p.zero_stage >= 2);
    const u128 o_elems = adapter ? trainable_sharded(p.zero_stage >= 1) : sharded(p.zero_stage >= 1);
    // One layer's trainable elements (or the embedding's / output layer's, whichever is larger).
    const u128 one_layer = std::max<u128>(layer_dense + layer_experts, edge);
    if (t.optimizer_in_backward) {
        // The optimizer steps each parameter as soon as its gradient is complete and frees the gradient
        // (PyTorch register_post_accumulate_grad_hook; torchtune optimizer_in_bwd): one layer's gradients
        // are alive at a time.
        g_elems = std::min(g_elems, p.zero_stage >= 2 ? ceil_div(one_layer, dense_group) : one_layer);
    }

    // Weights: fp8 training (Transformer Engine) keeps bf16 parameters and caches their fp8 cast
    // for the GEMMs: 2 + 1 bytes each (TE fp8 weight caching). Adapters: the frozen base as stored
    // (memplan/adapters.hpp) plus the trainable weights in train.adapter_dtype.
    const dtype trainable_dtype = adapter ? as_dtype(t.adapter_dtype) : t.weight_dtype;
    u128 weight_bytes = t.weight_dtype == dtype::fp8 && !adapter ? 3 * w_elems : bytes_of(w_elems, trainable_dtype);
    if (adapter) {
        r.trainable_weights = weight_bytes;
        // Frozen base of this stage: blocks, embeddings on the first stage, lm_head and final norm on the
        // last (its own copy of tied embeddings when pp > 1); split over tp (experts over tp · ep) and, at
        // ZeRO stage 3 / FSDP FULL_SHARD, over the shard group like any parameter.
        const u128 base_dense = ceil_div(sp.layers * fb.per_layer + (first ? fb.embedding : 0) +
                                             (last ? fb.output + (p.pp > 1 ? fb.tied_output_copy : 0) : 0),
                                         p.tp);
        const u128 base_experts = ceil_div(sp.layers * fb.per_layer_experts, tp_ep);
        r.base_weights = p.zero_stage >= 3 ? ceil_div(base_dense, dense_group) + ceil_div(base_experts, expert_group)
                                           : base_dense + base_experts;
        weight_bytes += r.base_weights;
        // A 4-bit or int8 linear is dequantized to bf16 for its matmuls, forward and backward
        // (bitsandbytes MatMul4Bit / MatMul8bitLt): one layer's largest weight at a time.
        if (t.base_dtype == base_precision::nf4 || t.base_dtype == base_precision::fp4 || t.base_dtype == base_precision::int8)
            r.dequant = 2 * ceil_div(u128{fb.largest_linear_elements}, p.tp);
        // DoRA builds the dense update B·A and W + s·B·A of a layer (d_out × d_in each, adapter dtype) to
        // take the column norms (PEFT tuners/lora/dora.py, DoraLinearLayer.get_weight_norm): a transient
        // workspace of the largest adapted linear, counted with the dequantization buffer.
        if (t.adapter_type == adapter_kind::dora)
            r.dequant += 2 * u128{precision_bytes(t.adapter_dtype)} * ceil_div(u128{fp.largest_adapted_elements}, p.tp);
    }
    train_config states = t;
    states.weight_dtype = trainable_dtype;  // a master copy only for trainable weights narrower than 32 bits
    const u128 grad_bytes = t.optimizer == optimizer_kind::none ? 0 : bytes_of(g_elems, adapter ? trainable_dtype : t.grad_dtype);
    u128 opt_bytes = optimizer_bytes(o_elems, states, m);
    if (adapter && t.optimizer == optimizer_kind::adafactor && fp.per_layer + fp.per_layer_experts != 0) {
        // Adafactor on adapters: the factored state of the adapter matrices (row + column per matrix).
        train_config plain = states;
        plain.optimizer = optimizer_kind::sgd;  // the master copy alone
        const u128 factored = ceil_div(o_elems * fp.per_layer_factored, u128{fp.per_layer} + fp.per_layer_experts);
        opt_bytes = optimizer_bytes(o_elems, plain, m) + factored * (t.optimizer_state_dtype == float_precision::fp32 ? 4 : 2);
    }
    // The optimizer step's temporaries: torch.optim.Adam/AdamW with foreach (PyTorch's default for CUDA
    // tensors) writes the square root of every second moment of a parameter group into a new tensor list
    // before the update (pytorch/pytorch torch/optim/adam.py at dc80ccded5385cca3e777472d64cfe3d874fad89,
    // _multi_tensor_adam: exp_avg_sq_sqrt = torch._foreach_sqrt(device_exp_avg_sqs)): one element of the
    // state dtype per stepped element; stepped layer by layer under optimizer-in-backward. DeepSpeed's
    // FusedAdam (deepspeed/ops/adam/fused_adam.py, multi_tensor_applier) and the 8-bit kernels update in
    // place; the other optimizers are counted without temporaries (docs in core/data/explanations.json).
    const bool offload_step = p.offload_optimizer != offload_target::none;
    // A framework whose AdamW is the fused kernel (torch.optim.AdamW(fused=True), in place) has none
    // (memplan/memory/frameworks.hpp).
    const framework_conventions& framework = conventions_of(t.framework);
    // bitsandbytes' optimizers (every paged one) update in place in their own kernels, no temporaries
    // (bitsandbytes/optim/optimizer.py at 95f9af309d4d5793847169c39288dcd3fcbdf564, update_step).
    if (t.optimizer == optimizer_kind::adam && !offload_step && p.comm_buffers != comm_buffer_model::deepspeed &&
        !framework.fused_optimizer && !t.paged_optimizer) {
        const u128 stepped = t.optimizer_in_backward ? std::min(o_elems, p.zero_stage >= 1 ? ceil_div(one_layer, dense_group) : one_layer)
                                                     : o_elems;
        r.optimizer_temp = stepped * (t.optimizer_state_dtype == float_precision::fp32 ? 4 : 2);
    }
    r.weights = p.offload_params == offload_target::none ? weight_bytes : 0;
    r.weight_by_dtype = {{to_string(t.weight_dtype), r.weights}};
    // ZeRO-Offload (Ren et al. 2021, §4.1): optimizer states, fp32 master weights and the gradients
    // they update live in host memory; gradients leave the GPU bucket by bucket.
    const bool offload_opt = p.offload_optimizer != offload_target::none && t.optimizer != optimizer_kind::none;
    r.gradients = offload_opt ? 0 : grad_bytes;
    if (t.paged_optimizer && !offload_opt) {
        // bitsandbytes paged optimizers allocate each state buffer of a parameter with at least 1e5
        // elements in CUDA unified memory, outside PyTorch's caching allocator (bitsandbytes at
        // 95f9af309d4d5793847169c39288dcd3fcbdf564: optim/optimizer.py get_state_buffer -> functional.py
        // get_paged -> csrc/pythonInterface.cpp cget_managed_ptr, cudaMallocManaged): neither
        // torch.cuda.max_memory_allocated nor max_memory_reserved counts them, so they leave per_gpu and
        // the phases. The 8-bit absmax buffers are torch.zeros on the device (init_state) and stay; so does
        // a master copy, which is not bitsandbytes'. Smaller parameters' states (norm vectors, under 1e5
        // elements) are counted paged too: at most a few MB.
        train_config moments = states;
        moments.master_weights = false;  // optimizer_bytes less the master copy (model_states.cpp)
        const u128 absmax = t.optimizer == optimizer_kind::adam_8bit ? 2 * 4 * ceil_div(o_elems, 2048) : 0;  // model_states.cpp adam_8bit
        const u128 moment_bytes = optimizer_bytes(o_elems, moments, m);
        r.paged_states = moment_bytes > absmax ? moment_bytes - absmax : 0;
    }
    r.optimizer = offload_opt ? 0 : opt_bytes - r.paged_states;
    const u128 offloaded = (offload_opt ? opt_bytes + 4 * g_elems : 0);
    const u128 offloaded_params = p.offload_params != offload_target::none ? weight_bytes : 0;
    (p.offload_optimizer == offload_target::nvme ? r.nvme : r.host) += offloaded;
    (p.offload_params == offload_target::nvme ? r.nvme : r.host) += offloaded_params;

    // DeepSpeed keeps an allgather bucket (stage ≥ 1) and, at stage 3, up to stage3_max_live_parameters
    // gathered parameters; neither exceeds this GPU's parameters.
    // train.framework deepspeed implies DeepSpeed's buffers (memplan/memory/frameworks.hpp).
    const bool deepspeed_buffers = p.comm_buffers == comm_buffer_model::deepspeed || t.framework == train_framework::deepspeed;
    if (!adapter && deepspeed_buffers && p.zero_stage >= 1) {
        // As DeepSpeed allocates them (deepspeed/runtime/zero/stage_1_and_2.py, stage3.py; the terms
        // and their sources are in reference.cpp deepspeed_comm_buffer_bytes).
        deepspeed_comm_config d;
        d.stage = p.zero_stage;
        d.reduce_bucket_size = p.reduce_bucket_params;
        d.allgather_bucket_size = p.zero_bucket_params;
        d.overlap_comm = p.overlap_comm == overlap_setting::auto_default ? -1 : p.overlap_comm == overlap_setting::on ? 1 : 0;
        d.prefetch_bucket_size = p.stage3_prefetch_bucket_params;
        d.max_live_parameters = p.zero3_max_live_params;
        d.bytes_per_element = std::max<std::uint64_t>(1, dtype_bits(t.weight_dtype) / 8);
        d.largest_layer_params = m.params == 0 ? deepspeed_largest_layer_params(m) : 0;
        r.communication += deepspeed_comm_buffer_bytes(d).allocated_bytes;
    } else if (!adapter && (framework.fsdp2_buffers || p.fsdp != fsdp_strategy::unset) && p.zero_stage >= 3) {
        // PyTorch FSDP named (parallel.fsdp full_shard or hybrid_shard), FSDP1 as FSDP2: one flat parameter
        // per wrapped block, all-gathered before use, the next one prefetched (BackwardPrefetch.BACKWARD_PRE),
        // at most two all-gathers in flight (limit_all_gathers, default True: torch/distributed/fsdp/
        // _runtime_utils.py _unshard with _FreeEventQueue of two), and the block's unsharded gradient flat
        // parameter reduce-scattered: the same units as FSDP2's below, not DeepSpeed's buckets.
        // FSDP2 (torch.distributed.fsdp.fully_shard, one unit per block and one each for the embedding and
        // the output layer) all-gathers a unit's parameters in the bf16 param_dtype just before use and
        // prefetches the next unit's, forward and backward: two units of 2 bytes each; a unit's backward
        // leaves its unsharded bf16 gradients, copied into an fp32 reduce-scatter input (reduce_dtype
        // fp32): 2 + 4 bytes each, until the copy-in frees the gradients (pytorch/pytorch
        // torch/distributed/fsdp/_fully_shard/_fsdp_collectives.py at 010ae4a89516fa3be548ab16dff711414ec12d0b,
        // foreach_all_gather; foreach_reduce: reduce_scatter_input in reduce_dtype, then
        // unsharded_grads.clear()). Counted at the largest unit: a block, the embedding or the output layer.
        r.communication += 2 * 2 * one_layer + (2 + 4) * one_layer;
    } else if (!adapter) {
        if (p.zero_stage >= 1) r.communication += bytes_of(std::min<u128>(p.zero_bucket_params, local), t.weight_dtype);
        if (p.zero_stage >= 3) r.communication += bytes_of(std::min<u128>(p.zero3_max_live_params, local), t.weight_dtype);
    } else {
        // Buckets of trainable gradients; at stage 3 the gathered parameters as stored (frozen base and
        // adapters), prorated by element.
        const u128 trainable_local = train_dense + train_experts;
        if (p.zero_stage >= 1)
            r.communication += bytes_of(std::min<u128>(p.zero_bucket_params, trainable_local), trainable_dtype);
        if (p.zero_stage >= 3 && local != 0) {
            const u128 base_local = ceil_div(sp.layers * fb.per_layer + (first ? fb.embedding : 0) +
                                                 (last ? fb.output + (p.pp > 1 ? fb.tied_output_copy : 0) : 0),
                                             p.tp) +
                                    ceil_div(sp.layers * fb.per_layer_experts, tp_ep);
            r.communication += ceil_div(std::min<u128>(p.zero3_max_live_params, local) * base_local, local);
        }
    }

    // Activations. 1F1B: stage i holds pp − i micro-batches (Narayanan et al. 2021, §2.2; Korthikanti §4.2.3).
    const u128 first_in_flight = t.microbatches_in_flight != 0 ? t.microbatches_in_flight : p.pp;
    const u128 in_flight = first_in_flight > i ? first_in_flight - i : 1;
    const u128 s_local = u128{t.seq_len} / p.cp;  // context parallelism splits the sequence
    const u128 tp = p.tp;
    const bool full = t.recompute == recompute_mode::full;
    const u128 kept = layer.kept;  // the same for every stage: computed once (train_layer_activations)
    // train.recompute_layers N (full recompute only, N ≤ the stage's layers): N layers keep their input, the
    // other L − N their whole working set (Megatron-LM --recompute-method block; torchtitan layer SAC).
    const u128 recomputed = full && t.recompute_layers != 0 ? std::min<u128>(t.recompute_layers, sp.layers) : sp.layers;
    u128 numerator = in_flight * (recomputed * kept + (sp.layers - recomputed) * layer.working_set);
    u128 denominator = 1;
    if (i == 0 && p.virtual_stages > 1) {
        // Interleaved 1F1B holds (1 + (pp − 1)/(pp · v)) times as much on the first stage
        // (Narayanan et al. 2021 §2.2.1; Megatron-LM theoretical_memory_usage.py).
        const u128 pv = u128{p.pp} * p.virtual_stages;
        numerator *= pv + p.pp - 1;
        denominator = pv;
    }
    r.activations = ceil_div(numerator, denominator);
    if (t.activation_offload && full) {
        // Checkpointed layer inputs go to host memory as they are produced and come back for the
        // recompute (torchtune OffloadActivations, Unsloth's offloaded gradient checkpointing); the GPU
        // keeps two at a time (the one being copied and the one in use).
        const u128 on_gpu = std::min<u128>(sp.layers * in_flight, 2) * kept;
        r.offloaded_activations = r.activations > on_gpu ? r.activations - on_gpu : 0;
        r.activations -= r.offloaded_activations;
        r.host += r.offloaded_activations;
    }
    // One layer re-run in backward holds its full working set (Korthikanti §5), of which its checkpointed
    // input is already counted in what is kept; under selective_op its working set less what it keeps
    // (selective_op_recompute_bytes).
    if ((full && recomputed != 0) || t.recompute == recompute_mode::selective_op) {
        r.activations += layer.rerun;
        r.working_set = layer.rerun;
    }
    // The gradients in flight inside one layer's backward have the shapes of the tensors its forward
    // holds at once (derivation: each op's backward turns its output's gradient into its inputs'), so
    // they are bounded by the forward's widest live set (forward_live_bytes_per_token).
    r.layer_grads = s_local * t.micro_batch * forward_live_bytes_per_token(m, p.tp);
    if (i == 0) {
        // The embedding's backward keeps the int64 token ids, 8 bytes per token (Megatron-LM
        // theoretical_memory_usage.py, "input to embedding"), whole on every tensor-parallel rank.
        r.activations += in_flight * s_local * t.micro_batch * 8;
        if (m.dropout)  // embedding dropout mask, 1 byte per element (Korthikanti §4.3)
            r.activations += ceil_div(in_flight * s_local * t.micro_batch * m.hidden_size,
                                      p.sequence_parallel ? tp : u128{1});
    }
    r.layer_activation = kept;
    r.in_flight = in_flight;
    if (i + 1 == p.pp && m.vocab_size != 0) {
        // Output logits s·b·V/t in the 2-byte activation dtype plus the fp32 softmax that the
        // vocabulary-parallel cross entropy keeps for backward (Megatron-LM cross_entropy.py): 6 bytes each.
        // Chunked cross-entropy (torchtune CEWithChunkedOutputLoss, train.loss_chunks = C) upcasts one
        // chunk of tokens at a time: the fp32 part shrinks to ⌈·/C⌉; C = 1 is the unchunked loss.
        const u128 logit_elements = s_local * t.micro_batch * ceil_div(m.vocab_size, tp);
        r.logits = 2 * logit_elements + ceil_div(4 * logit_elements, t.loss_chunks);
        // A loss that upcasts the logits and whose trainer drops the 2-byte ones before backward
        // (torchtitan: cross_entropy(pred.float()), then del pred) keeps only the fp32 log-probabilities:
        // the linear's backward needs its input, the cast's backward nothing (frameworks.hpp).
        if (framework.frees_bf16_logits) r.logits = ceil_div(4 * logit_elements, t.loss_chunks);
        // At the start of backward nll_loss's gradient of the fp32 log-probabilities and log_softmax's
        // gradient of its input are alive at once beside the saved log-probabilities, 4 bytes each, one chunk
        // at a time when chunked (PyTorch tools/autograd/derivatives.yaml: nll_loss_backward and
        // _log_softmax_backward_data return tensors of their input's shape and dtype); the cast back to the
        // 2-byte activation dtype follows once the fp32 gradient of the log-probabilities is freed (6 bytes
        // against 8); a chunked loss (torchtune's output projection chunk by chunk) sends each chunk's
        // gradient into that chunk's projection backward, so one chunk's pair is alive at a time.
        r.logits_grad = 2 * ceil_div(4 * logit_elements, t.loss_chunks);
    }
    return r;
}

// ---------------------------------------------------------------------------------------------
// Details of an estimate

void finetune_details(const estimate_config& c, const parts128& stage, estimate_result& r) {
    estimate_details& d = r.details;
    if (c.mode != run_mode::train) return;
    const train_config& t = c.train;
    const auto clamp = [](u128 v) { return static_cast<std::uint64_t>(std::min<u128>(v, max_exact_integer)); };
    d.paged_optimizer_bytes = clamp(stage.paged_states);
    d.offloaded_activation_bytes = clamp(stage.offloaded_activations);
    if (t.adapter_type == adapter_kind::none) {
        d.params_trainable = t.optimizer == optimizer_kind::none ? 0 : r.params;
        return;
    }
    const auto counted = count_finetune_params(c.model, t);
    d.params_trainable = counted.value.trainable;
    d.adapter_params = counted.value.adapter;
    d.base_weight_bytes = clamp(stage.base_weights);
    d.adapter_bytes = clamp(stage.trainable_weights);
    if (c.model.params != 0)
        r.warnings.push_back({"model.params", "is not used for the frozen base and the adapters: their bytes come "
                                              "from the architecture's own layers"});
    if (const model_family* family = find_family(c.model.model_type); family != nullptr && family->fused_qkv != nullptr) {
        // A fused q/k/v module (GPT-2's c_attn): PEFT adapts it as one matrix h × 3h.
        const auto names = adapted_linear_names(c.model, t);
        const std::string fused = family->fused_qkv;
        for (const char* qkv : {"q_proj", "k_proj", "v_proj"})
            if (std::find(names.begin(), names.end(), qkv) != names.end()) {
                r.warnings.push_back({"train.adapter_targets",
                                      std::string(family->label) + "'s fused " + fused +
                                          " is counted as separate q_proj, k_proj, v_proj (3 · r · 2h per layer); "
                                          "PEFT on " + fused + " trains r · (h + 3h)"});
                break;
            }
    }
    if (c.parallel.tp > 1)
        r.warnings.push_back({"train.adapter_type", "adapter parameters and their activations are assumed split over "
                                                    "parallel.tp like the layers they adapt"});
}

void paged_optimizer_details(std::uint64_t gpus_in_node, estimate_result& r) {
    estimate_details& d = r.details;
    const std::uint64_t paged = d.paged_optimizer_bytes;
    if (paged == 0) return;
    if (!r.has_capacity) {
        // No GPU size: where the driver keeps the pages is unknown; the host must be able to hold them all.
        d.paged_optimizer_resident_bytes = 0;
        d.paged_optimizer_host_bytes = paged;
    } else {
        // Unified memory migrates to the GPU on demand and is evicted under pressure (CUDA C++ Programming
        // Guide, "Unified Memory Programming", oversubscription): it can only use what PyTorch's caching
        // allocator has not reserved, so resident = min(states, capacity - reserved peak), the reserved peak
        // being the typical one of the step's allocated peak, CUDA context (overhead.misc_bytes) included.
        const std::uint64_t reserved = d.phases.present ? std::max(d.phases.reserved_typical_bytes, r.needed_bytes) : r.needed_bytes;
        const std::uint64_t free_bytes = r.capacity_bytes > reserved ? r.capacity_bytes - reserved : 0;
        d.paged_optimizer_resident_bytes = std::min(paged, free_bytes);
        d.paged_optimizer_host_bytes = paged - d.paged_optimizer_resident_bytes;  // resident + host == paged
        if (d.paged_optimizer_host_bytes != 0)
            r.warnings.push_back({"train.paged_optimizer",
                                  detail::to_decimal(d.paged_optimizer_host_bytes) + " of the " + detail::to_decimal(paged) +
                                      " bytes of paged optimizer states do not fit on the GPU beside PyTorch's reserved peak (" +
                                      detail::to_decimal(reserved) + " bytes, overhead.misc_bytes included): they are paged out to "
                                      "host memory and the optimizer step moves them over PCIe at every step, which slows "
                                      "the step"});
    }
    // Host memory per node: every GPU of the node pages its own states out (as host_bytes_per_node).
    const u128 host = u128{d.host_bytes_per_node} + u128{d.paged_optimizer_host_bytes} * gpus_in_node;
    d.host_bytes_per_node = static_cast<std::uint64_t>(std::min<u128>(host, max_exact_integer));
}

}  // namespace memplan::detail
