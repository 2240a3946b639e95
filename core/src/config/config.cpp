// Names of the enumerations used in JSON, the CLI and the page, and the element widths of dtypes.
#include <array>

#include "memplan/config/config.hpp"

namespace memplan {

// ---------------------------------------------------------------------------------------------
// Names

namespace {
template <class E, std::size_t N>
struct name_table {
    std::array<std::pair<E, const char*>, N> entries;
    const char* name(E value) const {
        for (const auto& entry : entries)
            if (entry.first == value) return entry.second;
        return "?";
    }
    /// "a,b,c": the names in declaration order.
    std::string joined() const {
        std::string out;
        for (const auto& entry : entries) out += (out.empty() ? "" : ",") + std::string(entry.second);
        return out;
    }
    bool parse(const std::string& text, E& out) const {
        for (const auto& entry : entries)
            if (text == entry.second) {
                out = entry.first;
                return true;
            }
        return false;
    }
};

constexpr name_table<dtype, 6> dtype_names{{{{dtype::fp32, "fp32"},
                                              {dtype::bf16, "bf16"},
                                              {dtype::fp16, "fp16"},
                                              {dtype::fp8, "fp8"},
                                              {dtype::int8, "int8"},
                                              {dtype::int4, "int4"}}}};
constexpr name_table<run_mode, 2> mode_names{{{{run_mode::train, "train"}, {run_mode::infer, "infer"}}}};
constexpr name_table<recompute_mode, 3> recompute_names{{{{recompute_mode::none, "none"},
                                                          {recompute_mode::selective, "selective"},
                                                          {recompute_mode::full, "full"}}}};
constexpr name_table<optimizer_kind, 7> optimizer_names{{{{optimizer_kind::adam, "adam"},
                                                           {optimizer_kind::adam_8bit, "adam_8bit"},
                                                           {optimizer_kind::sgd, "sgd"},
                                                           {optimizer_kind::sgd_momentum, "sgd_momentum"},
                                                           {optimizer_kind::lion, "lion"},
                                                           {optimizer_kind::adafactor, "adafactor"},
                                                           {optimizer_kind::none, "none"}}}};
constexpr name_table<offload_target, 3> offload_names{
    {{{offload_target::none, "none"}, {offload_target::cpu, "cpu"}, {offload_target::nvme, "nvme"}}}};
constexpr name_table<norm_kind, 2> norm_names{{{{norm_kind::layernorm, "layernorm"}, {norm_kind::rmsnorm, "rmsnorm"}}}};
constexpr name_table<mlp_kind, 2> mlp_names{{{{mlp_kind::plain, "plain"}, {mlp_kind::gated, "gated"}}}};
constexpr name_table<fsdp_strategy, 5> fsdp_names{{{{fsdp_strategy::full_shard, "full_shard"},
                                                    {fsdp_strategy::shard_grad_op, "shard_grad_op"},
                                                    {fsdp_strategy::hybrid_shard, "hybrid_shard"},
                                                    {fsdp_strategy::hybrid_shard_zero2, "hybrid_shard_zero2"},
                                                    {fsdp_strategy::no_shard, "no_shard"}}}};

constexpr name_table<comm_buffer_model, 2> comm_names{
    {{{comm_buffer_model::memplan, "memplan"}, {comm_buffer_model::deepspeed, "deepspeed"}}}};
constexpr name_table<overlap_setting, 3> overlap_names{
    {{{overlap_setting::auto_default, "auto"}, {overlap_setting::on, "on"}, {overlap_setting::off, "off"}}}};

/// The joined names of a table, built once (an immutable constant after its first use).
template <class Table>
const char* joined_once(const Table& table) {
    static const std::string text = table.joined();
    return text.c_str();
}
}  // namespace

const char* choice_names(dtype) { return joined_once(dtype_names); }
const char* choice_names(run_mode) { return joined_once(mode_names); }
const char* choice_names(recompute_mode) { return joined_once(recompute_names); }
const char* choice_names(optimizer_kind) { return joined_once(optimizer_names); }
const char* choice_names(norm_kind) { return joined_once(norm_names); }
const char* choice_names(mlp_kind) { return joined_once(mlp_names); }
const char* choice_names(offload_target) { return joined_once(offload_names); }
const char* choice_names(fsdp_strategy) { return joined_once(fsdp_names); }
const char* choice_names(comm_buffer_model) { return joined_once(comm_names); }
const char* choice_names(overlap_setting) { return joined_once(overlap_names); }
const char* to_string(comm_buffer_model model) { return comm_names.name(model); }
const char* to_string(overlap_setting setting) { return overlap_names.name(setting); }
bool parse_enum(const std::string& name, comm_buffer_model& out) { return comm_names.parse(name, out); }
bool parse_enum(const std::string& name, overlap_setting& out) { return overlap_names.parse(name, out); }
const char* to_string(fsdp_strategy strategy) { return strategy == fsdp_strategy::unset ? "" : fsdp_names.name(strategy); }
bool parse_enum(const std::string& name, fsdp_strategy& out) { return fsdp_names.parse(name, out); }

std::int64_t zero_stage_of(fsdp_strategy strategy) {
    switch (strategy) {  // Zhao et al. 2023, §3.2: FULL_SHARD ~ ZeRO-3, SHARD_GRAD_OP ~ ZeRO-2
        case fsdp_strategy::full_shard:
        case fsdp_strategy::hybrid_shard: return 3;
        case fsdp_strategy::shard_grad_op:
        case fsdp_strategy::hybrid_shard_zero2: return 2;
        case fsdp_strategy::no_shard: return 0;
        case fsdp_strategy::unset: break;
    }
    return -1;
}

const char* to_string(norm_kind kind) { return norm_names.name(kind); }
const char* to_string(offload_target target) { return offload_names.name(target); }
bool parse_enum(const std::string& name, offload_target& out) { return offload_names.parse(name, out); }
const char* to_string(mlp_kind kind) { return mlp_names.name(kind); }
bool parse_enum(const std::string& name, norm_kind& out) { return norm_names.parse(name, out); }
bool parse_enum(const std::string& name, mlp_kind& out) { return mlp_names.parse(name, out); }
const char* to_string(dtype type) { return dtype_names.name(type); }
const char* to_string(run_mode mode) { return mode_names.name(mode); }
const char* to_string(recompute_mode mode) { return recompute_names.name(mode); }
const char* to_string(optimizer_kind kind) { return optimizer_names.name(kind); }
bool parse_enum(const std::string& name, dtype& out) { return dtype_names.parse(name, out); }
bool parse_enum(const std::string& name, run_mode& out) { return mode_names.parse(name, out); }
bool parse_enum(const std::string& name, recompute_mode& out) { return recompute_names.parse(name, out); }
bool parse_enum(const std::string& name, optimizer_kind& out) { return optimizer_names.parse(name, out); }

std::uint64_t dtype_bits(dtype type) {
    switch (type) {
        case dtype::fp32: return 32;
        case dtype::bf16:
        case dtype::fp16: return 16;
        case dtype::fp8:
        case dtype::int8: return 8;
        case dtype::int4: return 4;
    }
    return 32;
}

}  // namespace memplan
