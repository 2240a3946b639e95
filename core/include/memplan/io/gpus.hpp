// memplan — a catalogue of GPUs and their memory, stored once in core/data/gpus.json and compiled in,
// so that the CLI and the page (through the WebAssembly module) read the same figures.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "memplan/search/step_time.hpp"

namespace memplan {

/// One GPU (or accelerator, or Apple-silicon machine) and its memory.
struct gpu_entry {
    const char* id;                    ///< "h100-sxm-80gb"
    const char* name;                  ///< "NVIDIA H100 SXM 80GB"
    const char* vendor;                ///< "NVIDIA", "AMD", "Intel", "Apple"
    const char* kind;                  ///< "datacenter", "workstation", "consumer", "laptop", "apple"
    const char* memory_text;           ///< the vendor's figure as the vendor writes it: "80 GB HBM3"
    std::uint64_t memory_unit_bytes;   ///< the vendor's GB: 10^9 (NVIDIA, AMD, Intel) or 2^30 (Apple's memory)
    std::uint64_t nominal_bytes;       ///< the vendor's figure in bytes (number in memory_text × memory_unit_bytes)
    std::uint64_t usable_bytes;        ///< total device memory the driver reports (public source); 0 = not known
    const char* usable_text;           ///< the measurement as its source states it ("81559 MiB (nvidia-smi ...)")
    const char* source;                ///< the vendor's datasheet or specification page
    const char* usable_source;         ///< where usable_bytes was published ("" if unknown)
    unsigned gpu_share_percent;        ///< share of the memory the GPU may use by default (100; Apple: 75)
    const char* share_source;          ///< where that share comes from ("" for discrete GPUs)
    const char* note;                  ///< caveats ("" if none)
    const char* aliases;               ///< what people type, separated by '|': "h100|h100 sxm"
    /// Peak rates and bandwidths for the step-time model (gpus.json "perf"; !perf.ok() where the
    /// catalogue has none), with the default efficiencies of step_time.hpp.
    gpu_perf perf;
};

/// All entries, in the order of core/data/gpus.json.
const gpu_entry* gpu_catalogue(std::size_t& count);

/// core/data/gpus.json as it was compiled in ({"version":1, "description":..., "gpus":[...]}), each
/// entry with "capacity_bytes" (gpu_capacity_bytes) added after "usable_bytes".
std::string gpu_catalogue_json();

/// The entry with exactly this id, or nullptr.
const gpu_entry* find_gpu(const std::string& id);

/// Entries matching `query` (case-insensitive; "h100 sxm", "4090", "MI300"), best first; empty if
/// none. Every whitespace-separated token of the query must occur in the entry's id, name or an alias.
/// Rank: exact id or alias > all tokens as whole words of one alias or the name > prefix of a word >
/// substring; ties keep catalogue order (the catalogue lists the common part first, e.g. H100 SXM
/// before H100 NVL).
std::vector<const gpu_entry*> search_gpus(const std::string& query);

/// search_gpus as a JSON array of GPU ids, best match first.
std::string search_gpus_json(const std::string& query);

/// The per-GPU capacity a fit verdict should use, in bytes. The driver-reported total (usable_bytes)
/// where a public measurement exists, since that is what allocators can address (it differs from the
/// vendor's GB: an H100's "80 GB" reads 81559 MiB = 85.52e9 bytes); else the vendor's nominal figure.
/// Unified memory (Apple) is then limited to the share the OS grants the GPU by default
/// (gpu_share_percent, rounded down), because macOS caps the GPU's wired memory below total RAM.
std::uint64_t gpu_capacity_bytes(const gpu_entry& gpu);

}  // namespace memplan
