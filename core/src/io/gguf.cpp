// Reading GGUF headers (memplan/io/gguf.hpp), the other checkpoint header the CLI reads beside
// safetensors (safetensors.cpp). The format, ggml-org/ggml docs/gguf.md at commit
// d99724f2b141fed9e1a9f402213506c081433465: little-endian; u32 magic "GGUF", u32 version, u64
// tensor_count, u64 metadata_kv_count; the key-value pairs (a string key, a u32 value type, the
// value); the tensor infos (a string name, u32 n_dimensions, u64 dimensions, u32 ggml_type, u64
// offset relative to the tensor data); padding to general.alignment; the data. A string is a u64
// length and that many bytes; an array a u32 element type, a u64 length and the elements.
#include "memplan/io/gguf.hpp"

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <set>

#include <nlohmann/json.hpp>

#include "base/checks.hpp"
#include "io/json_text.hpp"

namespace memplan {

namespace {

/// ggml's types: ids from ggml-org/ggml include/ggml.h enum ggml_type; values per block
/// (blck_size) and bytes per block (type_size) from src/ggml.c type_traits and the block structs of
/// src/ggml-common.h (their static_asserts give each size), all at commit
/// d99724f2b141fed9e1a9f402213506c081433465. QK_K = 256; ggml_half 2 bytes.
constexpr gguf_type_info ggml_types[] = {
    {0, "F32", 1, 4},            // float
    {1, "F16", 1, 2},            // ggml_fp16_t
    {2, "Q4_0", 32, 18},         // half d + QK4_0/2
    {3, "Q4_1", 32, 20},         // 2 half + QK4_1/2
    {6, "Q5_0", 32, 22},         // half + u32 qh + QK5_0/2
    {7, "Q5_1", 32, 24},         // 2 half + u32 qh + QK5_1/2
    {8, "Q8_0", 32, 34},         // half + QK8_0
    {9, "Q8_1", 32, 36},         // 2 half + QK8_1
    {10, "Q2_K", 256, 84},       // 2 half + QK_K/16 + QK_K/4
    {11, "Q3_K", 256, 110},      // half + QK_K/4 + QK_K/8 + 12
    {12, "Q4_K", 256, 144},      // 2 half + K_SCALE_SIZE 12 + QK_K/2
    {13, "Q5_K", 256, 176},      // 2 half + 12 + QK_K/2 + QK_K/8
    {14, "Q6_K", 256, 210},      // half + QK_K/16 + 3·QK_K/4
    {15, "Q8_K", 256, 292},      // float + QK_K + QK_K/16 · int16
    {16, "IQ2_XXS", 256, 66},    // half + QK_K/8 · u16
    {17, "IQ2_XS", 256, 74},     // half + QK_K/8 · u16 + QK_K/32
    {18, "IQ3_XXS", 256, 98},    // half + 3·(QK_K/8)
    {19, "IQ1_S", 256, 50},      // half + QK_K/8 + QK_K/16
    {20, "IQ4_NL", 32, 18},      // half + QK4_NL/2
    {21, "IQ3_S", 256, 110},     // half + 13·(QK_K/32) + IQ3S_N_SCALE (QK_K/64)
    {22, "IQ2_S", 256, 82},      // half + QK_K/4 + QK_K/16
    {23, "IQ4_XS", 256, 136},    // half + u16 + QK_K/64 + QK_K/2
    {24, "I8", 1, 1},            // int8_t
    {25, "I16", 1, 2},           // int16_t
    {26, "I32", 1, 4},           // int32_t
    {27, "I64", 1, 8},           // int64_t
    {28, "F64", 1, 8},           // double
    {29, "IQ1_M", 256, 56},      // QK_K/8 + QK_K/16 + QK_K/32
    {30, "BF16", 1, 2},          // ggml_bf16_t
    {34, "TQ1_0", 256, 54},      // half + QK_K/64 + (QK_K − 4·QK_K/64)/5
    {35, "TQ2_0", 256, 66},      // half + QK_K/4
    {39, "MXFP4", 32, 17},       // u8 e + QK_MXFP4/2
    {40, "NVFP4", 64, 36},       // u8 · (QK_NVFP4/QK_NVFP4_SUB = 4) + QK_NVFP4/2
    {41, "Q1_0", 128, 18},       // half + QK1_0/8
    {42, "Q2_0", 64, 18},        // half + QK2_0/4
};

/// docs/gguf.md gguf_metadata_value_type: the bytes of each fixed-size type (0 for string and array).
std::uint64_t value_type_bytes(std::uint32_t type) {
    switch (type) {
        case 0: case 1: case 7: return 1;   // uint8, int8, bool
        case 2: case 3: return 2;           // uint16, int16
        case 4: case 5: case 6: return 4;   // uint32, int32, float32
        case 10: case 11: case 12: return 8;  // uint64, int64, float64
        default: return 0;
    }
}

const char* value_type_name(std::uint32_t type) {
    static const char* const names[] = {"uint8", "int8",  "uint16", "int16", "uint32", "int32", "float32",
                                        "bool",  "string", "array", "uint64", "int64", "float64"};
    return type < 13 ? names[type] : "unknown";
}

/// Nested arrays deeper than this are refused (real files nest none; a hostile one must not recurse).
constexpr int max_array_depth = 8;
/// docs/gguf.md: a key is at most 65535 bytes, a tensor name at most 64 (ggml src/gguf.cpp, at the
/// commit above, reads only names shorter than GGML_MAX_NAME = 64; the spec's bound is kept here).
constexpr std::uint64_t max_key_bytes = 65535, max_name_bytes = 64;
/// docs/gguf.md gguf_tensor_info_t: "Currently at most 4" dimensions (GGML_MAX_DIMS).
constexpr std::uint32_t max_dims = 4;

/// A cursor over the bytes read; positions beyond them are "truncated" (the file may hold more) or,
/// when the file itself ends, an error.
class reader {
public:
    reader(const std::string& bytes, std::uint64_t file_bytes) : bytes_(bytes), file_bytes_(file_bytes) {}
    std::uint64_t at = 0;
    bool truncated = false;  ///< the bytes read ended, but the file holds more
    std::string error;       ///< set once; parsing stops

    /// The bytes left in the file (not only in what was read).
    std::uint64_t file_left() const { return file_bytes_ > at ? file_bytes_ - at : 0; }
    bool ok() const { return !truncated && error.empty(); }
    /// Room for `n` more bytes: false with truncated (more to read) or an error (the file ends).
    bool need(std::uint64_t n, const std::string& what) {
        if (!ok()) return false;
        if (n > file_left()) {
            fail(what + " needs " + std::to_string(n) + " bytes at byte " + std::to_string(at) + " but the file holds " +
                 std::to_string(file_left()) + " more");
            return false;
        }
        if (n > bytes_.size() - std::min<std::uint64_t>(at, bytes_.size())) {
            truncated = true;
            return false;
        }
        return true;
    }
    void fail(const std::string& message) {
        if (error.empty()) error = message;
    }
    std::uint64_t uint(int width, const std::string& what) {
        if (!need(static_cast<std::uint64_t>(width), what)) return 0;
        std::uint64_t v = 0;
        for (int i = width - 1; i >= 0; --i)
            v = (v << 8) | static_cast<unsigned char>(bytes_[static_cast<std::size_t>(at) + static_cast<std::size_t>(i)]);
        at += static_cast<std::uint64_t>(width);
        return v;
    }
    /// A string's length, checked against the file before anything is read; `keep`: its text.
    bool string(const std::string& what, std::uint64_t max_bytes, std::string* keep) {
        const std::uint64_t n = uint(8, what + "'s length");
        if (!ok()) return false;
        if (n > max_bytes) {
            fail(what + " states a length of " + std::to_string(n) + " bytes; at most " + std::to_string(max_bytes));
            return false;
        }
        if (!need(n, what + " (a string of " + std::to_string(n) + " bytes)")) return false;
        if (keep != nullptr) keep->assign(bytes_, static_cast<std::size_t>(at), static_cast<std::size_t>(n));
        at += n;
        return true;
    }
    void skip(std::uint64_t n, const std::string& what) {
        if (need(n, what)) at += n;
    }

private:
    const std::string& bytes_;
    std::uint64_t file_bytes_;
};

/// The shortest decimal that reads back as `f` (a float32's 1e-6, not 9.99999997e-07): at most 9
/// significant digits always suffice (IEEE 754 single, FLT_DECIMAL_DIG).
double shortest(float f) {
    for (int digits = 1; digits <= 9; ++digits) {
        char text[32];
        std::snprintf(text, sizeof text, "%.*g", digits, static_cast<double>(f));
        const double back = std::strtod(text, nullptr);
        if (static_cast<float>(back) == f) return back;
    }
    return static_cast<double>(f);
}

/// One metadata value of `type` named `what`; scalars into `out` (when given), arrays their length.
void read_value(reader& r, std::uint32_t type, const std::string& what, gguf_value* out, int depth) {
    if (out != nullptr) out->type = type;
    const std::uint64_t width = value_type_bytes(type);
    if (type == 8) {
        r.string(what, r.file_left(), out != nullptr ? &out->text : nullptr);
        return;
    }
    if (type == 9) {
        if (depth >= max_array_depth) {
            r.fail(what + " nests arrays deeper than " + std::to_string(max_array_depth));
            return;
        }
        const std::uint32_t element = static_cast<std::uint32_t>(r.uint(4, what + "'s element type"));
        const std::uint64_t length = r.uint(8, what + "'s length");
        if (!r.ok()) return;
        const std::uint64_t element_bytes = value_type_bytes(element);
        if (element_bytes == 0 && element != 8 && element != 9) {
            r.fail(what + " is an array of unknown value type " + std::to_string(element));
            return;
        }
        // Each element takes at least its width, or 8 bytes (a string's or an array's length).
        const std::uint64_t least = element_bytes != 0 ? element_bytes : (element == 8 ? 8 : 12);
        if (length > r.file_left() / least) {
            r.fail(what + " states " + std::to_string(length) + " elements of " + value_type_name(element) +
                   ", more than the " + std::to_string(r.file_left()) + " bytes left in the file hold");
            return;
        }
        if (out != nullptr) {
            out->array_type = element;
            out->array_length = length;
        }
        if (element_bytes != 0) {
            r.skip(length * element_bytes, what);
            return;
        }
        // One name for every element (not one built per element: a vocabulary has some 150,000).
        const std::string elements = what + "'s elements";
        for (std::uint64_t i = 0; i < length && r.ok(); ++i) read_value(r, element, elements, nullptr, depth + 1);
        return;
    }
    if (width == 0) {
        r.fail(what + " has unknown value type " + std::to_string(type));
        return;
    }
    const std::uint64_t raw = r.uint(static_cast<int>(width), what);
    if (!r.ok()) return;
    if (type == 7 && raw > 1) {
        r.fail(what + " is a bool of value " + std::to_string(raw) + " (0 or 1)");
        return;
    }
    if (out == nullptr) return;
    if (type == 6 || type == 12) {
        if (type == 6) {
            float f = 0;
            const std::uint32_t bits = static_cast<std::uint32_t>(raw);
            static_assert(sizeof f == sizeof bits, "IEEE 754 single");
            std::memcpy(&f, &bits, sizeof f);
            out->real = shortest(f);
        } else {
            static_assert(sizeof out->real == sizeof raw, "IEEE 754 double");
            std::memcpy(&out->real, &raw, sizeof raw);
        }
        return;
    }
    const bool is_signed = type == 1 || type == 3 || type == 5 || type == 11;
    const std::uint64_t sign_bit = std::uint64_t{1} << (8 * width - 1);
    if (is_signed && (raw & sign_bit) != 0) {
        out->negative = true;
        // The magnitude of a negative two's-complement value of `width` bytes.
        const std::uint64_t mask = width == 8 ? ~std::uint64_t{0} : (std::uint64_t{1} << (8 * width)) - 1;
        out->integer = ((~raw) & mask) + 1;
    } else {
        out->integer = raw;
    }
}

}  // namespace

const gguf_type_info* gguf_type(std::uint32_t id) {
    for (const gguf_type_info& t : ggml_types)
        if (t.id == id) return &t;
    return nullptr;
}

gguf_parse parse_gguf_header(const std::string& bytes, std::uint64_t file_bytes, const std::string& file) {
    gguf_parse out;
    gguf_header& h = out.header.value;
    const auto fail = [&](const std::string& message) {
        out.header.errors.push_back({file, message});
        return out;
    };
    reader r(bytes, file_bytes);
    if (file_bytes < 4 || (bytes.size() >= 4 && bytes.compare(0, 4, "GGUF") != 0))
        return fail("is not a GGUF file: it does not start with the magic bytes \"GGUF\"");
    h.version = static_cast<std::uint32_t>((r.at = 4, r.uint(4, "the version")));
    h.tensor_count = r.uint(8, "tensor_count");
    h.metadata_kv_count = r.uint(8, "metadata_kv_count");
    if (r.truncated) return out.needs_more = true, out;
    if (!r.error.empty()) return fail("is cut short: " + r.error);
    // docs/gguf.md: version 3 (big-endian support) and 2 share this layout; version 1's counts were 32-bit.
    if (h.version != 2 && h.version != 3)
        return fail("is GGUF version " + std::to_string(h.version) + "; memplan reads versions 2 and 3" +
                    (h.version > 0xffff ? " (a big-endian file reads as such a version)" : ""));
    // The least bytes a key-value pair takes (an empty key's length 8, its type 4, a 1-byte value) and a
    // tensor info (name length 8, n_dimensions 4, type 4, offset 8): the counts must fit in the file.
    if (h.metadata_kv_count > r.file_left() / 13)
        return fail("states metadata_kv_count " + std::to_string(h.metadata_kv_count) + ", more than its " +
                    std::to_string(file_bytes) + " bytes can hold");
    if (h.tensor_count > r.file_left() / 24)
        return fail("states tensor_count " + std::to_string(h.tensor_count) + ", more than its " +
                    std::to_string(file_bytes) + " bytes can hold");
    for (std::uint64_t i = 0; i < h.metadata_kv_count && r.ok(); ++i) {
        std::string key;
        if (!r.string("metadata key " + std::to_string(i), max_key_bytes, &key)) break;
        const std::uint32_t type = static_cast<std::uint32_t>(r.uint(4, "metadata " + key + "'s value type"));
        if (!r.ok()) break;
        gguf_value value;
        read_value(r, type, "metadata " + key, &value, 0);
        if (r.ok() && !h.metadata.emplace(key, value).second) r.fail("metadata " + key + " is given twice");
    }
    if (r.truncated) return out.needs_more = true, out;
    if (!r.error.empty()) return fail(r.error);
    if (const auto a = h.metadata.find("general.alignment"); a != h.metadata.end()) {
        // docs/gguf.md "general.alignment: uint32"; ggml src/gguf.cpp (the commit above) also requires a power of two.
        const std::uint64_t n = a->second.integer;
        if (a->second.type != 4 || n == 0 || (n & (n - 1)) != 0)
            return fail("metadata general.alignment must be a uint32 power of two");
        h.alignment_bytes = n;
    }
    std::set<std::string> names;
    for (std::uint64_t i = 0; i < h.tensor_count && r.ok(); ++i) {
        stored_tensor t;
        if (!r.string("tensor " + std::to_string(i) + "'s name", max_name_bytes, &t.name)) break;
        const std::string what = "tensor " + t.name;
        const std::uint32_t dims = static_cast<std::uint32_t>(r.uint(4, what + "'s n_dimensions"));
        if (!r.ok()) break;
        if (dims > max_dims) {
            r.fail(what + " has " + std::to_string(dims) + " dimensions; at most " + std::to_string(max_dims));
            break;
        }
        std::uint64_t values = 1;
        bool fits = true;
        for (std::uint32_t d = 0; d < dims; ++d) {
            const std::uint64_t n = r.uint(8, what + "'s dimensions");
            t.shape.push_back(n);
            fits = fits && detail::times(values, n, values);
        }
        const std::uint32_t type_id = static_cast<std::uint32_t>(r.uint(4, what + "'s type"));
        const std::uint64_t offset = r.uint(8, what + "'s offset");
        if (!r.ok()) break;
        if (!fits) {
            r.fail(what + " has more than 2^62 values");
            break;
        }
        const gguf_type_info* type = gguf_type(type_id);
        if (type == nullptr) {
            r.fail(what + " has unknown ggml type " + std::to_string(type_id));
            break;
        }
        // ggml quantizes rows: the first dimension (ne0) holds whole blocks (ggml src/gguf.cpp at the
        // commit above refuses ne[0] % blck_size != 0).
        const std::uint64_t row = t.shape.empty() ? 1 : t.shape[0];
        if (row % type->block_values != 0) {
            r.fail(what + " of type " + type->name + " has rows of " + std::to_string(row) +
                   " values, not a multiple of its block of " + std::to_string(type->block_values));
            break;
        }
        if (offset % h.alignment_bytes != 0) {
            r.fail(what + " has offset " + std::to_string(offset) + ", not a multiple of the alignment " +
                   std::to_string(h.alignment_bytes));
            break;
        }
        if (!names.insert(t.name).second) {
            r.fail(what + " is named twice");
            break;
        }
        t.dtype = type->name;
        t.values = values;
        if (!detail::times(values / type->block_values, type->block_bytes, t.bytes)) {  // blocks × bytes per block
            r.fail(what + " has more than 2^62 bytes");
            break;
        }
        h.tensors.push_back(std::move(t));
        h.offsets.push_back(offset);
    }
    if (r.truncated) return out.needs_more = true, out;
    if (!r.error.empty()) return fail(r.error);
    // docs/gguf.md gguf_file_t: the data starts at the header's end padded to ALIGNMENT.
    h.data_offset_bytes = r.at + (h.alignment_bytes - r.at % h.alignment_bytes) % h.alignment_bytes;
    for (std::size_t i = 0; i < h.tensors.size(); ++i) {
        const std::uint64_t data = file_bytes >= h.data_offset_bytes ? file_bytes - h.data_offset_bytes : 0;
        if (h.offsets[i] > data || h.tensors[i].bytes > data - h.offsets[i])
            return fail("tensor " + h.tensors[i].name + "'s " + std::to_string(h.tensors[i].bytes) + " bytes at offset " +
                        std::to_string(h.offsets[i]) + " end beyond the file's " + std::to_string(data) +
                        " bytes of tensor data");
    }
    return out;
}

namespace {

/// The families memplan maps, by general.architecture: the model_type and architectures of the
/// Hugging Face config.json they were converted from. llama.cpp convert_hf_to_gguf.py (ggml-org/llama.cpp
/// at commit 0024aa7417efd50a7c2a79e049dfbbbceb0beaaf) writes LlamaForCausalLM and MistralForCausalLM as
/// "llama" (a Mixtral as "llama" with expert_count), Qwen2ForCausalLM as "qwen2", Qwen3ForCausalLM as
/// "qwen3", Qwen3MoeForCausalLM as "qwen3moe".
struct gguf_family {
    const char* architecture;
    const char* model_type;
    const char* hf_architecture;
    bool moe;
};
constexpr gguf_family gguf_families[] = {
    {"llama", "llama", "LlamaForCausalLM", false},
    {"qwen2", "qwen2", "Qwen2ForCausalLM", false},
    {"qwen3", "qwen3", "Qwen3ForCausalLM", false},
    {"qwen3moe", "qwen3_moe", "Qwen3MoeForCausalLM", true},
};

/// GGUF tensor names (gguf-py/gguf/constants.py TENSOR_NAMES, llama.cpp at the commit above) and the
/// Hugging Face module names they were converted from (gguf-py/gguf/tensor_mapping.py).
constexpr std::pair<const char*, const char*> block_tensor_names[] = {
    {"attn_norm", "input_layernorm"},
    {"ffn_norm", "post_attention_layernorm"},
    {"attn_q", "self_attn.q_proj"},
    {"attn_k", "self_attn.k_proj"},
    {"attn_v", "self_attn.v_proj"},
    {"attn_output", "self_attn.o_proj"},
    {"attn_q_norm", "self_attn.q_norm"},
    {"attn_k_norm", "self_attn.k_norm"},
    {"ffn_gate", "mlp.gate_proj"},
    {"ffn_up", "mlp.up_proj"},
    {"ffn_down", "mlp.down_proj"},
    {"ffn_gate_inp", "mlp.gate"},
    {"ffn_gate_exps", "mlp.experts.gate_proj"},
    {"ffn_up_exps", "mlp.experts.up_proj"},
    {"ffn_down_exps", "mlp.experts.down_proj"},
    {"ffn_gate_inp_shexp", "mlp.shared_expert_gate"},
    {"ffn_gate_shexp", "mlp.shared_expert.gate_proj"},
    {"ffn_up_shexp", "mlp.shared_expert.up_proj"},
    {"ffn_down_shexp", "mlp.shared_expert.down_proj"},
};

const gguf_value* find(const gguf_header& h, const std::string& key) {
    const auto it = h.metadata.find(key);
    return it == h.metadata.end() ? nullptr : &it->second;
}

bool is_integer_type(std::uint32_t type) {
    return type <= 5 || type == 10 || type == 11;
}

bool has_tensor(const gguf_header& h, const std::string& name) {
    for (const stored_tensor& t : h.tensors)
        if (t.name == name) return true;
    return false;
}

}  // namespace

std::vector<std::string> gguf_architectures() {
    std::vector<std::string> out;
    for (const gguf_family& f : gguf_families) out.push_back(f.architecture);
    return out;
}

outcome<std::string> gguf_hf_config(const gguf_header& h, const std::string& file) {
    outcome<std::string> out;
    const auto fail = [&](const std::string& field, const std::string& message) {
        out.errors.push_back({file, "metadata " + field + " " + message});
        return out;
    };
    const gguf_value* arch = find(h, "general.architecture");
    if (arch == nullptr || arch->type != 8) return fail("general.architecture", "must be a string (the model's architecture)");
    const gguf_family* family = nullptr;
    for (const gguf_family& f : gguf_families)
        if (arch->text == f.architecture) family = &f;
    if (family == nullptr) {
        std::string known;
        for (const gguf_family& f : gguf_families) known += std::string(known.empty() ? "" : ", ") + f.architecture;
        return fail("general.architecture", "is \"" + arch->text + "\", which memplan does not map onto a model (it maps " +
                                                known + ")");
    }
    const std::string a = arch->text;
    detail::ordered_json config;
    const auto integer = [&](const std::string& key, const char* hf, bool required) {
        const gguf_value* v = find(h, a + "." + key);
        if (v == nullptr) {
            if (required) fail(a + "." + key, "is required for a " + a + " model");
            return;
        }
        if (!is_integer_type(v->type) || v->negative) {
            fail(a + "." + key, "must be a non-negative integer (it is of type " + std::string(value_type_name(v->type)) + ")");
            return;
        }
        config[hf] = v->integer;
    };
    const auto real = [&](const std::string& key, const char* hf) {
        const gguf_value* v = find(h, a + "." + key);
        if (v == nullptr) return;
        if (v->type != 6 && v->type != 12) {
            fail(a + "." + key, "must be a float32 or float64");
            return;
        }
        config[hf] = v->real;
    };
    config["_source"] = "built by memplan from the GGUF metadata of " + file;
    config["architectures"] = detail::ordered_json::array({family->hf_architecture});
    // gguf-py/gguf/constants.py Keys.LLM and Keys.Attention (llama.cpp at the commit above).
    integer("block_count", "num_hidden_layers", true);
    integer("embedding_length", "hidden_size", true);
    integer("attention.head_count", "num_attention_heads", true);
    integer("attention.head_count_kv", "num_key_value_heads", false);
    integer("context_length", "max_position_embeddings", false);
    // convert_hf_to_gguf.py TextModel.set_gguf_parameters writes config.json's head_dim as key_length
    // and value_length; the families here have one head_dim for both.
    integer("attention.key_length", "head_dim", false);
    if (const gguf_value* k = find(h, a + ".attention.key_length"), *v = find(h, a + ".attention.value_length");
        k != nullptr && v != nullptr && (k->integer != v->integer || k->type != v->type))
        fail(a + ".attention.value_length", "differs from " + a + ".attention.key_length; a " + a +
                                                " model has one head_dim for keys and values");
    real("rope.freq_base", "rope_theta");
    real("attention.layer_norm_rms_epsilon", "rms_norm_eps");
    integer("vocab_size", "vocab_size", false);
    if (!config.contains("vocab_size")) {
        if (const gguf_value* tokens = find(h, "tokenizer.ggml.tokens"); tokens != nullptr && tokens->type == 9)
            config["vocab_size"] = tokens->array_length;
    }
    if (!config.contains("vocab_size"))
        return fail(a + ".vocab_size", "is absent and so is tokenizer.ggml.tokens: the vocabulary's size is unknown");
    const gguf_value* experts = find(h, a + ".expert_count");
    const bool moe = experts != nullptr && experts->integer != 0;
    std::string model_type = family->model_type;
    if (moe && !family->moe && a == "llama") {
        // convert_hf_to_gguf.py writes MixtralForCausalLM as "llama" with expert_count.
        model_type = "mixtral";
        config["architectures"] = detail::ordered_json::array({"MixtralForCausalLM"});
        integer("expert_count", "num_local_experts", true);
        integer("expert_used_count", "num_experts_per_tok", true);
        integer("feed_forward_length", "intermediate_size", true);
    } else if (family->moe) {
        integer("expert_count", "num_experts", true);
        integer("expert_used_count", "num_experts_per_tok", true);
        integer("expert_feed_forward_length", "moe_intermediate_size", true);
        integer("feed_forward_length", "intermediate_size", false);
        // A layer without a router (ffn_gate_inp) is a dense one: config.json's mlp_only_layers.
        config["decoder_sparse_step"] = 1;
        std::set<std::string> names;  // one pass over the tensors, not one per layer
        for (const stored_tensor& t : h.tensors) names.insert(t.name);
        detail::ordered_json dense = detail::ordered_json::array();
        // At most 2^16 layers (memplan/base/limits.hpp); the resolver refuses more, naming the field.
        if (config.contains("num_hidden_layers"))
            for (std::uint64_t i = 0; i < config["num_hidden_layers"].get<std::uint64_t>() && i < 65536; ++i)
                if (names.count("blk." + std::to_string(i) + ".ffn_gate_inp.weight") == 0) dense.push_back(i);
        config["mlp_only_layers"] = dense;
    } else if (moe) {
        return fail(a + ".expert_count", "is " + std::to_string(experts->integer) + ", but a " + a + " model has no experts");
    } else {
        integer("feed_forward_length", "intermediate_size", true);
    }
    config["model_type"] = model_type;
    // Biases on q/k/v (Qwen2 always; a Llama with attention_bias) are stored as blk.N.attn_q.bias.
    if (a == "llama") config["attention_bias"] = has_tensor(h, "blk.0.attn_q.bias");
    // llama.cpp's loaders use token_embd as the output head when output.weight is absent (tied).
    config["tie_word_embeddings"] = !has_tensor(h, "output.weight");
    if (!out.errors.empty()) return out;
    out.value = detail::dump_json(config);
    return out;
}

std::vector<stored_tensor> gguf_hf_tensors(const gguf_header& h) {
    std::vector<stored_tensor> out = h.tensors;
    for (stored_tensor& t : out) {
        const std::string& n = t.name;
        if (n == "token_embd.weight") t.name = "model.embed_tokens.weight";
        else if (n == "output_norm.weight") t.name = "model.norm.weight";
        else if (n == "output.weight") t.name = "lm_head.weight";
        else if (n == "rope_freqs.weight") t.name = "model.rotary_emb.inv_freq";  // Llama 3's RoPE factors: a buffer
        else if (n.rfind("blk.", 0) == 0) {
            const std::size_t dot = n.find('.', 4), last = n.rfind('.');
            if (dot == std::string::npos || dot == 4 || last <= dot) continue;
            const std::string index = n.substr(4, dot - 4), module = n.substr(dot + 1, last - dot - 1);
            if (index.find_first_not_of("0123456789") != std::string::npos) continue;
            for (const auto& [gguf, hf] : block_tensor_names)
                if (module == gguf) t.name = "model.layers." + index + "." + hf + n.substr(last);
        }
    }
    return out;
}

}  // namespace memplan
