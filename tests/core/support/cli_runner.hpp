// Runs the native memplan CLI (built next to the tests) and captures what it prints.
#pragma once

#include <array>
#include <cstdio>
#include <string>
#include <sys/wait.h>
#include <vector>

struct cli_output {
    std::string out;
    int status = -1;
};

inline std::string shell_quote(const std::string& text) {
    std::string quoted = "'";
    for (const char ch : text) {
        if (ch == '\'') quoted += "'\\''";
        else quoted += ch;
    }
    return quoted + "'";
}

/// Runs `memplan ARGS...` (stderr folded into the output when `with_stderr`), feeding `input` on stdin if given.
inline cli_output run_cli(const std::vector<std::string>& args, bool with_stderr = false, const std::string& input = "") {
    std::string command;
    if (!input.empty()) command = "printf '%s' " + shell_quote(input) + " | ";
    command += shell_quote(MEMPLAN_CLI);
    for (const auto& a : args) command += " " + shell_quote(a);
    command += with_stderr ? " 2>&1" : " 2>/dev/null";
    cli_output result;
    FILE* pipe = popen(command.c_str(), "r");
    if (pipe == nullptr) return result;
    std::array<char, 4096> buffer{};
    std::size_t n;
    while ((n = fread(buffer.data(), 1, buffer.size(), pipe)) > 0) result.out.append(buffer.data(), n);
    const int status = pclose(pipe);
    result.status = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
    return result;
}

/// Runs `PRODUCER | memplan ARGS...` through the shell (stderr folded in), killed after `seconds`
/// so that a CLI that never finishes reading fails the test instead of hanging it (status 137).
inline cli_output run_cli_piped(const std::string& producer, const std::vector<std::string>& args, int seconds = 20) {
    std::string command = producer + " | timeout -s KILL " + std::to_string(seconds) + " " + shell_quote(MEMPLAN_CLI);
    for (const auto& a : args) command += " " + shell_quote(a);
    command += " 2>&1";
    cli_output result;
    FILE* pipe = popen(command.c_str(), "r");
    if (pipe == nullptr) return result;
    std::array<char, 4096> buffer{};
    std::size_t n;
    while ((n = fread(buffer.data(), 1, buffer.size(), pipe)) > 0) result.out.append(buffer.data(), n);
    const int status = pclose(pipe);
    result.status = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
    return result;
}

inline std::vector<std::string> lines_of(const std::string& text) {
    std::vector<std::string> lines;
    std::string line;
    for (const char ch : text) {
        if (ch == '\n') {
            lines.push_back(line);
            line.clear();
        } else {
            line += ch;
        }
    }
    if (!line.empty()) lines.push_back(line);
    return lines;
}
