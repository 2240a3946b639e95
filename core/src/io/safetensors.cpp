// Reading safetensors headers (memplan/io/safetensors.hpp). The format (huggingface/safetensors
// README.md, "Format"): 8 bytes N, a little-endian u64; N bytes of a JSON object mapping each tensor
// name to {"dtype", "shape", "data_offsets": [begin, end]} relative to the data after the header, and
// an optional "__metadata__" object of strings; then the data. The Hub model names and addresses of
// memplan/io/hub.hpp, whose files these are, are in hub.cpp; GGUF headers (memplan/io/gguf.hpp), the
// other checkpoint header the CLI reads, in gguf.cpp.
#include "memplan/io/safetensors.hpp"

#include <map>
#include <set>

#include <nlohmann/json.hpp>

#include "base/checks.hpp"
#include "io/json_text.hpp"
#include "memplan/io/hub.hpp"

namespace memplan {

namespace {
// Read from nlohmann's SAX events (ordered_json::sax_parse over the text, as io/json.cpp's
// parse_json reads every other document), not into a document: a checkpoint's header or index holds
// up to some 100,000 names, and an ordered object's inserts search linearly (quadratic time), while a
// second document type (nlohmann::json, keys in a std::map) would add its own parser and containers
// to the WebAssembly module. Names are kept in std::maps: in order of name,
// a repeated name's last value winning, as a parsed document has them. (A std::map document added
// 3 KB gzipped to the WebAssembly module, measured.)
using sax_json = nlohmann::ordered_json;

/// What a safetensors header gives for one name: whether its value is an object, and its dtype, shape
/// and data_offsets members (state 0: absent, 1: of the right kind, 2: of another kind).
struct header_entry {
    bool object = false;
    int dtype_state = 0, shape_state = 0, offsets_state = 0;
    std::string dtype;
    bool shape_numbers = true, offsets_numbers = true;  // every element a non-negative integer
    std::vector<std::uint64_t> shape, offsets;
};

/// Common SAX bookkeeping: the depth of the open containers; a reader says what a value at a depth
/// means. One handler type for both readers (virtual calls): one instantiation of nlohmann's parser loop.
class sax_reader {
public:
    virtual ~sax_reader() = default;
    bool null() { return scalar(false, 0, nullptr); }
    bool boolean(bool) { return scalar(false, 0, nullptr); }
    bool number_integer(sax_json::number_integer_t) { return scalar(false, 0, nullptr); }
    bool number_unsigned(sax_json::number_unsigned_t v) { return scalar(true, v, nullptr); }
    bool number_float(sax_json::number_float_t, const sax_json::string_t&) { return scalar(false, 0, nullptr); }
    bool string(sax_json::string_t& v) { return scalar(false, 0, &v); }
    bool binary(sax_json::binary_t&) { return false; }  // JSON text has no binary values
    bool start_object(std::size_t) { return open(true); }
    bool start_array(std::size_t) { return open(false); }
    bool end_object() { return close(); }
    bool end_array() { return close(); }
    bool key(sax_json::string_t& k) {
        on_key(depth_, k);
        return true;
    }
    bool parse_error(std::size_t, const std::string&, const nlohmann::detail::exception&) { return false; }
    /// Reads `text`; false when it is not JSON or not an object.
    bool read(const std::string& text) { return sax_json::sax_parse(text, this) && root_object_; }

protected:
    std::size_t depth_ = 0;  ///< containers open
    virtual bool scalar(bool is_unsigned, std::uint64_t v, const std::string* text) = 0;
    virtual void on_key(std::size_t depth, const std::string& k) = 0;
    virtual void on_open(std::size_t depth, bool object) = 0;
    virtual void on_close(std::size_t depth) = 0;

private:
    bool root_object_ = false;
    bool open(bool object) {
        if (depth_ == 0 && !object) return false;  // not an object: the reader stops
        if (depth_ == 0) root_object_ = true;
        on_open(depth_, object);
        ++depth_;
        return true;
    }
    bool close() {
        --depth_;
        on_close(depth_);
        return true;
    }
};

/// A safetensors header's names at depth 1, their members at depth 2, shape and data_offsets
/// elements at depth 3; "__metadata__" and members memplan does not read are skipped.
class header_reader : public sax_reader {
public:
    std::map<std::string, header_entry> tensors;

protected:
    bool scalar(bool is_unsigned, std::uint64_t v, const std::string* text) override {
        if (depth_ == 0) return false;  // a bare value: not an object
        if (depth_ == 1) {
            if (name_ != "__metadata__") tensors[name_] = header_entry{};  // not an object
        } else if (depth_ == 2 && current_ != nullptr) {
            if (field_ == "dtype") {
                current_->dtype_state = text != nullptr ? 1 : 2;
                if (text != nullptr) current_->dtype = *text;
            } else if (field_ == "shape") {
                current_->shape_state = 2;
            } else if (field_ == "data_offsets") {
                current_->offsets_state = 2;
            }
        } else if (depth_ == 3 && list_ != nullptr) {
            if (is_unsigned) list_->push_back(v);
            else *list_numbers_ = false;
        }
        return true;
    }
    void on_key(std::size_t depth, const std::string& k) override {
        if (depth == 1) name_ = k;
        else if (depth == 2) field_ = k;
    }
    void on_open(std::size_t depth, bool object) override {
        if (depth == 1) {
            current_ = nullptr;
            if (name_ == "__metadata__") return;
            header_entry& e = tensors[name_] = header_entry{};
            e.object = object;
            if (object) current_ = &e;
        } else if (depth == 2 && current_ != nullptr) {
            list_ = nullptr;
            if (field_ == "dtype") {
                current_->dtype_state = 2;
            } else if (field_ == "shape" || field_ == "data_offsets") {
                const bool shape = field_ == "shape";
                (shape ? current_->shape_state : current_->offsets_state) = object ? 2 : 1;
                std::vector<std::uint64_t>& list = shape ? current_->shape : current_->offsets;
                bool& numbers = shape ? current_->shape_numbers : current_->offsets_numbers;
                list.clear();
                numbers = true;
                if (!object) {
                    list_ = &list;
                    list_numbers_ = &numbers;
                }
            }
        } else if (depth == 3 && list_ != nullptr) {
            *list_numbers_ = false;  // a container where a number belongs
        }
    }
    void on_close(std::size_t depth) override {
        if (depth == 2) list_ = nullptr;
        if (depth == 1) current_ = nullptr;
    }

private:
    std::string name_, field_;
    header_entry* current_ = nullptr;             ///< the tensor whose object is open (map nodes stay put)
    std::vector<std::uint64_t>* list_ = nullptr;  ///< the shape or data_offsets array open at depth 2
    bool* list_numbers_ = nullptr;
};

/// A model.safetensors.index.json's weight_map: each name and its file (false: not a string).
class index_reader : public sax_reader {
public:
    bool has_map = false, map_object = false;
    std::map<std::string, std::pair<bool, std::string>> files;

protected:
    bool scalar(bool, std::uint64_t, const std::string* text) override {
        if (depth_ == 0) return false;
        if (depth_ == 1 && top_ == "weight_map") start_map(false);
        else if (depth_ == 2 && in_map_) files[key_] = {text != nullptr, text != nullptr ? *text : std::string()};
        return true;
    }
    void on_key(std::size_t depth, const std::string& k) override {
        if (depth == 1) top_ = k;
        else if (depth == 2) key_ = k;
    }
    void on_open(std::size_t depth, bool object) override {
        if (depth == 1 && top_ == "weight_map") start_map(object);
        else if (depth == 2 && in_map_) files[key_] = {false, std::string()};
    }
    void on_close(std::size_t depth) override {
        if (depth == 1) in_map_ = false;
    }

private:
    void start_map(bool object) {  // a repeated weight_map replaces the earlier one
        has_map = true;
        map_object = object;
        in_map_ = object;
        files.clear();
    }
    std::string top_, key_;
    bool in_map_ = false;
};

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
    header_reader reader;
    if (!reader.read(header)) {
        out.errors.push_back({file, "has a header that is not a JSON object"});
        return out;
    }
    for (const auto& [name, t] : reader.tensors) {
        const std::string where = "tensor " + name;
        const auto fail = [&](const std::string& message) { out.errors.push_back({file, where + " " + message}); };
        if (!t.object || t.dtype_state != 1 || t.shape_state != 1 || t.offsets_state != 1) {
            fail("must be an object with dtype, shape and data_offsets");
            continue;
        }
        stored_tensor s;
        s.name = name;
        s.dtype = t.dtype;
        const std::uint64_t bits = safetensors_dtype_bits(s.dtype);
        if (bits == 0) {
            fail("has an unknown dtype " + s.dtype);
            continue;
        }
        std::uint64_t values = 1;
        bool ok = t.shape_numbers;
        for (std::size_t i = 0; ok && i < t.shape.size(); ++i) {
            ok = detail::times(values, t.shape[i], values);
            if (ok) s.shape.push_back(t.shape[i]);
        }
        if (!ok) {
            fail("must have a shape of non-negative sizes");
            continue;
        }
        s.values = values;
        std::uint64_t value_bits = 0;
        if (!detail::times(values, bits, value_bits)) {
            fail("is too large");
            continue;
        }
        s.bytes = (value_bits + 7) / 8;
        const std::vector<std::uint64_t>& offsets = t.offsets;
        if (!t.offsets_numbers || offsets.size() != 2 || offsets[1] < offsets[0] || offsets[1] - offsets[0] != s.bytes) {
            fail("must have data_offsets [begin, end] spanning its " + std::to_string(s.bytes) + " bytes");
            continue;
        }
        out.value.push_back(std::move(s));
    }
    return out;
}

outcome<std::vector<std::string>> safetensors_index_files(const std::string& index_text, const std::string& file) {
    outcome<std::vector<std::string>> out;
    index_reader reader;
    if (!reader.read(index_text) || !reader.has_map || !reader.map_object ||
        reader.files.empty()) {
        out.errors.push_back({file, "must be a JSON object with a non-empty weight_map"});
        return out;
    }
    std::set<std::string> shards;
    for (const auto& [name, entry] : reader.files) {
        if (!entry.first) {
            out.errors.push_back({file, "weight_map." + name + " must be a file name"});
            return out;
        }
        const std::string& shard = entry.second;
        if (shard.empty() || shard.find('/') != std::string::npos || shard.find('\\') != std::string::npos ||
            shard.find("..") != std::string::npos) {
            out.errors.push_back({file, "weight_map." + name + " names " + shard +
                                            ", which is not a file of the model's folder"});
            return out;
        }
        shards.insert(shard);
    }
    out.value.assign(shards.begin(), shards.end());
    return out;
}

}  // namespace memplan
