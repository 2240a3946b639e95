// Reading safetensors headers (memplan/io/safetensors.hpp). The format (huggingface/safetensors
// README.md, "Format"): 8 bytes N, a little-endian u64; N bytes of a JSON object mapping each tensor
// name to {"dtype", "shape", "data_offsets": [begin, end]} relative to the data after the header, and
// an optional "__metadata__" object of strings; then the data.
#include "memplan/io/safetensors.hpp"

#include <set>

#include <nlohmann/json.hpp>

namespace memplan {

namespace {
// nlohmann::json (keys in a std::map), not the core's ordered_json: a checkpoint's header or index
// holds up to some 100,000 names, and an ordered object's inserts search linearly (quadratic time).
using json = nlohmann::json;

/// Parses `text` into `doc`; false when it is not JSON (no exception escapes).
bool parse(const std::string& text, json& doc) {
    doc = json::parse(text, nullptr, /*allow_exceptions=*/false);
    return !doc.is_discarded();
}

/// Bits per value of the safetensors dtypes (safetensors/src/tensor.rs Dtype::bitsize, v0.6.2); 0 for
/// a name that is not one.
std::uint64_t dtype_bits(const std::string& dtype) {
    static const std::pair<const char*, std::uint64_t> bits[] = {
        {"BOOL", 8},     {"F4", 4},      {"F6_E2M3", 6}, {"F6_E3M2", 6}, {"U8", 8},    {"I8", 8},
        {"F8_E5M2", 8},  {"F8_E4M3", 8}, {"F8_E8M0", 8}, {"I16", 16},    {"U16", 16},  {"F16", 16},
        {"BF16", 16},    {"I32", 32},    {"U32", 32},    {"F32", 32},    {"I64", 64},  {"U64", 64},
        {"F64", 64},     {"C64", 64}};
    for (const auto& [name, b] : bits)
        if (dtype == name) return b;
    return 0;
}

/// a · b, or false when it exceeds 2^62 (no real tensor comes near; a hostile header must not wrap).
bool times(std::uint64_t a, std::uint64_t b, std::uint64_t& out) {
    constexpr std::uint64_t limit = std::uint64_t{1} << 62;
    if (a != 0 && b > limit / a) return false;
    out = a * b;
    return true;
}
}  // namespace

outcome<std::uint64_t> safetensors_header_length(const std::string& first_bytes, std::uint64_t file_bytes,
                                                 const std::string& file) {
    outcome<std::uint64_t> out;
    if (first_bytes.size() < 8) {
        out.errors.push_back({file, "is not a safetensors file: shorter than its 8-byte header length"});
        return out;
    }
    std::uint64_t n = 0;
    for (int i = 7; i >= 0; --i) n = (n << 8) | static_cast<unsigned char>(first_bytes[static_cast<std::size_t>(i)]);
    if (n < 2 || n > max_safetensors_header_bytes)
        out.errors.push_back({file, "states a header of " + std::to_string(n) + " bytes; a safetensors header has 2 to " +
                                        std::to_string(max_safetensors_header_bytes) + " bytes"});
    else if (n > file_bytes - std::min<std::uint64_t>(8, file_bytes))
        out.errors.push_back({file, "states a header of " + std::to_string(n) + " bytes but holds only " +
                                        std::to_string(file_bytes) + " bytes"});
    else
        out.value = n;
    return out;
}

outcome<std::vector<stored_tensor>> parse_safetensors_header(const std::string& header, const std::string& file) {
    outcome<std::vector<stored_tensor>> out;
    json doc;
    if (!parse(header, doc) || !doc.is_object()) {
        out.errors.push_back({file, "has a header that is not a JSON object"});
        return out;
    }
    for (const auto& item : doc.items()) {
        if (item.key() == "__metadata__") continue;
        const json& t = item.value();
        const std::string where = "tensor " + item.key();
        const auto fail = [&](const std::string& message) { out.errors.push_back({file, where + " " + message}); };
        if (!t.is_object() || !t.contains("dtype") || !t["dtype"].is_string() || !t.contains("shape") ||
            !t["shape"].is_array() || !t.contains("data_offsets") || !t["data_offsets"].is_array()) {
            fail("must be an object with dtype, shape and data_offsets");
            continue;
        }
        stored_tensor s;
        s.name = item.key();
        s.dtype = t["dtype"].get<std::string>();
        const std::uint64_t bits = dtype_bits(s.dtype);
        if (bits == 0) {
            fail("has an unknown dtype " + s.dtype);
            continue;
        }
        std::uint64_t values = 1;
        bool ok = true;
        for (const auto& d : t["shape"]) {
            ok = ok && d.is_number_unsigned() && times(values, d.get<std::uint64_t>(), values);
            if (ok) s.shape.push_back(d.get<std::uint64_t>());
        }
        if (!ok) {
            fail("must have a shape of non-negative sizes");
            continue;
        }
        s.values = values;
        std::uint64_t value_bits = 0;
        if (!times(values, bits, value_bits)) {
            fail("is too large");
            continue;
        }
        s.bytes = (value_bits + 7) / 8;
        const json& offsets = t["data_offsets"];
        if (offsets.size() != 2 || !offsets[0].is_number_unsigned() || !offsets[1].is_number_unsigned() ||
            offsets[1].get<std::uint64_t>() < offsets[0].get<std::uint64_t>() ||
            offsets[1].get<std::uint64_t>() - offsets[0].get<std::uint64_t>() != s.bytes) {
            fail("must have data_offsets [begin, end] spanning its " + std::to_string(s.bytes) + " bytes");
            continue;
        }
        out.value.push_back(std::move(s));
    }
    return out;
}

outcome<std::vector<std::string>> safetensors_index_files(const std::string& index_text, const std::string& file) {
    outcome<std::vector<std::string>> out;
    json doc;
    if (!parse(index_text, doc) || !doc.is_object() || !doc.contains("weight_map") ||
        !doc["weight_map"].is_object() || doc["weight_map"].empty()) {
        out.errors.push_back({file, "must be a JSON object with a non-empty weight_map"});
        return out;
    }
    std::set<std::string> shards;
    for (const auto& item : doc["weight_map"].items()) {
        if (!item.value().is_string()) {
            out.errors.push_back({file, "weight_map." + item.key() + " must be a file name"});
            return out;
        }
        const std::string shard = item.value().get<std::string>();
        if (shard.empty() || shard.find('/') != std::string::npos || shard.find('\\') != std::string::npos ||
            shard.find("..") != std::string::npos) {
            out.errors.push_back({file, "weight_map." + item.key() + " names " + shard +
                                            ", which is not a file of the model's folder"});
            return out;
        }
        shards.insert(shard);
    }
    out.value.assign(shards.begin(), shards.end());
    return out;
}

}  // namespace memplan
