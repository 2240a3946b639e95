// Per-GPU memory of a transformer training step or serving, for the most loaded GPU: validation
// (validate.cpp), then every pipeline stage (train_memory.cpp / infer_memory.cpp) and the busiest
// one reported. All arithmetic is exact in 128-bit integers and rounded up to a whole byte once,
// at the end of each part.
#include "memplan/estimate.hpp"

#include "memplan/serving.hpp"
#include "stage.hpp"

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
    const stage_params sp = params_of_stage(c, pb, busiest_stage);
    d.params_on_gpu = static_cast<std::uint64_t>(sp.dense + sp.experts);
    d.stage = busiest_stage;
    d.layers_on_gpu = static_cast<std::uint64_t>(sp.layers);
    d.microbatches_in_flight = static_cast<std::uint64_t>(busiest.in_flight);
    d.layer_activation_bytes = static_cast<std::uint64_t>(busiest.layer_activation);
    d.quantization_overhead_bytes = static_cast<std::uint64_t>(busiest.quant_overhead);
    d.kv_cache_bytes_per_token = static_cast<std::uint64_t>(busiest.kv_per_token);
    d.layer_activations = busiest.layer_tensors;
    detail::finetune_details(c, busiest, r);

    if (c.gpu_memory_bytes != 0) {
        r.has_capacity = true;
        r.capacity_bytes = c.gpu_memory_bytes;
        r.fits = b.total <= c.gpu_memory_bytes;
        r.headroom_bytes = r.fits ? c.gpu_memory_bytes - b.total : 0;
        r.shortfall_bytes = r.fits ? 0 : b.total - c.gpu_memory_bytes;
    }
    // Serving engines' start-up arithmetic beside the plain accounting (serving.cpp).
    if (c.mode == run_mode::infer && c.infer.engine != serving_engine::none) {
        diagnostics serving_errors;
        r.serving = serving_for(c, r, r.warnings, serving_errors);
        if (!serving_errors.empty()) {
            estimate_result failed;
            failed.errors = serving_errors;
            return failed;
        }
    }
    return r;
}


}  // namespace memplan
