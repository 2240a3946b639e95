// The names of the enumerations of config.hpp, one table each (config/names.hpp), and the
// to_string / parse_enum / choice_names functions that read them.
#include "config/names.hpp"

namespace memplan {

namespace detail {
namespace {
/// The names of `table` joined by commas, built once (an immutable constant after its first use).
template <class E>
const char* joined_once(const name_table<E>& table) {
    static const std::string text = table.joined();
    return text.c_str();
}
}  // namespace

/// names_of(E): the table of E's names, in declaration order.
#define MEMPLAN_NAME_TABLE(E, ...)                                       \
    const name_table<E>& names_of(E) {                                   \
        static constexpr name_table<E>::entry entries[] = {__VA_ARGS__}; \
        static constexpr name_table<E> table{entries};                   \
        return table;                                                    \
    }

MEMPLAN_NAME_TABLE(dtype, {dtype::fp32, "fp32"}, {dtype::bf16, "bf16"}, {dtype::fp16, "fp16"}, {dtype::fp8, "fp8"},
                   {dtype::int8, "int8"}, {dtype::int4, "int4"})
MEMPLAN_NAME_TABLE(run_mode, {run_mode::train, "train"}, {run_mode::infer, "infer"})
MEMPLAN_NAME_TABLE(recompute_mode, {recompute_mode::none, "none"}, {recompute_mode::selective, "selective"},
                   {recompute_mode::full, "full"}, {recompute_mode::selective_op, "selective_op"})
MEMPLAN_NAME_TABLE(optimizer_kind, {optimizer_kind::adam, "adam"}, {optimizer_kind::adam_8bit, "adam_8bit"},
                   {optimizer_kind::sgd, "sgd"}, {optimizer_kind::sgd_momentum, "sgd_momentum"},
                   {optimizer_kind::lion, "lion"}, {optimizer_kind::adafactor, "adafactor"},
                   {optimizer_kind::none, "none"})
MEMPLAN_NAME_TABLE(norm_kind, {norm_kind::layernorm, "layernorm"}, {norm_kind::rmsnorm, "rmsnorm"})
MEMPLAN_NAME_TABLE(mlp_kind, {mlp_kind::plain, "plain"}, {mlp_kind::gated, "gated"})
MEMPLAN_NAME_TABLE(offload_target, {offload_target::none, "none"}, {offload_target::cpu, "cpu"},
                   {offload_target::nvme, "nvme"})
MEMPLAN_NAME_TABLE(layer_mlp_kind, {layer_mlp_kind::dense, "dense"}, {layer_mlp_kind::moe, "moe"},
                   {layer_mlp_kind::none, "none"})
MEMPLAN_NAME_TABLE(checkpoint_format, {checkpoint_format::none, "none"}, {checkpoint_format::fp8_block, "fp8_block"},
                   {checkpoint_format::mxfp4, "mxfp4"}, {checkpoint_format::nf4, "nf4"},
                   {checkpoint_format::int8, "int8"}, {checkpoint_format::int4_group, "int4_group"},
                   {checkpoint_format::nvfp4, "nvfp4"}, {checkpoint_format::fp8_tensor, "fp8_tensor"})
// fsdp_strategy::unset has no name: the layout is given by zero_stage alone.
MEMPLAN_NAME_TABLE(fsdp_strategy, {fsdp_strategy::full_shard, "full_shard"},
                   {fsdp_strategy::shard_grad_op, "shard_grad_op"}, {fsdp_strategy::hybrid_shard, "hybrid_shard"},
                   {fsdp_strategy::hybrid_shard_zero2, "hybrid_shard_zero2"}, {fsdp_strategy::no_shard, "no_shard"})
MEMPLAN_NAME_TABLE(comm_buffer_model, {comm_buffer_model::memplan, "memplan"},
                   {comm_buffer_model::deepspeed, "deepspeed"})
MEMPLAN_NAME_TABLE(overlap_setting, {overlap_setting::auto_default, "auto"}, {overlap_setting::on, "on"},
                   {overlap_setting::off, "off"})
MEMPLAN_NAME_TABLE(serving_engine, {serving_engine::none, "none"}, {serving_engine::vllm, "vllm"},
                   {serving_engine::sglang, "sglang"}, {serving_engine::trtllm, "trtllm"})
MEMPLAN_NAME_TABLE(engine_release,
                   {engine_release::v0_6, "0.6"}, {engine_release::v0_7, "0.7"}, {engine_release::v0_8, "0.8"},
                   {engine_release::v0_9, "0.9"}, {engine_release::v0_10, "0.10"}, {engine_release::v0_11, "0.11"},
                   {engine_release::v0_12, "0.12"}, {engine_release::v0_13, "0.13"}, {engine_release::v0_14, "0.14"},
                   {engine_release::v0_15, "0.15"}, {engine_release::v0_16, "0.16"}, {engine_release::v0_17, "0.17"},
                   {engine_release::v0_18, "0.18"}, {engine_release::v0_19, "0.19"}, {engine_release::v0_20, "0.20"},
                   {engine_release::v0_21, "0.21"}, {engine_release::v0_22, "0.22"}, {engine_release::v0_23, "0.23"},
                   {engine_release::v0_24, "0.24"}, {engine_release::v0_25, "0.25"}, {engine_release::v0_26, "0.26"},
                   {engine_release::v0_27, "0.27"})
MEMPLAN_NAME_TABLE(vllm_entrypoint, {vllm_entrypoint::serve, "serve"}, {vllm_entrypoint::llm, "llm"})
MEMPLAN_NAME_TABLE(adapter_kind, {adapter_kind::none, "none"}, {adapter_kind::lora, "lora"},
                   {adapter_kind::dora, "dora"})
MEMPLAN_NAME_TABLE(base_precision, {base_precision::bf16, "bf16"}, {base_precision::fp16, "fp16"},
                   {base_precision::fp32, "fp32"}, {base_precision::fp8, "fp8"}, {base_precision::int8, "int8"},
                   {base_precision::nf4, "nf4"}, {base_precision::fp4, "fp4"})
MEMPLAN_NAME_TABLE(float_precision, {float_precision::fp32, "fp32"}, {float_precision::bf16, "bf16"},
                   {float_precision::fp16, "fp16"})
MEMPLAN_NAME_TABLE(kernel_kind, {kernel_kind::fused, "fused"}, {kernel_kind::eager, "eager"})
MEMPLAN_NAME_TABLE(train_framework, {train_framework::none, "none"}, {train_framework::torchtitan, "torchtitan"},
                   {train_framework::hf_trainer, "hf_trainer"}, {train_framework::trl, "trl"},
                   {train_framework::torchtune, "torchtune"}, {train_framework::litgpt, "litgpt"},
                   {train_framework::unsloth, "unsloth"}, {train_framework::axolotl, "axolotl"},
                   {train_framework::megatron, "megatron"}, {train_framework::deepspeed, "deepspeed"},
                   {train_framework::llama_factory, "llama_factory"})
#undef MEMPLAN_NAME_TABLE

const name_table<attention_kind>& names_of(attention_kind) {
    static constexpr name_table<attention_kind>::entry entries[] = {
        {attention_kind::full, "full"},     {attention_kind::sliding, "sliding"}, {attention_kind::chunked, "chunked"},
        {attention_kind::mla, "mla"},       {attention_kind::linear, "linear"},   {attention_kind::mamba, "mamba"},
        {attention_kind::none, "none"}};
    // Hugging Face layer_types values are accepted beside memplan's short names.
    static constexpr name_table<attention_kind>::entry hf_names[] = {{attention_kind::full, "full_attention"},
                                                                      {attention_kind::sliding, "sliding_attention"},
                                                                      {attention_kind::chunked, "chunked_attention"},
                                                                      {attention_kind::linear, "linear_attention"},
                                                                      // configuration_granitemoehybrid.py layer_types
                                                                      {attention_kind::full, "attention"}};
    static constexpr name_table<attention_kind> table{entries, hf_names};
    return table;
}
}  // namespace detail

/// to_string, parse_enum and choice_names of E, read from names_of(E).
#define MEMPLAN_NAME_FUNCTIONS(E)                                                                            \
    const char* to_string(E value) { return detail::names_of(E{}).name(value); }                            \
    bool parse_enum(const std::string& text, E& out) { return detail::names_of(E{}).parse(text, out); }     \
    const char* choice_names(E) { return detail::joined_once(detail::names_of(E{})); }

MEMPLAN_NAME_FUNCTIONS(dtype)
MEMPLAN_NAME_FUNCTIONS(run_mode)
MEMPLAN_NAME_FUNCTIONS(recompute_mode)
MEMPLAN_NAME_FUNCTIONS(optimizer_kind)
MEMPLAN_NAME_FUNCTIONS(norm_kind)
MEMPLAN_NAME_FUNCTIONS(mlp_kind)
MEMPLAN_NAME_FUNCTIONS(offload_target)
MEMPLAN_NAME_FUNCTIONS(checkpoint_format)
MEMPLAN_NAME_FUNCTIONS(comm_buffer_model)
MEMPLAN_NAME_FUNCTIONS(overlap_setting)
MEMPLAN_NAME_FUNCTIONS(serving_engine)
MEMPLAN_NAME_FUNCTIONS(engine_release)
MEMPLAN_NAME_FUNCTIONS(vllm_entrypoint)
MEMPLAN_NAME_FUNCTIONS(adapter_kind)
MEMPLAN_NAME_FUNCTIONS(base_precision)
MEMPLAN_NAME_FUNCTIONS(float_precision)
MEMPLAN_NAME_FUNCTIONS(kernel_kind)
MEMPLAN_NAME_FUNCTIONS(train_framework)
#undef MEMPLAN_NAME_FUNCTIONS

// fsdp_strategy: unset writes as "" (config.hpp); attention and per-layer MLP kinds have no choice list.
const char* to_string(fsdp_strategy strategy) {
    return strategy == fsdp_strategy::unset ? "" : detail::names_of(strategy).name(strategy);
}
bool parse_enum(const std::string& text, fsdp_strategy& out) { return detail::names_of(out).parse(text, out); }
const char* choice_names(fsdp_strategy) { return detail::joined_once(detail::names_of(fsdp_strategy{})); }
const char* to_string(attention_kind kind) { return detail::names_of(kind).name(kind); }
bool parse_enum(const std::string& text, attention_kind& out) { return detail::names_of(out).parse(text, out); }
const char* to_string(layer_mlp_kind kind) { return detail::names_of(kind).name(kind); }
bool parse_enum(const std::string& text, layer_mlp_kind& out) { return detail::names_of(out).parse(text, out); }

}  // namespace memplan
