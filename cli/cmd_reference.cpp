// memplan deepspeed-estimate / megatron-memory: two widely used estimators reproduced with their own
// conventions (memplan/reproduce/reference.hpp), so their published figures can be checked.
#include <iostream>

#include "args.hpp"
#include "commands.hpp"
#include "memplan/api/front_end.hpp"
#include "memplan/reproduce/reference.hpp"
#include "report.hpp"

namespace memplan::cli {

namespace {
/// The core's argument names (DeepSpeed's own) as this command's flags.
const std::vector<std::pair<std::string, std::string>> deepspeed_flag_names = {
    {"total_params", "params"}, {"largest_layer_params", "largest-layer-params"},
    {"num_gpus_per_node", "gpus-per-node"}, {"num_nodes", "nodes"}};
}  // namespace

/// DeepSpeed's estimate_zero{2,3}_model_states_mem_needs_all_cold, reproduced with its table.
int run_deepspeed_estimate(const std::vector<std::string>& argv) {
    const auto args = parse_args(argv, {{"stage", {}, true}, {"params", {}, true}, {"largest-layer-params", {}, true},
                                        {"gpus-per-node", {}, true}, {"nodes", {}, true}, {"json", {}, false}});
    if (!args.error.empty()) return usage_error(args.error);
    diagnostics errors;
    const bool json = args.has("json");
    const std::string stage = args.value("stage").value_or("3");
    if (stage != "2" && stage != "3") errors.push_back({"stage", "must be 2 or 3"});
    if (!args.has("params")) errors.push_back({"params", "is required"});
    if (stage == "3" && !args.has("largest-layer-params")) errors.push_back({"largest-layer-params", "is required for stage 3"});
    const std::uint64_t params = quantity(args, "params", 0, errors, max_param_count);
    const std::uint64_t largest = quantity(args, "largest-layer-params", 0, errors, max_param_count);
    const std::uint64_t per_node = quantity(args, "gpus-per-node", 1, errors, 1024);
    const std::uint64_t nodes = quantity(args, "nodes", 1, errors, 65536);
    if (!errors.empty()) return report_errors(errors, json);
    const auto rows = stage == "2" ? deepspeed_zero2_estimate(params, per_node, nodes)
                                   : deepspeed_zero3_estimate(params, largest, per_node, nodes);
    if (!rows.ok()) return report_errors(rename_fields(rows.errors, deepspeed_flag_names), json);
    if (json) {
        std::cout << deepspeed_rows_json(rows.value) << "\n";
        return 0;
    }
    std::cout << deepspeed_table_text(rows.value, params, largest, per_node, nodes, stage == "3");
    std::cout << "(DeepSpeed's estimator reproduced: its \"GB\" are GiB, 2^30 bytes; CPU figures include its 1.5 buffer factor)\n";
    return 0;
}

/// Megatron-LM's theoretical memory report, reproduced.
int run_megatron_memory(const std::vector<std::string>& argv) {
    const std::vector<option_spec> specs = {
        {"num-layers", {}, true}, {"hidden-size", {}, true}, {"num-attention-heads", {}, true},
        {"num-query-groups", {}, true}, {"kv-channels", {}, true}, {"ffn-hidden-size", {}, true},
        {"padded-vocab-size", {}, true}, {"seq-length", {}, true}, {"micro-batch-size", {}, true},
        {"num-experts", {}, true}, {"swiglu", {}, false}, {"untie-embeddings-and-output-weights", {}, false},
        {"use-distributed-optimizer", {}, false}, {"tensor-model-parallel-size", {}, true},
        {"pipeline-model-parallel-size", {}, true}, {"data-parallel-size", {}, true},
        {"virtual-pipeline-model-parallel-size", {}, true}, {"num-microbatches", {}, true}};
    const auto args = parse_args(argv, specs);
    if (!args.error.empty()) return usage_error(args.error);
    diagnostics errors;
    megatron_args a;
    auto q = [&](const char* name, std::uint64_t fallback) { return quantity(args, name, fallback, errors, max_param_count); };
    a.num_layers = q("num-layers", 0);
    a.hidden_size = q("hidden-size", 0);
    a.num_attention_heads = q("num-attention-heads", 0);
    a.num_query_groups = q("num-query-groups", 0);
    a.kv_channels = q("kv-channels", 0);
    a.ffn_hidden_size = q("ffn-hidden-size", 4 * a.hidden_size);
    a.padded_vocab_size = q("padded-vocab-size", 0);
    a.seq_length = q("seq-length", 0);
    a.micro_batch_size = q("micro-batch-size", 1);
    a.num_experts = q("num-experts", 0);
    a.swiglu = args.has("swiglu");
    a.untie_embeddings_and_output_weights = args.has("untie-embeddings-and-output-weights");
    a.use_distributed_optimizer = args.has("use-distributed-optimizer");
    a.tensor_model_parallel_size = q("tensor-model-parallel-size", 1);
    a.pipeline_model_parallel_size = q("pipeline-model-parallel-size", 1);
    a.data_parallel_size = q("data-parallel-size", 1);
    a.virtual_pipeline_model_parallel_size = q("virtual-pipeline-model-parallel-size", 0);
    a.num_microbatches = q("num-microbatches", 0);
    if (!errors.empty()) return report_errors(errors, false);
    const auto r = megatron_theoretical_memory(a);
    // The core names Megatron-LM's arguments (num_layers); the user typed their flags (--num-layers).
    if (!r.errors.empty()) return report_errors(dashed_fields(r.errors), false);
    std::cout << megatron_report_line(r) << "(Megatron-LM's formula reproduced: its \"MB\" are MiB; it assumes sequence parallelism and selective recompute)\n";
    return 0;
}

}  // namespace memplan::cli
