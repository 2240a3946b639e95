#include "hf_model.hpp"

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <dirent.h>
#include <sys/stat.h>

#include "input.hpp"

namespace memplan::cli {

namespace {

bool is_dir(const std::string& path) {
    struct stat info {};
    return stat(path.c_str(), &info) == 0 && S_ISDIR(info.st_mode);
}

bool is_file(const std::string& path) {
    struct stat info {};
    return stat(path.c_str(), &info) == 0 && S_ISREG(info.st_mode);
}

/// Up to `limit` bytes from `offset` of `path` into `out`; false with an error naming the file.
bool read_bytes(const std::string& path, std::uint64_t offset, std::uint64_t limit, std::string& out, diagnostics& errors) {
    FILE* file = std::fopen(path.c_str(), "rb");
    if (file == nullptr || (offset != 0 && std::fseek(file, static_cast<long>(offset), SEEK_SET) != 0)) {
        errors.push_back({"hf_model", "cannot read " + path + ": " + std::strerror(errno)});
        if (file != nullptr) std::fclose(file);
        return false;
    }
    struct stat info {};
    if (stat(path.c_str(), &info) == 0 && S_ISREG(info.st_mode))  // no more than the file holds
        limit = std::min<std::uint64_t>(limit, static_cast<std::uint64_t>(info.st_size) - std::min<std::uint64_t>(offset, static_cast<std::uint64_t>(info.st_size)));
    out.assign(static_cast<std::size_t>(limit), '\0');
    const std::size_t got = std::fread(&out[0], 1, out.size(), file);
    const bool failed = std::ferror(file) != 0;
    std::fclose(file);
    out.resize(got);
    if (failed) errors.push_back({"hf_model", "cannot read " + path});
    return !failed;
}

/// The first line of a small text file (a cache ref), trimmed; "" when absent.
std::string first_line(const std::string& path) {
    std::string text;
    diagnostics ignored;
    if (!is_file(path) || !read_bytes(path, 0, 256, text, ignored)) return "";
    const std::size_t end = text.find_first_of("\r\n");
    return text.substr(0, end);
}

/// The snapshot folder of a cache folder models--ORG--NAME: refs/main's revision, else the only one.
std::string snapshot_of(const std::string& repo, diagnostics& errors) {
    const std::string revision = first_line(repo + "/refs/main");
    if (!revision.empty() && revision.find('/') == std::string::npos && is_dir(repo + "/snapshots/" + revision))
        return repo + "/snapshots/" + revision;
    std::vector<std::string> found;
    if (DIR* dir = opendir((repo + "/snapshots").c_str()); dir != nullptr) {
        while (const dirent* e = readdir(dir))
            if (e->d_name[0] != '.' && is_dir(repo + "/snapshots/" + e->d_name)) found.push_back(e->d_name);
        closedir(dir);
    }
    if (found.size() == 1) return repo + "/snapshots/" + found[0];
    errors.push_back({"hf_model", repo + (found.empty() ? " has no snapshot" : " has several snapshots and no refs/main") +
                                      " (give the snapshot folder itself)"});
    return "";
}

/// The tensors in the header of one safetensors file.
void read_header(const std::string& path, hf_model_files& out, diagnostics& errors) {
    struct stat info {};
    if (stat(path.c_str(), &info) != 0 || !S_ISREG(info.st_mode)) {
        errors.push_back({"hf_model", "cannot read " + path + ": " + std::strerror(errno)});
        return;
    }
    std::string prefix;
    if (!read_bytes(path, 0, 8, prefix, errors)) return;
    const auto length = safetensors_header_length(prefix, static_cast<std::uint64_t>(info.st_size), path);
    errors.insert(errors.end(), length.errors.begin(), length.errors.end());
    if (!length.ok()) return;
    std::string header;
    if (!read_bytes(path, 8, length.value, header, errors)) return;
    auto parsed = parse_safetensors_header(header, path);
    errors.insert(errors.end(), parsed.errors.begin(), parsed.errors.end());
    out.files.push_back(path);
    for (auto& t : parsed.value) out.tensors.push_back(std::move(t));
}

}  // namespace

bool is_gguf_path(const std::string& path) {
    return path.size() > 5 && path.compare(path.size() - 5, 5, ".gguf") == 0;
}

outcome<gguf_header> read_gguf(const std::string& path) {
    outcome<gguf_header> out;
    struct stat info {};
    const bool found = stat(path.c_str(), &info) == 0;
    if (!found || !S_ISREG(info.st_mode)) {
        out.errors.push_back({"hf_model", "cannot read " + path + ": " + (found ? "not a regular file" : std::strerror(errno))});
        return out;
    }
    const auto file_bytes = static_cast<std::uint64_t>(info.st_size);
    std::string bytes;
    for (std::uint64_t want = std::uint64_t{1} << 20;; want *= 2) {
        want = std::min(want, max_gguf_header_bytes);
        std::string more;
        if (!read_bytes(path, bytes.size(), want - bytes.size(), more, out.errors)) return out;
        bytes += more;
        gguf_parse parsed = parse_gguf_header(bytes, file_bytes, path);
        if (!parsed.needs_more) return std::move(parsed.header);
        if (want >= max_gguf_header_bytes || bytes.size() >= file_bytes) {
            out.errors.push_back({path, "has a header longer than " + std::to_string(max_gguf_header_bytes) +
                                            " bytes, more than memplan reads"});
            return out;
        }
    }
}

std::string hf_hub_cache() {
    if (const char* cache = std::getenv("HF_HUB_CACHE"); cache != nullptr && *cache != '\0') return cache;
    if (const char* home = std::getenv("HF_HOME"); home != nullptr && *home != '\0') return std::string(home) + "/hub";
    const char* user = std::getenv("HOME");
    return std::string(user != nullptr ? user : "") + "/.cache/huggingface/hub";
}

outcome<hf_model_files> read_hf_model(const std::string& path, bool headers) {
    outcome<hf_model_files> out;
    diagnostics& errors = out.errors;
    std::string folder = path;
    while (folder.size() > 1 && folder.back() == '/') folder.pop_back();
    if (!is_dir(folder)) {
        // An id ORG/NAME (one slash, no dots in the way), looked up in the cache.
        const std::size_t slash = folder.find('/');
        if (slash == std::string::npos || slash == 0 || folder.find('/', slash + 1) != std::string::npos ||
            folder.find("..") != std::string::npos) {
            errors.push_back({"hf_model", path + " is neither a folder nor a model id ORG/NAME"});
            return out;
        }
        const std::string repo = hf_hub_cache() + "/models--" + folder.substr(0, slash) + "--" + folder.substr(slash + 1);
        if (!is_dir(repo)) {
            errors.push_back({"hf_model", path + " is not in the Hugging Face cache (" + repo +
                                              " does not exist; memplan reads no network)"});
            return out;
        }
        folder = repo;
    }
    if (!is_file(folder + "/config.json") && is_dir(folder + "/snapshots")) {
        folder = snapshot_of(folder, errors);
        if (folder.empty()) return out;
    }
    out.value.folder = folder;
    auto config = read_input(folder + "/config.json", "hf_model", /*required=*/true);
    errors.insert(errors.end(), config.errors.begin(), config.errors.end());
    if (!config.ok()) return out;
    out.value.config_text = std::move(config.value);
    if (!headers) return out;
    const std::string index = folder + "/model.safetensors.index.json";
    if (is_file(index)) {
        // An index lists every tensor once; big checkpoints' indexes run to megabytes, bounded at 64 MiB.
        constexpr std::uint64_t max_index_bytes = std::uint64_t{64} << 20;
        std::string text;
        if (!read_bytes(index, 0, max_index_bytes + 1, text, errors)) return out;
        if (text.size() > max_index_bytes) {
            errors.push_back({"hf_model", index + " is larger than " + std::to_string(max_index_bytes) + " bytes"});
            return out;
        }
        const auto shards = safetensors_index_files(text, index);
        errors.insert(errors.end(), shards.errors.begin(), shards.errors.end());
        for (const std::string& shard : shards.value) read_header(folder + "/" + shard, out.value, errors);
    } else if (is_file(folder + "/model.safetensors")) {
        read_header(folder + "/model.safetensors", out.value, errors);
    } else {
        errors.push_back({"hf_model", folder + " holds neither model.safetensors nor model.safetensors.index.json"});
    }
    return out;
}

}  // namespace memplan::cli
