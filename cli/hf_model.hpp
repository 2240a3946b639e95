// memplan CLI — a Hugging Face model on disk, read without network: a folder holding config.json,
// or a snapshot of the Hugging Face cache, with the headers of its safetensors files.
#pragma once

#include <string>
#include <vector>

#include "memplan/base/types.hpp"
#include "memplan/io/gguf.hpp"
#include "memplan/io/safetensors.hpp"

namespace memplan::cli {

/// What memplan read of a model's folder.
struct hf_model_files {
    std::string folder;                  ///< the folder read (a cache snapshot resolved)
    std::string config_text;             ///< its config.json
    std::vector<std::string> files;      ///< the safetensors files whose headers were read
    std::vector<stored_tensor> tensors;  ///< their tensors, in file order
};

/// The cache folder of the Hugging Face hub: $HF_HUB_CACHE, else $HF_HOME/hub, else
/// ~/.cache/huggingface/hub (huggingface_hub constants.py, HF_HUB_CACHE).
std::string hf_hub_cache();

/// Reads `path`: a folder holding config.json; a cache folder models--ORG--NAME (its snapshot of
/// refs/main, else its only snapshot); or an id ORG/NAME looked up that way in hf_hub_cache(). With
/// `headers`, also the headers of model.safetensors or of the shards model.safetensors.index.json names
/// (the data after each header is never read). Errors name hf_model and the file.
outcome<hf_model_files> read_hf_model(const std::string& path, bool headers);

/// True when `path` names a GGUF file (it ends in ".gguf").
bool is_gguf_path(const std::string& path);

/// The header of the GGUF file `path`, read in growing chunks (1 MiB, doubled) up to
/// max_gguf_header_bytes; the tensor data is never read. Errors name hf_model or the file.
outcome<gguf_header> read_gguf(const std::string& path);

}  // namespace memplan::cli
