// DeepSpeed's communication buffers (memplan/memory/comm_buffers.hpp), each term with the DeepSpeed
// file that allocates it.
#include "memplan/memory/comm_buffers.hpp"

#include <algorithm>

#include "base/checks.hpp"
#include "memplan/model/arch.hpp"

namespace memplan {

using detail::u128;

std::uint64_t deepspeed_largest_layer_params(const model_config& m) {
    const std::uint64_t h = m.hidden_size, ffn = resolved_ffn(m);
    std::uint64_t largest = m.vocab_size * h;
    largest = std::max(largest, h * ffn + (m.mlp_bias ? ffn : 0));
    if (m.num_experts != 0) {
        const std::uint64_t e_ffn = m.moe_intermediate_size != 0 ? m.moe_intermediate_size : ffn;
        largest = std::max(largest, h * e_ffn + (m.mlp_bias ? e_ffn : 0));
    }
    return largest;
}

deepspeed_comm_buffers deepspeed_comm_buffer_bytes(const deepspeed_comm_config& c) {
    deepspeed_comm_buffers out;
    auto range = [&](std::uint64_t v, const char* field, std::uint64_t lo, std::uint64_t hi) {
        if (v < lo || v > hi) out.errors.push_back({field, detail::integer_range_message(lo, hi)});
    };
    if (c.stage < 1 || c.stage > 3) out.errors.push_back({"stage", "must be 1, 2 or 3"});
    range(c.reduce_bucket_size, "reduce_bucket_size", 0, max_param_count);
    range(c.allgather_bucket_size, "allgather_bucket_size", 0, max_param_count);
    range(c.prefetch_bucket_size, "stage3_prefetch_bucket_size", 0, max_param_count);
    range(c.param_persistence_threshold, "stage3_param_persistence_threshold", 0, max_param_count);
    range(c.max_live_parameters, "stage3_max_live_parameters", 0, max_param_count);
    range(c.persistent_params, "persistent_params", 0, max_param_count);
    range(c.largest_layer_params, "largest_layer_params", 0, max_param_count);
    range(c.bytes_per_element, "bytes_per_element", 1, 8);
    if (c.overlap_comm < -1 || c.overlap_comm > 1) out.errors.push_back({"overlap_comm", "must be true, false or unset"});
    if (!out.errors.empty()) return out;
    // deepspeed/runtime/zero/config.py, overlap_comm_valid: unset means on for stage 3 only.
    out.overlap_comm = c.overlap_comm == -1 ? c.stage == 3 : c.overlap_comm == 1;
    const u128 e = c.bytes_per_element;
    u128 total = 0;
    auto add = [&](const char* name, u128 bytes, const char* formula, const char* source) {
        out.allocated.push_back({name, static_cast<std::uint64_t>(bytes), formula, source});
        total += bytes;
    };
    if (c.stage <= 2) {
        // stage_1_and_2.py, backward(): with contiguous_gradients one reduce bucket (ipg_buffer) of
        // reduce_bucket_size elements, a second one with overlap_comm ("double buffers").
        if (c.contiguous_gradients)
            add("reduce_buckets", (out.overlap_comm ? 2 : 1) * u128{c.reduce_bucket_size} * e,
                out.overlap_comm ? "2 x reduce_bucket_size x element bytes (overlap_comm double buffer)"
                                 : "reduce_bucket_size x element bytes",
                "microsoft/DeepSpeed deepspeed/runtime/zero/stage_1_and_2.py, backward()");
        // runtime/utils.py all_gather_dp_groups: the allgather bucket bounds a slice of the existing
        // flat 16-bit parameter buffer; no separate buffer is allocated for it.
        add("allgather_bucket", 0, "0: gathers into slices of the flat parameter buffer",
            "microsoft/DeepSpeed deepspeed/runtime/utils.py, all_gather_dp_groups");
        // Hugging Face guide: "overlap_comm uses 4.5x the allgather_bucket_size and
        // reduce_bucket_size values ... 5e8 ... requires a 9GB footprint (5e8 x 2Bytes x 2 x 4.5)".
        const u128 both = (u128{c.allgather_bucket_size} + c.reduce_bucket_size) * e;
        out.guide_bytes = static_cast<std::uint64_t>(out.overlap_comm ? detail::ceil_div(both * 9, 2) : both);
    } else {
        // stage3.py: one flat reduce bucket (__ipg_bucket_flat_buffer) with contiguous_gradients.
        if (c.contiguous_gradients)
            add("reduce_bucket", u128{c.reduce_bucket_size} * e, "reduce_bucket_size x element bytes",
                "microsoft/DeepSpeed deepspeed/runtime/zero/stage3.py, __ipg_bucket_flat_buffer");
        // partitioned_param_coordinator.py: prefetches at most min(prefetch bucket, max live) elements.
        add("prefetch_bucket", std::min(c.prefetch_bucket_size, c.max_live_parameters) * e,
            "min(stage3_prefetch_bucket_size, stage3_max_live_parameters) x element bytes",
            "microsoft/DeepSpeed deepspeed/runtime/zero/partitioned_param_coordinator.py, fetch_sub_module");
        // parameter_offload.py mark_persistent_parameters: tensors below the threshold stay whole.
        add("persistent_params", u128{c.persistent_params} * e,
            "parameters in tensors below stage3_param_persistence_threshold x element bytes",
            "microsoft/DeepSpeed deepspeed/runtime/zero/parameter_offload.py, mark_persistent_parameters");
        // estimate_zero3_model_states_mem_needs: "largest_layer_memory = 4*largest_layer_params"
        // (fp16 parameters gathered and their fp16 gradients).
        add("largest_layer_working_copy", u128{c.largest_layer_params} * 4, "4 x largest_layer_params",
            "microsoft/DeepSpeed deepspeed/runtime/zero/stage3.py, estimate_zero3_model_states_mem_needs");
    }
    out.allocated_bytes = static_cast<std::uint64_t>(total);  // below 2^49 · 8 · 4
    return out;
}

}  // namespace memplan
