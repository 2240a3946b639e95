// memplan — a model's files fetched from the Hugging Face Hub, read by the core for the page (web/hub.js
// fetches; every rule, bound and sum is here): the model id typed, the range of a safetensors header,
// the shards of an index, the stored tensors of the headers reconciled with memplan's count, and the
// Hub API's per-dtype counts when the headers cannot be read. Each returns JSON text with "errors".
#pragma once

#include <string>

namespace memplan {

/// parse_hub_model (memplan/io/hub.hpp) as JSON: {"id", "revision", "link", "files_url", "api_url",
/// "limits": {"timeout_ms", "parallel", "max_reply_bytes", "max_config_bytes"}, "errors"}; with errors,
/// the keys but "limits" and "errors" are null.
std::string hub_model_json(const std::string& text);

/// The second range request of a safetensors file on the Hub, from the reply to its first ("Range:
/// bytes=0-7"): `first_bytes` its body (the 8-byte little-endian header length), `content_range` its
/// Content-Range header ("" when the reply had none or did not expose it): {"length": N, "range":
/// "bytes=8-(8+N-1)", "file_bytes": total or null, "errors"}. A length beyond
/// max_safetensors_header_bytes or beyond the file is refused naming `file`.
std::string safetensors_range_json(const std::string& first_bytes, const std::string& content_range,
                                   const std::string& file);

/// safetensors_index_files as JSON: {"files": [shard names], "errors"} (a name with '/', '\' or "..",
/// which points outside the model's folder, is refused naming `file` and the tensor).
std::string safetensors_index_json(const std::string& index_text, const std::string& file);

/// checkpoint_json (memplan/report/json.hpp) of a config.json and the headers fetched:
/// `headers_json` is [{"file": name, "length": N stated by its first 8 bytes, "header": the header's
/// text}]. A header shorter or longer than its stated length (a truncated reply), one that is not a
/// safetensors header, or a list that is not of this shape is refused naming the file.
std::string checkpoint_headers_json(const std::string& hf_config_text, const std::string& headers_json);

/// memplan's count of a config.json beside the Hub API's per-dtype counts of the model's safetensors
/// files (`api_text`: the reply of /api/models/ID/revision/REV, its "safetensors": {"parameters":
/// {DTYPE: values}, "total": values}): {"model_type", "params", "stored": {"values", "bytes",
/// "by_dtype": {DTYPE: {"values", "bytes"}}}, "api_total", "difference", "larger", "note", "errors"};
/// the bytes are each dtype's values at its width, rounded up to whole bytes. Errors name `file`.
std::string checkpoint_api_json(const std::string& hf_config_text, const std::string& api_text,
                                const std::string& file = "api");

}  // namespace memplan
