#include "input.hpp"

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <algorithm>
#include <sys/stat.h>
#include <vector>

#include "memplan/base/input_limits.hpp"

namespace memplan::cli {

outcome<std::string> read_input(const std::string& path, const std::string& field, bool required) {
    outcome<std::string> out;
    auto cannot_read = [&](int error) {
        out.errors.push_back({field, "cannot read " + path + ": " + std::strerror(error)});
        return out;
    };
    FILE* file = stdin;
    if (path != "-") {
        struct stat info {};
        if (stat(path.c_str(), &info) != 0) return cannot_read(errno);
        if (S_ISDIR(info.st_mode)) {
            out.errors.push_back({field, path + " is a directory, not a JSON file"});
            return out;
        }
        file = std::fopen(path.c_str(), "rb");
        if (file == nullptr) return cannot_read(errno);
    }
    // Chunks until end of input or one byte past the limit, whichever comes first.
    std::vector<char> chunk(65536);
    bool failed = false;
    while (out.value.size() <= max_config_bytes) {
        const std::size_t want = std::min(chunk.size(), max_config_bytes + 1 - out.value.size());
        const std::size_t got = std::fread(chunk.data(), 1, want, file);
        out.value.append(chunk.data(), got);
        if (got < want) {
            failed = std::ferror(file) != 0;
            break;
        }
    }
    const int error = errno;
    if (file != stdin) std::fclose(file);
    if (failed) return cannot_read(error);
    out.errors = check_input_text(out.value, field, required);
    return out;
}

}  // namespace memplan::cli
