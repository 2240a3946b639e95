// The training frameworks an estimate can name (memplan/memory/frameworks.hpp): one table, read by the
// estimate (the optimizer step and the loss path), by validation (the layouts a framework has) and by
// the reports (what its log prints). Every fact names the upstream file and commit it was read from.
#include "memplan/memory/frameworks.hpp"

#include <string>

#include "base/checks.hpp"

namespace memplan {

namespace {
// Entries in the order of train_framework (config.hpp); a test checks every enumerator has its own.
const framework_conventions table[] = {
    {train_framework::none, "no framework named", allocator_figure::allocated, "", false, false, false},
    {train_framework::torchtitan, "torchtitan", allocator_figure::reserved, "GiB", true, true, true},
    {train_framework::hf_trainer, "Hugging Face Trainer", allocator_figure::allocated, "bytes", false, false, false},
    {train_framework::trl, "TRL", allocator_figure::none, "", false, false, false},
    {train_framework::torchtune, "torchtune", allocator_figure::both, "GiB", false, false, true},
    {train_framework::litgpt, "LitGPT", allocator_figure::allocated, "GB", false, false, false},
    {train_framework::unsloth, "Unsloth", allocator_figure::none, "", false, false, false},
    {train_framework::axolotl, "Axolotl", allocator_figure::both, "GiB", false, false, false},
    {train_framework::megatron, "Megatron-LM", allocator_figure::both, "MiB", true, false, false},
    {train_framework::deepspeed, "DeepSpeed", allocator_figure::both, "GiB", true, false, false},
};
constexpr std::size_t framework_count = sizeof(table) / sizeof(table[0]);

void refuse(diagnostics& errors, const char* field, const framework_conventions& f, const std::string& why) {
    errors.push_back({field, std::string("cannot be used with train.framework ") + to_string(f.id) + " (" +
                                 f.label + "): " + why});
}

// The band of reserved / allocated at the peak, in thousandths, over the 24 public training runs of
// tests/data/allocator/allocator-pairs.json that print both peaks of the same window (Megatron-LM,
// NeMo, Megatron-DeepSpeed, DeepSpeed, Axolotl, Hugging Face Trainer, llama-recipes, ONNX Runtime;
// tests/core/test_frameworks.cpp recomputes all three from the file): 1.003 (Megatron-LM, a run near
// its GPU's capacity) to 1.796 (a Hugging Face Trainer run), median 1.171. A wide band: fragmentation
// depends on the allocation pattern, and memplan states the range rather than one factor.
constexpr std::uint64_t band_low_permille = 1003;
constexpr std::uint64_t band_median_permille = 1171;
constexpr std::uint64_t band_high_permille = 1796;
constexpr std::uint64_t band_measurements = 24;
// PyTorch's caching allocator rounds every request up to 512 bytes (kMinBlockSize), requests above 10 MiB
// to whole 2 MiB (kRoundLarge), and reserves segments of 2 MiB (small pool), 20 MiB or the rounded size
// (pytorch/pytorch c10/cuda/CUDACachingAllocator.cpp at 001074d25084fdb87a799823e395a50f5ec044d3, round_size and get_allocation_size): the
// reserved bytes are whole 2 MiB units.
constexpr std::uint64_t allocator_round_bytes = 2u << 20;
}  // namespace

framework_span framework_entries() { return {table, table + framework_count}; }

const framework_conventions& conventions_of(train_framework framework) {
    const auto i = static_cast<std::size_t>(framework);
    return i < framework_count ? table[i] : table[0];
}

void check_framework(const estimate_config& c, diagnostics& errors) {
    const framework_conventions& f = conventions_of(c.train.framework);
    const parallel_config& p = c.parallel;
    switch (c.train.framework) {
        case train_framework::torchtitan:
            // FSDP2 (torch.distributed.fsdp.fully_shard) has no optimizer-only sharding.
            if (p.zero_stage == 1)
                refuse(errors, "parallel.zero_stage", f,
                       "FSDP2 shards parameters, gradients and optimizer states together (stage 3, or 2 with "
                       "reshard_after_forward \"never\"); without it (stage 0) every GPU keeps them whole; "
                       "there is no stage 1");
            if (p.comm_buffers == comm_buffer_model::deepspeed)
                refuse(errors, "parallel.comm_buffers", f, "DeepSpeed's buffers are not torchtitan's (use memplan)");
            if (p.offload_optimizer == offload_target::nvme || p.offload_params == offload_target::nvme)
                refuse(errors, p.offload_optimizer == offload_target::nvme ? "parallel.offload_optimizer" : "parallel.offload_params",
                       f, "FSDP2 offloads to CPU memory only (none or cpu)");
            break;
        case train_framework::torchtune:
        case train_framework::litgpt:
        case train_framework::axolotl:
            if (p.pp > 1)
                refuse(errors, "parallel.pp", f, "it has no pipeline parallelism (parallel.pp 1)");
            if (p.comm_buffers == comm_buffer_model::deepspeed && c.train.framework != train_framework::axolotl)
                refuse(errors, "parallel.comm_buffers", f, "it does not run DeepSpeed (use memplan)");
            break;
        case train_framework::unsloth:
            if (p.tp > 1 || p.pp > 1)
                refuse(errors, p.tp > 1 ? "parallel.tp" : "parallel.pp", f,
                       "it trains on one GPU or data-parallel, without tensor or pipeline parallelism");
            break;
        case train_framework::deepspeed:
            if (p.fsdp != fsdp_strategy::unset)
                refuse(errors, "parallel.fsdp", f, "PyTorch FSDP's strategies are not DeepSpeed's; give parallel.zero_stage");
            break;
        default: break;
    }
}

reserved_band reserved_ratio_band() { return {band_low_permille, band_median_permille, band_high_permille, band_measurements}; }

reserved_range reserved_peak_range(std::uint64_t allocated) {
    // Rounded to the allocator's granularity first (derivation: reserved memory is whole segments).
    const detail::u128 rounded = detail::ceil_div(detail::u128{allocated}, allocator_round_bytes) * allocator_round_bytes;
    const auto scaled = [&](std::uint64_t permille) { return detail::ceil_div(rounded * permille, 1000); };
    // Beyond 2^53 bytes a figure is no longer exact in JSON: refused by the caller, never capped.
    if (scaled(band_high_permille) > max_exact_integer) return {0, 0, 0, false};
    return {static_cast<std::uint64_t>(scaled(band_low_permille)), static_cast<std::uint64_t>(scaled(band_median_permille)),
            static_cast<std::uint64_t>(scaled(band_high_permille)), true};
}

}  // namespace memplan
