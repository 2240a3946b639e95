// memplan — a model on the Hugging Face Hub named as people write it: "org/name", "org/name@revision"
// or the model's huggingface.co link, read into its repo id, its revision and the addresses the page
// fetches from (implemented in io/hub.cpp; io/safetensors.cpp reads the safetensors headers those addresses
// serve). The Hub's rules: huggingface_hub src/huggingface_hub/utils/_validators.py validate_repo_id
// (commit b7f86ddc2e42fa6364ecf2f8dc7b158acd40935b) for the id; the file and API addresses of the Hub
// API documentation (https://huggingface.co/docs/hub/api: /api/models/{repo_id}/revision/{revision})
// and of huggingface_hub's hf_hub_url ({endpoint}/{repo_id}/resolve/{revision}/{filename}, the
// revision quoted with no safe characters, so refs/pr/1 is refs%2Fpr%2F1).
#pragma once

#include <cstdint>
#include <string>

#include "memplan/base/types.hpp"

namespace memplan {

/// The Hub's address; every address below starts with it.
constexpr const char* hub_endpoint = "https://huggingface.co";

/// How the page fetches from the Hub: one request (its reply's body included) is stopped after
/// hub_timeout_ms, at most hub_parallel_requests headers are fetched at once, and a reply other than a
/// header (config.json aside, bounded by max_config_bytes) is read up to hub_max_reply_bytes (a big
/// checkpoint's index runs to megabytes; the CLI reads an index up to the same 64 MiB).
constexpr std::uint64_t hub_timeout_ms = 15000;
constexpr std::uint64_t hub_parallel_requests = 4;
constexpr std::uint64_t hub_max_reply_bytes = std::uint64_t{64} << 20;

/// A model repository of the Hub at one revision, with the addresses of its files and of its API entry.
struct hub_model {
    std::string id;            ///< "Qwen/Qwen3-0.6B" (or a legacy id without namespace, "gpt2")
    std::string revision;      ///< "main" unless one was given: a branch, a tag or a commit
    std::string link;          ///< the id as the page's link carries it: "ID" at main, else "ID@REVISION"
    std::string files_url;     ///< "https://huggingface.co/ID/resolve/REVISION/": a file's address is this and its name
    std::string api_url;       ///< "https://huggingface.co/api/models/ID/revision/REVISION"
};

/// Reads what a person typed as a Hub model: "org/name", "org/name@revision", or a link
/// https://huggingface.co/org/name[/tree/REV[/…] | /blob/REV/FILE | /resolve/REV/FILE] (hf.co too;
/// query and fragment ignored; a revision in a link may be percent-encoded, refs%2Fpr%2F1). The id
/// follows validate_repo_id (one or two parts of letters, digits, '-', '_' and '.', neither starting
/// nor ending with '-' or '.', no "--" or "..", not ending in ".git", the name at most 96 characters); a
/// revision holds letters, digits, '-', '_', '.' and '/', no "..", at most 256 characters. Errors name `field`.
outcome<hub_model> parse_hub_model(const std::string& text, const std::string& field = "hub.model");

/// The total size that an HTTP Content-Range header states ("bytes 0-7/1503300328", RFC 9110 §14.4),
/// or false when it states none ("bytes 0-7/*", absent or malformed).
bool content_range_total(const std::string& content_range, std::uint64_t& total);

/// Bits per value of a safetensors dtype ("BF16": 16, "F8_E4M3": 8, "F4": 4); 0 for a name that is not one.
std::uint64_t safetensors_dtype_bits(const std::string& dtype);

}  // namespace memplan
