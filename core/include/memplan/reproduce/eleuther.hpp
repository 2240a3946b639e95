// memplan — a faithful reproduction of EleutherAI's transformer_mem.py (EleutherAI cookbook), defects
// included, so that figures published with it can be checked. Nothing else in memplan uses it.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "memplan/base/types.hpp"

namespace memplan {

/// The script's arguments with its defaults.
struct eleuther_args {
    std::uint64_t params = 20000000000ULL;
    std::uint64_t num_gpus = 1;
    std::uint64_t tensor_parallel_size = 1;
    std::uint64_t pipeline_parallel_size = 1;
    bool partition_activations = false;
    std::int64_t zero_stage = 1;
    bool checkpoint_activations = false;
    std::uint64_t batch_size_per_gpu = 1;
    std::uint64_t hidden_size = 6144;
    std::uint64_t num_attention_heads = 64;
    std::uint64_t sequence_length = 2048;
    std::uint64_t num_layers = 44;
    bool fp32_model = false;
    bool fp32_grads = false;
    double zero_allgather_bucket_size = 5e8;  ///< declared int in the script but defaulting to the float 5e8
    double zero3_max_live_params = 1e9;       ///< likewise
    std::uint64_t misc_mem_gb = 0;
    bool infer = false;
};

/// One printed row: the script's label and its value in GiB (which the script labels "GB").
struct eleuther_row {
    std::string label;
    double gib = 0;
};

/// The script's report: its rows and the exact lines it prints ("Model Memory: 3.21 GB").
struct eleuther_report {
    std::string params_text;  ///< "6.9 B", as the script's convert_params prints it
    std::vector<eleuther_row> rows;
    std::vector<std::string> lines;
    diagnostics errors;
};

/// Reproduces transformer_mem.py's calc_mem, operation by operation in IEEE double.
eleuther_report eleuther_transformer_mem(const eleuther_args& args);

}  // namespace memplan
