// memplan — the training frameworks an estimate can name (train.framework): what each one's memory log
// prints, which layouts it has, and the conventions memplan applies for it; and the PyTorch caching
// allocator's reserved peak beside the allocated one.
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "memplan/base/types.hpp"
#include "memplan/config/config.hpp"

namespace memplan {

/// Which of the caching allocator's peaks a framework's log prints.
enum class allocator_figure { allocated, reserved, both, none };
constexpr const char* allocator_figure_names[] = {"allocated", "reserved", "both", "none"};

/// One framework's conventions as the estimate applies and states them. Its pinned version, its log
/// line, the prose of its conventions and its sources, which only the listings need, are
/// memplan/report/json.hpp framework_notes_of (mp.frameworks(), memplan frameworks): kept out of the
/// estimate's code so that the element's module does not carry them.
struct framework_conventions {
    train_framework id = train_framework::none;
    const char* label = "";       ///< "torchtitan"
    allocator_figure logs = allocator_figure::none;  ///< the peak its training log prints
    const char* log_unit = "";    ///< "GiB" (2^30), "GB" (1e9), "MiB" or "bytes": the unit of the printed figure
    bool fused_optimizer = false; ///< its default AdamW updates in place (no foreach temporaries)
    bool frees_bf16_logits = false;  ///< its loss upcasts the logits and frees the 2-byte ones before backward
    bool fsdp2_buffers = false;   ///< sharding is FSDP2's (fully_shard): its all-gather and reduce-scatter buffers
};

/// A constant table's entries, for range-for: `for (const T& entry : span)`.
template <class T>
struct table_span {
    const T* first;
    const T* last;
    const T* begin() const { return first; }
    const T* end() const { return last; }
};

/// Every framework's entry, one per value of train_framework in declaration order (a test checks it):
/// `for (const framework_conventions& f : framework_entries())`.
using framework_span = table_span<framework_conventions>;
framework_span framework_entries();

/// The conventions of `framework` (every enumerator has an entry).
const framework_conventions& conventions_of(train_framework framework);

/// One default a framework gives a train.* field that changes memory, applied when train.framework names
/// it and the configuration leaves the field unset (the user's value always wins). Each is read from the
/// upstream file it cites; a field whose default could not be read from a source is not in the table.
/// When a framework default applies beyond "the field is not given": always, only over a 4-bit frozen base
/// (a quantization setting), or only where Unsloth's "unsloth" checkpointing offloads (from 512 tokens, with
/// the layers recomputed from their inputs).
enum class default_condition { always, four_bit_base, unsloth_offload };

struct framework_default {
    train_framework framework = train_framework::none;
    const char* path = "";      ///< the field: "train.recompute"
    const char* value = "";     ///< its value as the schema writes it: "full", "true", "8"
    const char* upstream = "";  ///< the framework's own setting: "SFTConfig gradient_checkpointing=True"
    const char* source = "";    ///< upstream file and commit: "huggingface/trl trl/trainer/base_config.py at 13e421be…"
    default_condition when = default_condition::always;
};

/// Every framework's defaults, grouped by framework (the bit of train_config::framework_defaults is the
/// index into this table).
using framework_default_span = table_span<framework_default>;
framework_default_span framework_defaults();

/// Sets each default of config.train.framework whose field `given` does not name (given(path): the
/// configuration gave that field), and records which in config.train.framework_defaults. Nothing when
/// train.framework is none. Unsloth's offloaded checkpointing applies only with full recompute.
void apply_framework_defaults(estimate_config& config, const std::function<bool(const std::string&)>& given);

/// The defaults applied to `config` (config.train.framework_defaults), in table order.
std::vector<const framework_default*> applied_framework_defaults(const estimate_config& config);

/// The sentence the result states for an applied default: "not given; TRL's default (SFTConfig
/// gradient_checkpointing=True, huggingface/trl … at …) assumed: full".
std::string framework_default_note(const framework_default& entry);

/// Refusals of a configuration the named framework cannot run, each naming train.framework or the
/// field it contradicts (appended to `errors`; nothing when train.framework is none).
void check_framework(const estimate_config& config, diagnostics& errors);

/// The caching allocator's reserved peak for an allocated peak, as a range (never one factor): the
/// allocated bytes rounded up to the allocator's 2 MiB granularity, times the smallest, the median and
/// the largest reserved/allocated ratio of the public measurements in
/// tests/data/allocator/allocator-pairs.json.
struct reserved_range {
    std::uint64_t low_bytes = 0;
    std::uint64_t typical_bytes = 0;  ///< at the median ratio
    std::uint64_t high_bytes = 0;
    bool within_limits = true;  ///< false when the high end would pass 2^53 bytes (then the three are 0)
};
reserved_range reserved_peak_range(std::uint64_t allocated_peak_bytes);

/// The band's ratios in thousandths (reserved / allocated), with the corpus they come from.
struct reserved_band {
    std::uint64_t low_permille;
    std::uint64_t median_permille;
    std::uint64_t high_permille;
    std::uint64_t measurements;  ///< pairs in the corpus
};
reserved_band reserved_ratio_band();

}  // namespace memplan
