// The report of EleutherAI's transformer_mem.py as JSON (memplan/report/json.hpp).
#include <cstdio>

#include "io/json_text.hpp"
#include "memplan/report/json.hpp"

namespace memplan {

std::string eleuther_report_json(const eleuther_report& report) {
    // Figures with 17 significant digits, written by hand: they must read back as the same double.
    std::string out = "{\"params\":" + detail::dump_json(detail::ordered_json(report.params_text)) +
                      ",\"unit\":\"GiB\",\"rows\":{";
    for (std::size_t i = 0; i < report.rows.size(); ++i) {
        char buffer[64];
        std::snprintf(buffer, sizeof buffer, "%.17g", report.rows[i].gib);
        out += (i ? "," : "") + detail::dump_json(detail::ordered_json(report.rows[i].label)) + ":" + buffer;
    }
    return out + "}}";
}

}  // namespace memplan
