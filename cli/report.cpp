#include "report.hpp"

#include <cctype>
#include <cstdio>
#include <iostream>

#include "memplan/io/json.hpp"
#include "memplan/report/json.hpp"

namespace memplan::cli {

std::string with_commas(std::uint64_t value) {
    std::string digits = std::to_string(value);
    for (int i = static_cast<int>(digits.size()) - 3; i > 0; i -= 3) digits.insert(static_cast<std::size_t>(i), ",");
    return digits;
}

std::string in_units(std::uint64_t bytes, bool gib) {
    char buffer[64];
    const double scaled = static_cast<double>(bytes) / static_cast<double>(gib ? bytes_per_gib : bytes_per_gb);
    std::snprintf(buffer, sizeof buffer, "%.2f %s", scaled, gib ? "GiB" : "GB");
    return buffer;
}

int report_errors(const diagnostics& errors, bool json) {
    if (json) std::cout << errors_json_text(errors) << "\n";
    for (const auto& e : errors) std::cerr << "memplan: error: " << e.field << ": " << e.message << "\n";
    return exit_usage;
}

int usage_error(const std::string& message) {
    std::cerr << "memplan: error: " << message << "\n(run memplan --help for usage)\n";
    return exit_usage;
}

namespace {
bool word_char(char ch) { return std::isalnum(static_cast<unsigned char>(ch)) != 0 || ch == '_'; }

std::string replace_words(std::string text, const std::string& from, const std::string& to) {
    for (std::size_t at = text.find(from); at != std::string::npos; at = text.find(from, at)) {
        const bool starts = at == 0 || !word_char(text[at - 1]);
        const bool ends = at + from.size() == text.size() || !word_char(text[at + from.size()]);
        if (starts && ends) {
            text.replace(at, from.size(), to);
            at += to.size();
        } else {
            at += from.size();
        }
    }
    return text;
}
}  // namespace

diagnostics rename_fields(diagnostics errors, const std::vector<std::pair<std::string, std::string>>& names) {
    for (auto& e : errors)
        for (const auto& [from, to] : names) {
            if (e.field == from) e.field = to;
            e.message = replace_words(e.message, from, to);
        }
    return errors;
}

diagnostics dashed_fields(diagnostics errors) {
    for (auto& e : errors)
        for (auto& ch : e.field)
            if (ch == '_') ch = '-';
    return errors;
}

}  // namespace memplan::cli
