// A checkpoint's stored tensors reconciled with memplan's count (memplan/report/json.hpp checkpoint_json).
#include <limits>
#include <map>
#include <string>
#include <vector>

#include "io/json_text.hpp"
#include "memplan/io/json.hpp"
#include "memplan/model/arch.hpp"
#include "memplan/report/json.hpp"
#include "report/json.hpp"

namespace memplan {

namespace {
using detail::ordered_json;

bool has(const std::string& text, const char* part) { return text.find(part) != std::string::npos; }

/// The layer index of a tensor named "….layers.N.…" (or GPT-2's "h.N."), and the name after it; false
/// when the name holds no layer.
bool layer_of(const std::string& name, std::uint64_t& index, std::string& rest) {
    for (const char* marker : {"layers.", "h."}) {
        for (std::size_t at = name.find(marker); at != std::string::npos; at = name.find(marker, at + 1)) {
            if (at != 0 && name[at - 1] != '.') continue;
            std::size_t i = at + std::char_traits<char>::length(marker), digits = 0;
            std::uint64_t n = 0;
            while (i < name.size() && name[i] >= '0' && name[i] <= '9' && digits < 9) n = n * 10 + static_cast<std::uint64_t>(name[i++] - '0'), ++digits;
            if (digits == 0 || i >= name.size() || name[i] != '.') continue;
            index = n;
            rest = name.substr(i + 1);
            return true;
        }
    }
    return false;
}

}  // namespace

namespace detail {
/// memplan's part for a stored tensor, by the module names transformers gives them (modeling_llama.py,
/// modeling_qwen3_moe.py, modeling_deepseek_v3.py, modeling_gemma3.py): "quantization" for the scales
/// and packing metadata of a quantized checkpoint, "buffers" for non-parameter buffers, "other" when
/// the name says nothing memplan knows.
std::string part_of(const std::string& name, std::uint64_t layers) {
    if (has(name, "rotary_emb.inv_freq")) return "buffers";
    // compressed-tensors names its zero points, group indices and shapes weight_zero_point, weight_g_idx and
    // weight_shape (compressed_tensors/compressors/quantized_compressors).
    for (const char* q : {"weight_scale_inv", "weight_scale", "input_scale", ".scales", "_scales", ".qzeros", ".g_idx",
                          ".absmax", ".quant_map", ".quant_state", ".SCB", ".nested_absmax", ".nested_quant_map",
                          "weight_zero_point", "weight_g_idx", "weight_shape"})
        if (has(name, q)) return "quantization";
    if (has(name, "vision") || has(name, "visual") || has(name, "multi_modal_projector") || has(name, "mm_")) return "vision";
    std::uint64_t index = 0;
    std::string rest;
    if (layer_of(name, index, rest)) {
        if (index >= layers) return "mtp";
        const std::string first = rest.substr(0, rest.find('.'));
        if (has(first, "norm") || first.rfind("ln", 0) == 0) return "norms";
        if (has(rest, "shared_expert")) return "shared_experts";
        if (has(rest, ".experts.") || has(rest, "experts.")) return "experts";
        if (has(rest, "mlp.gate.") || has(rest, "router") || has(rest, "e_score_correction_bias") ||
            has(rest, "block_sparse_moe.gate.") || has(rest, "feed_forward.gate."))
            return "router";
        if (has(first, "attn") || has(first, "attention") || first == "mixer" || first == "linear_attn") return "attention";
        if (has(first, "mlp") || first == "feed_forward" || first == "block_sparse_moe") return "mlp";
        return "other";
    }
    if (has(name, "embed_tokens") || has(name, "wte") || has(name, "wpe") || has(name, "embed_in")) return "embedding";
    if (has(name, "lm_head") || has(name, "embed_out")) return "output";
    if (has(name, "norm") || has(name, "ln_f")) return "norms";
    return "other";
}
}  // namespace detail

namespace {

/// What a stored tensor of a quantized checkpoint holds: packed weight values, their scales, their zero points,
/// a per-input-row group index, a per-matrix scalar, a fixed lookup table, or an opaque serialized state.
enum class quant_role { values, scales, zeros, index, scalar, table, state };

/// A matrix's unpacked shape {lead…, d_out, d_in} (lead: the experts of a fused expert tensor); for bitsandbytes,
/// which stores a matrix flattened, {n}.
using dims = std::vector<std::uint64_t>;

std::uint64_t ceil_div(std::uint64_t a, std::uint64_t b) { return (a + b - 1) / b; }

/// The block / group size of the checkpoint, or the format's default when the config names none.
std::uint64_t block_of(const model_config& m, std::uint64_t fallback) { return m.quant_block != 0 ? m.quant_block : fallback; }

/// A stored values tensor's unpacked shape; empty when the stored shape is not the format's layout.
using unpack_rule = dims (*)(const model_config&, const dims&);
/// The shape a metadata tensor must have beside its values tensor's unpacked shape.
using shape_rule = dims (*)(const model_config&, const dims&);

dims lead(const dims& d, std::size_t keep_last) { return dims(d.begin(), d.end() - static_cast<std::ptrdiff_t>(keep_last)); }
dims with(dims d, std::initializer_list<std::uint64_t> tail) {
    d.insert(d.end(), tail);
    return d;
}
std::uint64_t product(const dims& d) {
    std::uint64_t n = 1;
    for (auto x : d) n *= x;
    return n;
}

/// One row of the table: a tensor named MODULE + suffix, of `dtype`, in checkpoints of `format` ("" for
/// bitsandbytes' absmax: fp32, or uint8 when quantized again).
struct quant_row {
    checkpoint_format format;
    const char* suffix;
    quant_role role;
    const char* dtype;     ///< the dtype it is stored in
    unpack_rule unpack;    ///< values: stored shape → unpacked shape
    shape_rule expect;     ///< metadata: unpacked shape of the values → its shape
};

// ---- the layouts, each from its source
// AutoGPTQ auto_gptq/nn_modules/qlinear/qlinear_cuda_old.py QuantLinear (at c80855e2): qweight int32 [in / 8, out] (eight
// 4-bit values per int32 along the input), qzeros int32 [in / g, out / 8], scales fp16 [in / g, out], g_idx int32 [in].
dims gptq_qweight(const model_config&, const dims& s) { return s.size() == 2 ? dims{s[1], 8 * s[0]} : dims{}; }
// AutoAWQ awq/modules/linear/gemm.py WQLinear_GEMM.from_linear (at 030fe2a1): qweight int32 [in, out / 8] (packed along the output),
// qzeros int32 [in / g, out / 8], scales fp16 [in / g, out].
dims awq_qweight(const model_config&, const dims& s) { return s.size() == 2 ? dims{8 * s[1], s[0]} : dims{}; }
dims int4_scales(const model_config& m, const dims& u) { return {ceil_div(u[1], block_of(m, 128)), u[0]}; }
dims int4_zeros(const model_config& m, const dims& u) { return {ceil_div(u[1], block_of(m, 128)), ceil_div(u[0], 8)}; }
dims int4_g_idx(const model_config&, const dims& u) { return {u[1]}; }
// transformers integrations/mxfp4.py Mxfp4GptOssExperts (at 0189b1d0; quantizer_mxfp4.py loads it): gpt-oss's experts store `*_blocks` uint8
// [experts, out, in / 32, 16] (32 e2m1 values, two per byte) and `*_scales` uint8 (e8m0) [experts, out, in / 32].
dims mxfp4_blocks(const model_config&, const dims& s) {
    return s.size() >= 3 && s.back() == 16 ? with(lead(s, 2), {s[s.size() - 2] * 32}) : dims{};
}
dims mxfp4_scales(const model_config&, const dims& u) { return with(lead(u, 1), {ceil_div(u.back(), 32)}); }
// bitsandbytes nn/modules.py Params4bit and functional.py QuantState.as_dict(packed=True) (at 8b3c0f35): the weight flattened,
// two 4-bit values per byte, uint8 [⌈n / 2⌉, 1]; absmax per blocksize (64) values, fp32, or uint8 quantized again
// with nested_absmax fp32 per 256 of them; quant_map the 16 NF4 levels fp32, nested_quant_map the 256-entry
// dynamic map fp32; the non-tensor fields serialized as JSON into quant_state.bitsandbytes__nf4 uint8.
dims nf4_weight(const model_config&, const dims& s) { return s.size() == 2 && s[1] == 1 ? dims{2 * s[0]} : dims{}; }
dims nf4_absmax(const model_config& m, const dims& u) { return {ceil_div(u[0], block_of(m, 64))}; }
dims nf4_nested_absmax(const model_config& m, const dims& u) { return {ceil_div(ceil_div(u[0], block_of(m, 64)), 256)}; }
dims nf4_quant_map(const model_config&, const dims&) { return {16}; }
dims nf4_nested_quant_map(const model_config&, const dims&) { return {256}; }
// transformers integrations/finegrained_fp8.py FP8Linear (at 3c48befb): weight e4m3 [out, in], weight_scale_inv fp32
// [⌈out / B⌉, ⌈in / B⌉] (B = weight_block_size).
dims identity(const model_config&, const dims& s) { return s.size() >= 2 ? s : dims{}; }
dims fp8_block_scales(const model_config& m, const dims& u) {
    return with(lead(u, 2), {ceil_div(u[u.size() - 2], block_of(m, 128)), ceil_div(u.back(), block_of(m, 128))});
}
// NVIDIA ModelOpt modelopt/torch/export/unified_export_hf.py with quantization/qtensor/nvfp4_tensor.py (at 0d7d92d6): weight uint8 [out, in / 2]
// (two e2m1 values per byte), weight_scale e4m3 [out, in / 16], weight_scale_2 and input_scale fp32 scalars.
dims nvfp4_weight(const model_config&, const dims& s) { return s.size() >= 2 ? with(lead(s, 1), {2 * s.back()}) : dims{}; }
dims nvfp4_scales(const model_config& m, const dims& u) { return with(lead(u, 1), {ceil_div(u.back(), block_of(m, 16))}); }
dims scalar(const model_config&, const dims&) { return {}; }

// The table: tensor suffix → role, dtype and layout, per checkpoint format. GPTQ and AWQ share every suffix but
// pack qweight along different sides (model.quant_g_idx: GPTQ).
const quant_row gptq_rows[] = {
    {checkpoint_format::int4_group, ".qweight", quant_role::values, "I32", gptq_qweight, nullptr},
    {checkpoint_format::int4_group, ".scales", quant_role::scales, "F16", nullptr, int4_scales},
    {checkpoint_format::int4_group, ".qzeros", quant_role::zeros, "I32", nullptr, int4_zeros},
    {checkpoint_format::int4_group, ".g_idx", quant_role::index, "I32", nullptr, int4_g_idx},
};
const quant_row awq_rows[] = {
    {checkpoint_format::int4_group, ".qweight", quant_role::values, "I32", awq_qweight, nullptr},
    {checkpoint_format::int4_group, ".scales", quant_role::scales, "F16", nullptr, int4_scales},
    {checkpoint_format::int4_group, ".qzeros", quant_role::zeros, "I32", nullptr, int4_zeros},
};
const quant_row other_rows[] = {
    {checkpoint_format::mxfp4, "_blocks", quant_role::values, "U8", mxfp4_blocks, nullptr},
    {checkpoint_format::mxfp4, "_scales", quant_role::scales, "U8", nullptr, mxfp4_scales},
    {checkpoint_format::nf4, ".weight", quant_role::values, "U8", nf4_weight, nullptr},
    {checkpoint_format::nf4, ".weight.absmax", quant_role::scales, "", nullptr, nf4_absmax},  // F32, or U8 when nested
    {checkpoint_format::nf4, ".weight.nested_absmax", quant_role::scales, "F32", nullptr, nf4_nested_absmax},
    {checkpoint_format::nf4, ".weight.quant_map", quant_role::table, "F32", nullptr, nf4_quant_map},
    {checkpoint_format::nf4, ".weight.nested_quant_map", quant_role::table, "F32", nullptr, nf4_nested_quant_map},
    {checkpoint_format::nf4, ".weight.quant_state.bitsandbytes__nf4", quant_role::state, "U8", nullptr, nullptr},
    {checkpoint_format::fp8_block, ".weight", quant_role::values, "F8_E4M3", identity, nullptr},
    {checkpoint_format::fp8_block, ".weight_scale_inv", quant_role::scales, "F32", nullptr, fp8_block_scales},
    {checkpoint_format::nvfp4, ".weight", quant_role::values, "U8", nvfp4_weight, nullptr},
    {checkpoint_format::nvfp4, ".weight_scale", quant_role::scales, "F8_E4M3", nullptr, nvfp4_scales},
    {checkpoint_format::nvfp4, ".weight_scale_2", quant_role::scalar, "F32", nullptr, scalar},
    {checkpoint_format::nvfp4, ".input_scale", quant_role::scalar, "F32", nullptr, scalar},
    {checkpoint_format::fp8_tensor, ".weight", quant_role::values, "F8_E4M3", identity, nullptr},
    {checkpoint_format::fp8_tensor, ".weight_scale", quant_role::scalar, "F32", nullptr, scalar},
    {checkpoint_format::fp8_tensor, ".input_scale", quant_role::scalar, "F32", nullptr, scalar},
};

/// The rows of `m`'s format; none when m is not quantized (or is a format memplan reads no layout of).
std::vector<const quant_row*> rows_of(const model_config& m) {
    std::vector<const quant_row*> out;
    if (m.checkpoint == checkpoint_format::int4_group && !m.quant_symmetric) {
        if (m.quant_g_idx)
            for (const auto& r : gptq_rows) out.push_back(&r);
        else
            for (const auto& r : awq_rows) out.push_back(&r);
    }
    for (const auto& r : other_rows)
        if (r.format == m.checkpoint) out.push_back(&r);
    return out;
}

std::string shape_text(const dims& d) {
    std::string s = "[";
    for (std::size_t i = 0; i < d.size(); ++i) s += (i ? ", " : "") + std::to_string(d[i]);
    return s + "]";
}

/// How checkpoint_json reads each stored tensor of a quantized checkpoint.
struct reading {
    std::uint64_t params = 0;  ///< values counted as parameters (packed values unpacked)
    bool metadata = false;     ///< a scale, zero point, index, scalar, table or state that checked out
    std::string refused;       ///< why the tensor does not fit the format's layout (named), or ""
};

/// Reads every tensor: a packed values tensor of the format counts as its unpacked parameters; a metadata tensor
/// is checked against the shape the layout gives it beside the values of its module, and refused, naming it,
/// when no such values tensor is stored or its shape or dtype differ.
std::vector<reading> read_tensors(const model_config& m, const std::vector<stored_tensor>& tensors) {
    const auto rows = rows_of(m);
    const auto match = [&rows](const stored_tensor& t, bool values) -> const quant_row* {
        const quant_row* best = nullptr;
        for (const quant_row* r : rows)
            if ((r->role == quant_role::values) == values && detail::ends_with(t.name, r->suffix) &&
                (!values || t.dtype == r->dtype) &&
                (best == nullptr || std::char_traits<char>::length(r->suffix) > std::char_traits<char>::length(best->suffix)))
                best = r;
        return best;
    };
    // The unpacked shape of each module's packed values, by module name.
    std::map<std::string, dims> unpacked;
    std::vector<reading> out(tensors.size());
    for (std::size_t i = 0; i < tensors.size(); ++i) {
        const stored_tensor& t = tensors[i];
        out[i].params = t.values;
        // A tensor that is also some row's metadata suffix (nf4's ".weight" vs ".absmax") is read as metadata first.
        if (match(t, false) != nullptr) continue;
        const quant_row* r = match(t, true);
        if (r == nullptr) continue;
        // Unpacking multiplies the stored elements by at most 8 (eight 4-bit values per int32): a count that would
        // wrap is no checkpoint.
        const dims u = t.values <= std::numeric_limits<std::uint64_t>::max() / 8 ? r->unpack(m, t.shape) : dims{};
        if (u.empty()) {
            out[i].refused = t.name + ": " + t.dtype + " " + shape_text(t.shape) + " is not the packed layout of " +
                             to_string(m.checkpoint);
            continue;
        }
        out[i].params = product(u);
        unpacked[t.name.substr(0, t.name.size() - std::char_traits<char>::length(r->suffix))] = u;
    }
    for (std::size_t i = 0; i < tensors.size(); ++i) {
        const stored_tensor& t = tensors[i];
        const quant_row* r = match(t, false);
        if (r == nullptr) continue;
        const std::string module = t.name.substr(0, t.name.size() - std::char_traits<char>::length(r->suffix));
        const quant_row* v = nullptr;
        for (const quant_row* x : rows)
            if (x->role == quant_role::values) v = x;
        const auto it = unpacked.find(module);
        if (it == unpacked.end()) {
            out[i].refused = t.name + ": no packed " + module + (v != nullptr ? v->suffix : "") + " is stored beside it";
            continue;
        }
        std::string dtype = r->dtype;
        // bitsandbytes double quantization: absmax uint8 (nested), else fp32.
        if (r->format == checkpoint_format::nf4 && r->role == quant_role::scales && dtype.empty()) dtype = m.quant_double ? "U8" : "F32";
        if (t.dtype != dtype) {
            out[i].refused = t.name + ": stored as " + t.dtype + ", the " + to_string(m.checkpoint) + " layout stores it as " + dtype;
            continue;
        }
        if (r->expect != nullptr) {
            const dims want = r->expect(m, it->second);
            // A scalar is stored with shape [] or [1].
            const bool ok = want.empty() ? product(t.shape) == 1 && t.shape.size() <= 1 : t.shape == want;
            if (!ok) {
                out[i].refused = t.name + ": shape " + shape_text(t.shape) + ", the " + to_string(m.checkpoint) +
                                 " layout gives " + shape_text(want) + " beside " + module + v->suffix + ", unpacked " +
                                 shape_text(it->second) + " (out, in)";
                continue;
            }
        } else if (t.shape.size() != 1) {
            out[i].refused = t.name + ": shape " + shape_text(t.shape) + ", a serialized state is one-dimensional";
            continue;
        }
        out[i].metadata = true;
    }
    return out;
}
}  // namespace

std::string checkpoint_json(const std::string& hf_config_text, const std::vector<stored_tensor>& tensors) {
    ordered_json out;
    const auto parsed = parse_config(R"({"mode": "infer"})", hf_config_text);
    if (!parsed.ok()) {
        out["errors"] = detail::errors_json(parsed.errors);
        return detail::dump_json(out);
    }
    model_config m = parsed.value.model;
    // A checkpoint stores its MTP modules: counted with them.
    m.mtp = m.num_nextn_predict_layers != 0;
    const auto counted = count_params(m);
    if (!counted.ok()) {
        out["errors"] = detail::errors_json(counted.errors);
        detail::name_hf_config_fields(out);
        return detail::dump_json(out);
    }
    const model_param_parts& p = counted.value.parts;
    const std::pair<const char*, std::uint64_t> counts[] = {
        {"embedding", p.embedding.total}, {"attention", p.attention.total}, {"mlp", p.mlp.total},
        {"experts", p.experts.total},     {"shared_experts", p.shared_experts.total}, {"router", p.router.total},
        {"norms", p.norms.total},         {"output", p.output.total},  {"mtp", p.mtp.total},
        {"vision", p.vision.total},       {"quantization", 0},          {"buffers", 0},
        {"other", 0}};
    std::map<std::string, std::uint64_t> stored, stored_bytes;
    std::map<std::string, std::map<std::string, std::uint64_t>> part_dtypes;
    std::map<std::string, std::pair<std::uint64_t, std::uint64_t>> by_dtype;
    std::uint64_t values = 0, bytes = 0, params = 0;
    const std::vector<reading> read = read_tensors(m, tensors);
    ordered_json refused = ordered_json::array();
    for (std::size_t i = 0; i < tensors.size(); ++i) {
        const stored_tensor& t = tensors[i];
        // A metadata tensor that does not fit the format's layout is no part memplan knows: "other", named.
        const std::string part = !read[i].refused.empty() ? "other"
                                 : read[i].metadata      ? "quantization"
                                                         : detail::part_of(t.name, m.num_hidden_layers);
        if (!read[i].refused.empty()) refused.push_back(read[i].refused);
        stored[part] += read[i].params;
        stored_bytes[part] += t.bytes;
        part_dtypes[part][t.dtype] += t.bytes;
        if (part != "quantization" && part != "buffers" && read[i].refused.empty()) params += read[i].params;
        by_dtype[t.dtype].first += t.values;
        by_dtype[t.dtype].second += t.bytes;
        values += t.values;
        bytes += t.bytes;
    }
    ordered_json dtypes = ordered_json::object();
    for (const auto& [dtype, vb] : by_dtype) dtypes[dtype] = ordered_json{{"values", vb.first}, {"bytes", vb.second}};
    out["model_type"] = m.model_type;
    out["params"] = counted.value.total;
    out["stored"] = ordered_json{{"values", values}, {"params", params}, {"bytes", bytes}, {"tensors", tensors.size()}, {"by_dtype", dtypes}};
    std::uint64_t scale_bytes = m.mtp ? counted.value.mtp_layer.native_scale_bytes : 0;
    for (const layer_params& l : counted.value.layers) scale_bytes += l.native_scale_bytes;
    ordered_json parts = ordered_json::array();
    std::uint64_t unexplained = 0, unexplained_bytes = 0;
    for (const auto& [part, mine] : counts) {
        const std::uint64_t theirs = stored.count(part) != 0 ? stored.at(part) : 0;
        if (mine == 0 && theirs == 0) continue;
        const std::string name = part;
        std::string note;
        if (name == "output" && m.tie_word_embeddings && mine == 0 && theirs == p.embedding.total)
            note = "lm_head stored although tie_word_embeddings is true: the tied copy, counted once by memplan";
        else if (name == "mtp" && theirs > mine && m.mtp)
            note = "the MTP modules' own copies of the embedding and output head are stored beside them "
                   "(memplan counts the main model's once)";
        else if (name == "quantization")
            note = "scales and packing metadata of the quantized checkpoint, not parameters";
        else if (name == "buffers")
            note = "buffers stored with the weights (rotary inv_freq), not parameters";
        const bool explained = !note.empty() && (name != "mtp" || (theirs - mine) % p.embedding.total == 0);
        if (mine != theirs && !explained) {
            unexplained += mine > theirs ? mine - theirs : theirs - mine;
            // A part holding more than memplan counts: its stored bytes, none of them accounted for (a part
            // holding less stores no byte memplan cannot place; the values it lacks are in `unexplained`).
            if (theirs > mine) unexplained_bytes += stored_bytes.count(part) != 0 ? stored_bytes.at(part) : 0;
        }
        ordered_json row{{"part", name}, {"memplan", mine}, {"stored", theirs}};
        row["bytes"] = stored_bytes.count(part) != 0 ? stored_bytes.at(part) : 0;
        ordered_json part_by_dtype = ordered_json::object();
        if (part_dtypes.count(part) != 0)
            for (const auto& [dtype, b] : part_dtypes.at(part)) part_by_dtype[dtype] = b;
        row["by_dtype"] = part_by_dtype;
        row["difference"] = theirs >= mine ? theirs - mine : mine - theirs;
        row["larger"] = theirs == mine ? "neither" : theirs > mine ? "stored" : "memplan";
        if (!note.empty()) row["note"] = note;
        // The scale bytes memplan counts in its native format (model/params.cpp native_matrix), beside those stored.
        if (name == "quantization") row["memplan_bytes"] = scale_bytes;
        parts.push_back(row);
    }
    out["parts"] = parts;
    out["unexplained"] = unexplained;
    out["unexplained_bytes"] = unexplained_bytes;
    out["refused_tensors"] = refused;
    out["errors"] = ordered_json::array();
    return detail::dump_json(out);
}

}  // namespace memplan
