// Per-GPU memory of a transformer training step or serving, for the most loaded GPU: validation
// (validate.cpp), then every pipeline stage (train_memory.cpp / infer_memory.cpp) and the busiest
// one reported. All arithmetic is exact in 128-bit integers and rounded up to a whole byte once,
// at the end of each part.
#include "memplan/memory/estimate.hpp"

#include <algorithm>
#include <optional>

#include "memory/stage.hpp"
#include "memplan/memory/frameworks.hpp"
#include "memplan/model/adapters.hpp"

namespace memplan {

using detail::u128;
using detail::parts128;
using detail::stage_params;
using detail::params_of_stage;
using detail::train_stage;
using detail::infer_stage;

namespace {
bool assign_checked(u128 value, const char* field, std::uint64_t& out, diagnostics& errors) {
    if (value > max_exact_integer) {
        errors.push_back({field, "exceeds " + detail::to_decimal(max_exact_integer) +
                                     " bytes (2^53); the inputs are out of any realistic range"});
        return false;
    }
    out = static_cast<std::uint64_t>(value);
    return true;
}

/// The live bytes of each phase of the training step on the reported stage (memplan/memory/result.hpp
/// step_phases). Derivation: every part of the stage counted where it is alive —
///   forward end:    model states + buffers + kept activations + logits (with the loss's fp32 copy);
///   loss backward:  the same + the logits' gradient;
///   layer backward: model states + buffers + every kept activation (the layer being differentiated
///                   still among them) + a recomputed layer's working set + its gradients in flight;
///                   the logits and their gradient are freed once the loss's backward has run;
///   optimizer step: model states + buffers + the update's temporaries; activations are freed.
/// Gradient buffers are counted in every phase, as frameworks that keep them between steps allocate
/// them (Megatron-LM's and DeepSpeed's contiguous gradient buffers). Live memory is linear in the share of
/// layers already differentiated (activations freed, gradients complete), so its maximum over backward
/// is at one of the two ends counted here.
bool assign_phases(const parts128& s, std::uint64_t misc, train_framework framework, step_phases& out, diagnostics& errors) {
    const u128 states = s.weights + s.gradients + s.optimizer + s.communication + misc;
    const u128 kept = s.activations - s.working_set;
    const u128 values[] = {states + s.dequant + kept + s.logits,
                           states + s.dequant + kept + s.logits + s.logits_grad,
                           states + s.dequant + s.activations + s.layer_grads,
                           states + s.optimizer_temp};
    std::uint64_t* fields[] = {&out.forward_end_bytes, &out.loss_backward_bytes, &out.layer_backward_bytes,
                               &out.optimizer_step_bytes};
    for (std::size_t i = 0; i < 4; ++i) {
        if (!assign_checked(values[i], "details.phases", *fields[i], errors)) return false;
        if (i == 0 || *fields[i] > out.peak_bytes) {
            out.peak_bytes = *fields[i];
            out.peak = static_cast<step_phase>(i);
        }
    }
    out.optimizer_temp_bytes = static_cast<std::uint64_t>(s.optimizer_temp);  // ≤ optimizer_step_bytes
    const reserved_range reserved = reserved_peak_range(out.peak_bytes);
    if (!reserved.within_limits) {
        errors.push_back({"details.phases", "the reserved range of the step's peak exceeds " +
                                                detail::to_decimal(max_exact_integer) +
                                                " bytes (2^53); the inputs are out of any realistic range"});
        return false;
    }
    out.reserved_low_bytes = reserved.low_bytes;
    out.reserved_typical_bytes = reserved.typical_bytes;
    out.reserved_high_bytes = reserved.high_bytes;
    out.framework = framework;
    out.present = true;
    return true;
}

/// True when every decoder layer has the same parameters (then pipeline stages differ only in their
/// layer count, the first stage's embeddings and the last stage's output layer and logits).
bool uniform_layers(const param_breakdown& pb) {
    if (pb.layers.empty()) return true;
    const layer_params& a = pb.layers.front();
    for (const layer_params& b : pb.layers)
        if (b != a) return false;
    return true;
}
}  // namespace

model_counts count_model(const model_config& model) {
    model_counts out;
    out.params = count_params(model);
    out.layer_kinds = count_layer_kinds(model);
    out.uniform_layers = out.params.ok() && uniform_layers(out.params.value);
    // count_params runs validate_architecture first: a model it counts has none of its errors.
    if (!out.params.ok()) out.architecture_errors = validate_architecture(model);
    if (out.params.ok()) {
        out.train_warnings = architecture_warnings(model, run_mode::train);
        out.infer_warnings = architecture_warnings(model, run_mode::infer);
    }
    return out;
}

context_asked asked_context(const estimate_config& c) {
    if (c.mode == run_mode::train) return {"train.seq_len", c.train.seq_len};
    if (c.infer.engine != serving_engine::none && c.infer.max_model_len > c.infer.context_len)
        return {"infer.max_model_len", c.infer.max_model_len};
    return {"infer.context_len", c.infer.context_len};
}

estimate_result estimate_memory(const estimate_config& c, const estimate_options& options) {
    estimate_result r;
    r.errors = detail::validate(c, options.counts != nullptr ? &options.counts->architecture_errors : nullptr,
                                options.fields_in_range);
    if (!r.errors.empty()) return r;
    const model_config& m = c.model;
    const parallel_config& p = c.parallel;

    std::optional<model_counts> counted_here;  // built (and destroyed) only when the caller has no counts
    if (options.counts == nullptr) counted_here.emplace(count_model(m));
    const model_counts& counts = options.counts != nullptr ? *options.counts : *counted_here;
    const outcome<param_breakdown>& counted = counts.params;
    if (!counted.ok()) {
        r.errors = counted.errors;
        return r;
    }
    const param_breakdown& pb = counted.value;
    r.params = m.params != 0 ? m.params : pb.total;
    r.data_parallel = p.gpus / (p.tp * p.pp * p.cp);
    const bool warn = options.want_warnings;
    if (warn && m.num_hidden_layers % p.pp != 0)
        r.warnings.push_back({"parallel.pp", "does not divide model.num_hidden_layers; the first stages get one "
                                             "layer more"});
    if (warn && m.stored_weight_bytes != 0) {
        // The day-one path (a family memplan does not count): what rests on the stored bytes, what on the fields.
        r.warnings.push_back(
            {"model.stored_weight_bytes",
             c.mode == run_mode::train ? "is not used in training: model.params (" + detail::to_decimal(m.params) +
                         ") are counted as trainable weights in train.weight_dtype, spread evenly over tp × pp"
                   : "(" + detail::to_decimal(m.stored_weight_bytes) +
                         " B, the checkpoint's tensors as stored) are the weights, split evenly over tp × pp: the "
                         "layers' own split is not known"});
        r.warnings.push_back({"model.layer_types", "assumed for the KV cache: every layer caches K and V of "
                                                   "num_key_value_heads × head_dim per token unless layer_types marks it "
                                                   "sliding or chunked (or kv_lora_rank makes it MLA); a layer the model "
                                                   "builds otherwise (linear attention, a compressed or shared cache) "
                                                   "is counted as full attention, an upper bound"});
    } else if (warn && m.params != 0 && m.vocab_size != 0) {  // without a vocabulary the count is incomplete
        const u128 diff = pb.total > m.params ? pb.total - m.params : m.params - pb.total;
        if (diff * 100 > m.params)
            r.warnings.push_back({"model.params", "differs by more than 1% from the architecture's count (" +
                                                      detail::to_decimal(pb.total) +
                                                      "); the explicit count is used, spread evenly over stages"});
    }

    // The most loaded pipeline stage is reported (first-stage activations against last-stage logits
    // and output layer); of equal totals, the first.
    //
    // Training with every layer alike (uniform_layers) and no adapter: only stages 0, r = L mod pp
    // (the first stage with one layer fewer, when 0 < r < pp − 1) and pp − 1 can be the busiest, so
    // only they are computed. Proof: stage i's total (train_memory.cpp) depends on i only through
    //   (a) its layer count: L/pp + 1 for i < r, L/pp after, and with uniform layers its parameters
    //       are that count times one layer's (plus edges), every part non-decreasing in them (ZeRO
    //       shards are ceil_divs, buffers min(bucket, local), offloaded activations min(·, on-GPU));
    //   (b) the micro-batches in flight, max(first − i, 1), non-increasing in i, activations
    //       non-decreasing in it;
    //   (c) first-stage terms (embeddings, token ids, interleaving factor) and last-stage terms
    //       (output layer, logits), each non-negative and only adding.
    // A stage 0 < j < r has stage 0's layers, no fewer micro-batches on stage 0 and no first-stage
    // terms: total(0) ≥ total(j). A stage r < j < pp − 1 has stage r's layers and no more micro-batches:
    // total(r) ≥ total(j). So the busiest total is reached on a candidate, and the first stage that
    // reaches it is a candidate too (the dominating candidate has a smaller index). Adapters (prorated
    // stage-3 buffers), heterogeneous layers and serving (per-layer KV kinds) compute every stage.
    const bool train = c.mode == run_mode::train;
    detail::train_layer layer = train ? detail::train_layer_activations(c, options.want_tensors) : detail::train_layer{};
    layer.uniform_layers = counts.uniform_layers;
    const bool candidates_only = train && c.train.adapter_type == adapter_kind::none && counts.uniform_layers;
    const std::uint64_t uneven = m.num_hidden_layers % p.pp;
    parts128 busiest;
    std::uint64_t busiest_stage = 0;
    for (std::uint64_t i = 0; i < p.pp; ++i) {
        if (candidates_only && i != 0 && i + 1 != p.pp && i != uneven) {
            // Skip to the next candidate: r when still ahead, else the last stage.
            i = (i < uneven ? uneven : p.pp - 1) - 1;
            continue;
        }
        const parts128 s = train ? train_stage(c, pb, i, layer) : infer_stage(c, pb, i);
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
              assign_checked(busiest.kv, "per_gpu.kv_cache", b.kv_cache, r.errors) &&
              assign_checked(busiest.dequant, "per_gpu.dequant_workspace", b.dequant_workspace, r.errors);
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
    const stage_params sp = params_of_stage(c, pb, busiest_stage, counts.uniform_layers);
    d.params_on_gpu = static_cast<std::uint64_t>(sp.dense + sp.experts);
    d.stage = busiest_stage;
    d.layers_on_gpu = static_cast<std::uint64_t>(sp.layers);
    d.microbatches_in_flight = static_cast<std::uint64_t>(busiest.in_flight);
    d.layer_activation_bytes = static_cast<std::uint64_t>(busiest.layer_activation);
    d.quantization_overhead_bytes = static_cast<std::uint64_t>(busiest.quant_overhead);
    d.kv_cache_bytes_per_token = static_cast<std::uint64_t>(busiest.kv_per_token);
    if (c.mode == run_mode::infer) {
        d.prefill_chunk_tokens = prefill_chunk_tokens(c);
        d.prefill_pass_tokens = static_cast<std::uint64_t>(std::min<u128>(busiest.prefill_pass_tokens, UINT64_MAX));
    }
    // Model structure (arch.cpp, params.cpp): parameters by place, layer kinds, recurrent state, weights by type.
    d.param_parts = pb.parts;
    d.layer_kinds = counts.layer_kinds;
    d.state_bytes_per_sequence = static_cast<std::uint64_t>(busiest.state_per_sequence);
    if (options.want_tensors)  // a list: only when asked for (the totals-only path allocates nothing)
        for (const auto& w : busiest.weight_by_dtype) d.weight_bytes_by_dtype.push_back({w.first, static_cast<std::uint64_t>(w.second)});
    if (warn)
        for (const auto& a : m.assumptions) r.warnings.push_back({"model.model_type", a});
    // The named framework's defaults applied to fields not given (memplan/memory/frameworks.hpp), each stated.
    if (warn && train)
        for (const framework_default* fd : applied_framework_defaults(c)) r.warnings.push_back({fd->path, framework_default_note(*fd)});
    // An int8/4-bit base whose script may call PEFT's prepare_model_for_kbit_training (user scripts under the
    // Hugging Face Trainer or TRL do; Axolotl casts the embeddings and norms back, LitGPT, torchtune and Unsloth
    // do not call it): the assumption is stated with what the other answer would add.
    if (const train_framework f = c.train.framework;
        warn && train && !c.train.kbit_prepare_given &&
        (f == train_framework::none || f == train_framework::hf_trainer || f == train_framework::trl))
        if (const std::uint64_t extra = kbit_prepare_extra_bytes(c.model, c.train); extra != 0)
            r.warnings.push_back({"train.kbit_prepare",
                                  "not given; assumed false (PEFT's prepare_model_for_kbit_training not called). A "
                                  "script that calls it keeps the base's unquantized parameters in fp32: +" +
                                      detail::to_decimal(extra) +
                                      " bytes over the whole model, divided as the weights are; set it true or false"});
    // Given true: the weights are counted, the activations' dtype is not followed (stated, not hidden).
    if (warn && train && c.train.kbit_prepare)
        r.warnings.push_back({"train.kbit_prepare",
                              "the fp32 embedding and norms make the residual stream fp32 (bitsandbytes' 4-bit linears "
                              "cast their outputs back to their input's dtype), while memplan counts activations at 2 "
                              "bytes: the activation and peak figures are low for such a run"});
    // A context beyond the model's stated limit (config.json max_position_embeddings) is flagged, not
    // refused: memory is counted as asked, but the model was not made for that many positions.
    if (const context_asked asked = asked_context(c);
        warn && m.max_position_embeddings != 0 && asked.tokens > m.max_position_embeddings)
        r.warnings.push_back({asked.field, "(" + detail::to_decimal(asked.tokens) +
                                               " tokens) is beyond the model's context limit (max_position_embeddings " +
                                               detail::to_decimal(m.max_position_embeddings) +
                                               "): memory is counted as asked, but the model is not made for such "
                                               "contexts unless a RoPE scaling extends it"});
    if (warn && m.params == 0)
        for (const auto& w : train ? counts.train_warnings : counts.infer_warnings) r.warnings.push_back(w);
    if (train) d.layer_activations = layer.tensors;
    detail::finetune_details(c, busiest, r);
    if (train && !assign_phases(busiest, c.misc_bytes, c.train.framework, d.phases, r.errors)) {
        r.per_gpu = memory_breakdown{};
        r.details = estimate_details{};
        return r;
    }

    // The bytes that decide the fit, with or without a GPU size (every view that shows a per-GPU figure
    // beside a verdict shows this one): the larger of the steady-state sum and, in training, the step's peak
    // (details.phases.peak_bytes), since a step whose peak does not fit runs out of memory.
    const std::uint64_t needed = train ? std::max(b.total, d.phases.peak_bytes) : b.total;
    r.needed_bytes = needed;
    if (c.gpu_memory_bytes != 0) {
        r.has_capacity = true;
        r.capacity_bytes = c.gpu_memory_bytes;
        r.fits = needed <= c.gpu_memory_bytes;
        r.headroom_bytes = r.fits ? c.gpu_memory_bytes - needed : 0;
        r.shortfall_bytes = r.fits ? 0 : needed - c.gpu_memory_bytes;
    }
    if (train) detail::paged_optimizer_details(static_cast<std::uint64_t>(gpus_in_node), r);
    if (!warn) r.warnings.clear();  // those of finetune_details and paged_optimizer_details, which build their own
    return r;
}


}  // namespace memplan
