// memplan — internal: the one name table of each enumeration of memplan/config/config.hpp (its
// names in JSON, the CLI and the page, in declaration order). to_string, parse_enum, choice_names
// and every list of allowed names in a message are read from it (not public API).
#pragma once

#include <cstddef>
#include <string>
#include <utility>

#include "memplan/config/config.hpp"

namespace memplan::detail {

/// The names of the values of one enumeration, and names that parse accepts beside them (aliases).
template <class E>
class name_table {
public:
    using entry = std::pair<E, const char*>;
    template <std::size_t N>
    constexpr explicit name_table(const entry (&entries)[N]) : entries_(entries), size_(N) {}
    template <std::size_t N, std::size_t M>
    constexpr name_table(const entry (&entries)[N], const entry (&aliases)[M])
        : entries_(entries), size_(N), aliases_(aliases), alias_count_(M) {}

    /// The name of `value`; "?" for a value that has none.
    const char* name(E value) const {
        for (std::size_t i = 0; i < size_; ++i)
            if (entries_[i].first == value) return entries_[i].second;
        return "?";
    }
    /// A name or an alias into `out`; false when `text` is neither.
    bool parse(const std::string& text, E& out) const {
        return find(entries_, size_, text, out) || find(aliases_, alias_count_, text, out);
    }
    /// The names in declaration order, with `separator` between them ("a,b,c").
    std::string joined(const char* separator = ",") const {
        std::string out;
        for (std::size_t i = 0; i < size_; ++i) out += (i == 0 ? "" : separator) + std::string(entries_[i].second);
        return out;
    }
    /// The names a foreign list writes: the aliases first, then the names of the values without one.
    std::string aliases_then_names(const char* separator) const {
        std::string out;
        const auto add = [&](const char* text) { out += (out.empty() ? "" : separator) + std::string(text); };
        for (std::size_t i = 0; i < alias_count_; ++i) add(aliases_[i].second);
        for (std::size_t i = 0; i < size_; ++i) {
            bool aliased = false;
            for (std::size_t j = 0; j < alias_count_; ++j) aliased = aliased || aliases_[j].first == entries_[i].first;
            if (!aliased) add(entries_[i].second);
        }
        return out;
    }

private:
    static bool find(const entry* items, std::size_t count, const std::string& text, E& out) {
        for (std::size_t i = 0; i < count; ++i)
            if (text == items[i].second) {
                out = items[i].first;
                return true;
            }
        return false;
    }

    const entry* entries_;
    std::size_t size_;
    const entry* aliases_ = nullptr;
    std::size_t alias_count_ = 0;
};

/// The name table of each enumeration (the argument only selects it).
const name_table<dtype>& names_of(dtype);
const name_table<run_mode>& names_of(run_mode);
const name_table<recompute_mode>& names_of(recompute_mode);
const name_table<optimizer_kind>& names_of(optimizer_kind);
const name_table<norm_kind>& names_of(norm_kind);
const name_table<mlp_kind>& names_of(mlp_kind);
const name_table<offload_target>& names_of(offload_target);
const name_table<attention_kind>& names_of(attention_kind);
const name_table<layer_mlp_kind>& names_of(layer_mlp_kind);
const name_table<checkpoint_format>& names_of(checkpoint_format);
const name_table<fsdp_strategy>& names_of(fsdp_strategy);
const name_table<comm_buffer_model>& names_of(comm_buffer_model);
const name_table<overlap_setting>& names_of(overlap_setting);
const name_table<serving_engine>& names_of(serving_engine);
const name_table<engine_release>& names_of(engine_release);
const name_table<vllm_entrypoint>& names_of(vllm_entrypoint);
const name_table<adapter_kind>& names_of(adapter_kind);
const name_table<base_precision>& names_of(base_precision);
const name_table<float_precision>& names_of(float_precision);
const name_table<kernel_kind>& names_of(kernel_kind);
const name_table<train_framework>& names_of(train_framework);

}  // namespace memplan::detail
