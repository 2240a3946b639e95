// Prints memplan's per-tensor activation figures of one layer as JSON, for the validation suite
// (tests/validation/validate_activations.py). Usage:
//   activation_table --hidden 64 --heads 4 [--kv-heads 2] [--head-dim 16] [--ffn 172]
//                    [--norm layernorm|rmsnorm] [--mlp plain|gated] [--dropout 0|1] [--norms-per-layer 2]
//                    [--experts 0 --experts-per-token 0 --moe-ffn 0 --shared-ffn 0]
//                    --seq 32 --batch 2 [--tp 1] [--sp 0|1] [--flash 0|1]
//                    [--recompute none|selective|full] [--dtype bf16] [--kernels fused|eager]
//                    [--adapter none|lora|dora --rank 8 --targets q_proj,v_proj --adapter-dropout 0|1]
#include <algorithm>
#include <cstdint>
#include <cstdlib>
#include <iostream>
#include <string>

#include "memplan/memory/activations.hpp"

namespace {

int usage(const std::string& message) {
    std::cerr << "activation_table: " << message << "\n";
    return 2;
}

std::string json_string(const std::string& s) {
    std::string out = "\"";
    for (char c : s) {
        if (c == '"' || c == '\\') out += '\\';
        out += c;
    }
    return out + "\"";
}

bool parse_u64(const std::string& text, std::uint64_t& out) {
    if (text.empty() || text.find_first_not_of("0123456789") != std::string::npos) return false;
    out = std::strtoull(text.c_str(), nullptr, 10);
    return true;
}

}  // namespace

int main(int argc, char** argv) {
    using namespace memplan;
    layer_activation_input in;
    in.model.hidden_size = 0;
    recompute_mode mode = recompute_mode::none;
    for (int i = 1; i < argc; i += 2) {
        const std::string key = argv[i];
        if (i + 1 >= argc) return usage("missing value for " + key);
        const std::string value = argv[i + 1];
        std::uint64_t n = 0;
        const bool numeric = parse_u64(value, n);
        if (key == "--norm") {
            if (!parse_enum(value, in.model.norm)) return usage("bad --norm");
        } else if (key == "--mlp") {
            if (!parse_enum(value, in.model.mlp)) return usage("bad --mlp");
        } else if (key == "--recompute") {
            if (!parse_enum(value, mode)) return usage("bad --recompute");
        } else if (key == "--dtype") {
            if (!parse_enum(value, in.activation_dtype)) return usage("bad --dtype");
        } else if (key == "--kernels") {
            if (!parse_enum(value, in.kernels)) return usage("bad --kernels");
        } else if (key == "--adapter") {
            adapter_kind kind = adapter_kind::none;
            if (!parse_enum(value, kind)) return usage("bad --adapter");
            in.adapter.enabled = kind != adapter_kind::none;
            in.adapter.dora = kind == adapter_kind::dora;
        } else if (key == "--targets") {
            in.adapter.targets.clear();
            for (std::size_t start = 0; start <= value.size();) {
                const std::size_t end = std::min(value.find(',', start), value.size());
                if (end > start) in.adapter.targets.push_back(value.substr(start, end - start));
                start = end + 1;
            }
        } else if (!numeric) {
            return usage("bad value for " + key);
        } else if (key == "--hidden") {
            in.model.hidden_size = n;
        } else if (key == "--heads") {
            in.model.num_attention_heads = n;
        } else if (key == "--kv-heads") {
            in.model.num_key_value_heads = n;
        } else if (key == "--head-dim") {
            in.model.head_dim = n;
        } else if (key == "--ffn") {
            in.model.intermediate_size = n;
        } else if (key == "--dropout") {
            in.model.dropout = n != 0;
        } else if (key == "--norms-per-layer") {
            in.model.norms_per_layer = n;
        } else if (key == "--experts") {
            in.model.num_experts = n;
        } else if (key == "--experts-per-token") {
            in.model.experts_per_token = n;
        } else if (key == "--moe-ffn") {
            in.model.moe_intermediate_size = n;
        } else if (key == "--shared-ffn") {
            in.model.shared_expert_intermediate_size = n;
        } else if (key == "--seq") {
            in.seq_len = n;
        } else if (key == "--batch") {
            in.micro_batch = n;
        } else if (key == "--tp") {
            in.tp = n;
        } else if (key == "--sp") {
            in.sequence_parallel = n != 0;
        } else if (key == "--rank") {
            in.adapter.rank = n;
        } else if (key == "--adapter-dropout") {
            in.adapter.dropout = n != 0;
        } else if (key == "--flash") {
            in.flash_attention = n != 0;
        } else {
            return usage("unknown option " + key);
        }
    }
    if (in.model.hidden_size == 0 || in.model.num_attention_heads == 0 || in.seq_len == 0 || in.micro_batch == 0 ||
        in.tp == 0)
        return usage("needs --hidden, --heads, --seq, --batch (and --tp > 0)");
    in.model.num_hidden_layers = 1;

    const auto tensors = stored_activation_tensors(in, mode);
    std::cout << "{\"recompute\": " << json_string(to_string(mode)) << ", \"total\": " << total_bytes(tensors)
              << ", \"tensors\": [";
    for (std::size_t i = 0; i < tensors.size(); ++i) {
        std::cout << (i ? ", " : "") << "{\"name\": " << json_string(tensors[i].name)
                  << ", \"bytes\": " << tensors[i].bytes << ", \"note\": " << json_string(tensors[i].note) << "}";
    }
    std::cout << "]}\n";
    return 0;
}
