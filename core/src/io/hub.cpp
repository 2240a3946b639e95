// The Hugging Face Hub's model names and addresses (memplan/io/hub.hpp): a typed model id with an
// optional revision, the Content-Range total of a ranged download, and the bits per value of the
// safetensors dtypes whose files the Hub serves (safetensors.cpp reads their headers).
#include "memplan/io/hub.hpp"

#include <cstdint>
#include <string>
#include <utility>

namespace memplan {

/// Bits per value of the safetensors dtypes (safetensors/src/tensor.rs Dtype::bitsize, v0.6.2); 0 for
/// a name that is not one.
std::uint64_t safetensors_dtype_bits(const std::string& dtype) {
    static const std::pair<const char*, std::uint64_t> bits[] = {
        {"BOOL", 8},     {"F4", 4},      {"F6_E2M3", 6}, {"F6_E3M2", 6}, {"U8", 8},    {"I8", 8},
        {"F8_E5M2", 8},  {"F8_E4M3", 8}, {"F8_E8M0", 8}, {"I16", 16},    {"U16", 16},  {"F16", 16},
        {"BF16", 16},    {"I32", 32},    {"U32", 32},    {"F32", 32},    {"I64", 64},  {"U64", 64},
        {"F64", 64},     {"C64", 64}};
    for (const auto& [name, b] : bits)
        if (dtype == name) return b;
    return 0;
}

namespace {
bool name_char(char c) {
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '-' || c == '_' || c == '.';
}

/// One part of a repo id (namespace or name) as validate_repo_id's REPO_ID_REGEX allows it: word
/// characters, '-' and '.', starting and ending with a letter, digit or '_' (its \b boundaries).
bool id_part(const std::string& part, std::size_t max_chars) {
    if (part.empty() || part.size() > max_chars) return false;
    for (char c : part)
        if (!name_char(c)) return false;
    const auto edge = [](char c) { return c != '-' && c != '.'; };
    return edge(part.front()) && edge(part.back());
}

/// "%2F" (either case) decoded to '/'; false for any other escape (a revision needs none).
bool decode_revision(std::string& text) {
    std::string out;
    for (std::size_t i = 0; i < text.size(); ++i) {
        if (text[i] != '%') {
            out += text[i];
            continue;
        }
        if (i + 2 >= text.size() || text[i + 1] != '2' || (text[i + 2] != 'F' && text[i + 2] != 'f')) return false;
        out += '/';
        i += 2;
    }
    text = out;
    return true;
}

std::string trimmed(const std::string& text) {
    const std::size_t begin = text.find_first_not_of(" \t\r\n");
    if (begin == std::string::npos) return "";
    return text.substr(begin, text.find_last_not_of(" \t\r\n") - begin + 1);
}
}  // namespace

outcome<hub_model> parse_hub_model(const std::string& typed, const std::string& field) {
    outcome<hub_model> out;
    const std::string text = trimmed(typed);
    const auto fail = [&](const std::string& message) {
        out.errors.push_back({field, message});
        return out;
    };
    const std::string shape = "write org/name, org/name@revision or the model's https://huggingface.co/org/name link";
    if (text.empty()) return fail("is empty: " + shape);
    if (text.size() > 1024) return fail("is longer than 1024 characters: " + shape);
    std::string id, revision;
    bool from_link = false;
    for (const char* origin : {"https://huggingface.co/", "http://huggingface.co/", "huggingface.co/", "https://hf.co/",
                               "http://hf.co/", "hf.co/", "https://www.huggingface.co/"}) {
        if (text.rfind(origin, 0) != 0) continue;
        from_link = true;
        std::string path = text.substr(std::char_traits<char>::length(origin));
        path = path.substr(0, path.find_first_of("?#"));
        std::vector<std::string> parts;
        for (std::size_t at = 0; at <= path.size();) {
            const std::size_t slash = std::min(path.find('/', at), path.size());
            parts.push_back(path.substr(at, slash - at));
            at = slash + 1;
        }
        while (!parts.empty() && parts.back().empty()) parts.pop_back();  // a trailing slash
        if (!parts.empty() && (parts[0] == "datasets" || parts[0] == "spaces"))
            return fail("is a link to a " + std::string(parts[0] == "datasets" ? "dataset" : "Space") +
                        ", not to a model: " + shape);
        // A legacy id without namespace has its kind second: /gpt2/tree/main.
        const auto is_kind = [](const std::string& p) { return p == "tree" || p == "blob" || p == "resolve"; };
        const std::size_t kind_at = parts.size() >= 3 && is_kind(parts[1]) ? 1 : 2;
        if (parts.size() == 1 || kind_at == 1) id = parts[0];
        else if (parts.size() >= 2) id = parts[0] + "/" + parts[1];
        if (parts.size() > kind_at) {
            const std::string& kind = parts[kind_at];
            if (!is_kind(kind) || parts.size() < kind_at + 2)
                return fail("is a link to " + kind + " of a model, not to the model at a revision: " + shape);
            revision = parts[kind_at + 1];
            // refs/pr/N and refs/convert/X written with their slashes (the Hub's own links quote them).
            if (revision == "refs" && parts.size() >= kind_at + 4 &&
                (parts[kind_at + 2] == "pr" || parts[kind_at + 2] == "convert"))
                revision += "/" + parts[kind_at + 2] + "/" + parts[kind_at + 3];
            if (!decode_revision(revision)) return fail("names the revision " + parts[kind_at + 1] + ", which holds an escape other than %2F");
        }
        break;
    }
    if (!from_link) {
        if (text.find("://") != std::string::npos) return fail("is a link to another site than huggingface.co: " + shape);
        const std::size_t at = text.find('@');
        id = text.substr(0, at);
        if (at != std::string::npos) {
            revision = text.substr(at + 1);
            if (revision.empty()) return fail("ends in @ without a revision: " + shape);
        }
    }
    const std::size_t slash = id.find('/');
    const bool one_part = slash == std::string::npos;
    const bool valid_id = !id.empty() && id.find("--") == std::string::npos && id.find("..") == std::string::npos &&
                          (id.size() < 4 || id.compare(id.size() - 4, 4, ".git") != 0) &&
                          (one_part ? id_part(id, 96)
                                    : id.find('/', slash + 1) == std::string::npos && id_part(id.substr(0, slash), 96) &&
                                          id_part(id.substr(slash + 1), 96));
    if (!valid_id)
        return fail("names " + (id.empty() ? std::string("no model") : "\"" + id + "\"") +
                    ", which is not a Hub model id (letters, digits, '-', '_' and '.', one '/' between organisation "
                    "and name, no \"--\" or \"..\"): " + shape);
    if (revision.empty()) revision = "main";
    bool valid_revision = revision.size() <= 256 && revision.find("..") == std::string::npos && revision.front() != '/' &&
                          revision.back() != '/' && revision.find("//") == std::string::npos;
    for (char c : revision) valid_revision = valid_revision && (name_char(c) || c == '/');
    if (!valid_revision)
        return fail("names the revision \"" + revision + "\", which is not a branch, tag or commit (letters, digits, "
                    "'-', '_', '.' and '/', no \"..\")");
    std::string quoted;
    for (char c : revision) quoted += c == '/' ? std::string("%2F") : std::string(1, c);
    out.value.id = id;
    out.value.revision = revision;
    out.value.link = revision == "main" ? id : id + "@" + revision;
    out.value.files_url = std::string(hub_endpoint) + "/" + id + "/resolve/" + quoted + "/";
    out.value.api_url = std::string(hub_endpoint) + "/api/models/" + id + "/revision/" + quoted;
    return out;
}

bool content_range_total(const std::string& content_range, std::uint64_t& total) {
    const std::string text = trimmed(content_range);
    const std::size_t slash = text.rfind('/');
    if (text.rfind("bytes ", 0) != 0 || slash == std::string::npos || slash + 1 >= text.size() || text.size() - slash > 20)
        return false;
    std::uint64_t n = 0;
    for (std::size_t i = slash + 1; i < text.size(); ++i) {
        if (text[i] < '0' || text[i] > '9') return false;
        n = n * 10 + static_cast<std::uint64_t>(text[i] - '0');
    }
    total = n;
    return true;
}

}  // namespace memplan
