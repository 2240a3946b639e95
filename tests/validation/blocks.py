"""Reference transformer blocks written the way Hugging Face transformers writes them, and a recorder
of every tensor autograd saves for backward (torch.autograd.graph.saved_tensors_hooks).

GPT2Block follows modeling_gpt2.py (GPT2Block/GPT2Attention/GPT2MLP with Conv1D layers, eager
attention); LlamaBlock follows modeling_llama.py (LlamaRMSNorm with its fp32 upcast, q/k/v/o
projections with repeat_kv for GQA, rotary embedding, eager attention, SwiGLU LlamaMLP).
Deliberate, documented simplifications (they change no saved tensor of the block itself):
- the causal mask is an additive float mask passed in (modeling_llama's causal_mask); GPT-2's
  torch.where on a bool buffer would save that buffer, which is a model constant, not an activation;
- GPT-2's scores are scaled by a Python float (HF divides by a 0-dim tensor: 2 bytes saved);
- GPT-2's activation is F.gelu(approximate="tanh"), numerically HF's "gelu_new"/gelu_pytorch_tanh,
  as one kernel (NewGELUActivation's composed formula would keep five intermediates that a fused
  CUDA bias-GeLU does not);
- nn.Dropout(p=0) is not called (it returns its input and saves nothing).
"""
import contextlib
import math

import torch
import torch.nn as nn
import torch.nn.functional as F
import torch.utils.checkpoint


class Recorder:
    """Records each storage saved for backward once, labelled "tag[i]" by the op (tag) that first saved it
    and its index among the storages that tag saved; parameters and buffers of the model are excluded."""

    def __init__(self, module):
        self.exclude = {p.storage().data_ptr() for p in module.parameters()}
        self.exclude |= {b.storage().data_ptr() for b in module.buffers()}
        self.tag_name = "untagged"
        self.by_ptr = {}
        self.order = []
        self.per_tag = {}
        self.keep = []

    @contextlib.contextmanager
    def tag(self, name):
        previous, self.tag_name = self.tag_name, name
        try:
            yield
        finally:
            self.tag_name = previous

    def pack(self, t):
        storage = t.storage()
        ptr = storage.data_ptr()
        index = self.per_tag.get(self.tag_name, 0)  # position of this save within its tag
        self.per_tag[self.tag_name] = index + 1
        if ptr in self.exclude:
            return t
        self.keep.append(t)  # keeps the storage alive so that its address is not reused
        label = "%s[%d]" % (self.tag_name, index)
        if ptr not in self.by_ptr:
            entry = {
                "label": label,
                "also": [],
                "shape": list(t.shape),
                "dtype": str(t.dtype).replace("torch.", ""),
                "bytes": storage.size() * t.element_size(),
            }
            self.by_ptr[ptr] = entry
            self.order.append(entry)
        else:
            self.by_ptr[ptr]["also"].append(label)
        return t

    @staticmethod
    def unpack(t):
        return t

    def hooks(self):
        return torch.autograd.graph.saved_tensors_hooks(self.pack, self.unpack)


@contextlib.contextmanager
def no_tag():
    yield


class Conv1D(nn.Module):
    """transformers.pytorch_utils.Conv1D: y = addmm(bias, x, weight) with weight (nx, nf)."""

    def __init__(self, nf, nx):
        super().__init__()
        self.nf = nf
        self.weight = nn.Parameter(torch.randn(nx, nf) * 0.02)
        self.bias = nn.Parameter(torch.zeros(nf))

    def forward(self, x):
        size_out = x.size()[:-1] + (self.nf,)
        x = torch.addmm(self.bias, x.view(-1, x.size(-1)), self.weight)
        return x.view(size_out)


def checkpointed(fn, enabled, *args):
    if enabled:
        return torch.utils.checkpoint.checkpoint(fn, *args)
    return fn(*args)


class GPT2Block(nn.Module):
    def __init__(self, hidden, heads, dropout):
        super().__init__()
        self.hidden, self.heads, self.head_dim, self.p = hidden, heads, hidden // heads, dropout
        self.ln_1 = nn.LayerNorm(hidden)
        self.c_attn = Conv1D(3 * hidden, hidden)
        self.c_proj = Conv1D(hidden, hidden)
        self.ln_2 = nn.LayerNorm(hidden)
        self.c_fc = Conv1D(4 * hidden, hidden)
        self.mlp_proj = Conv1D(hidden, 4 * hidden)
        self.rec = None

    def t(self, name):
        return self.rec.tag(name) if self.rec else no_tag()

    def dropout(self, x, name):
        if self.p == 0:
            return x
        with self.t(name):
            return F.dropout(x, self.p, self.training)

    def split_heads(self, x):  # GPT2Attention._split_heads
        return x.view(x.size()[:-1] + (self.heads, self.head_dim)).permute(0, 2, 1, 3)

    def core(self, q, k, v, mask):  # GPT2Attention._attn (eager)
        with self.t("scores"):
            w = torch.matmul(q, k.transpose(-1, -2))
        with self.t("scale"):
            w = w * (1.0 / math.sqrt(self.head_dim))
        w = w + mask
        with self.t("softmax"):
            w = F.softmax(w, dim=-1)
        w = self.dropout(w, "attn_dropout")
        with self.t("pv"):
            return torch.matmul(w, v)

    def forward(self, x, mask, selective=False):
        with self.t("ln_1"):
            a = self.ln_1(x)
        with self.t("c_attn"):
            qkv = self.c_attn(a)
        q, k, v = qkv.split(self.hidden, dim=2)
        q, k, v = self.split_heads(q), self.split_heads(k), self.split_heads(v)
        with self.t("core"):
            o = checkpointed(self.core, selective, q, k, v, mask)
        o = o.permute(0, 2, 1, 3).contiguous()
        o = o.view(o.size()[:-2] + (self.hidden,))  # _merge_heads
        with self.t("c_proj"):
            o = self.c_proj(o)
        x = x + self.dropout(o, "resid_dropout")
        with self.t("ln_2"):
            m = self.ln_2(x)
        with self.t("c_fc"):
            m = self.c_fc(m)
        with self.t("gelu"):
            m = F.gelu(m, approximate="tanh")
        with self.t("mlp_proj"):
            m = self.mlp_proj(m)
        return x + self.dropout(m, "mlp_dropout")


class LlamaRMSNorm(nn.Module):
    def __init__(self, hidden, eps=1e-6):
        super().__init__()
        self.weight = nn.Parameter(torch.ones(hidden))
        self.eps = eps

    def forward(self, hidden_states):  # modeling_llama.LlamaRMSNorm.forward
        input_dtype = hidden_states.dtype
        hidden_states = hidden_states.to(torch.float32)
        variance = hidden_states.pow(2).mean(-1, keepdim=True)
        hidden_states = hidden_states * torch.rsqrt(variance + self.eps)
        return self.weight * hidden_states.to(input_dtype)


def rotate_half(x):
    x1, x2 = x[..., : x.shape[-1] // 2], x[..., x.shape[-1] // 2:]
    return torch.cat((-x2, x1), dim=-1)


def rotary_tables(batch, seq, head_dim, dtype, base=10000.0):
    """LlamaRotaryEmbedding.forward: cos and sin of shape (batch, seq, head_dim), computed once per model."""
    inv_freq = 1.0 / (base ** (torch.arange(0, head_dim, 2, dtype=torch.float32) / head_dim))
    pos = torch.arange(seq, dtype=torch.float32)
    freqs = torch.outer(pos, inv_freq)
    emb = torch.cat((freqs, freqs), dim=-1)
    cos = emb.cos().to(dtype).expand(batch, seq, head_dim).contiguous()  # HF materialises one row per sequence
    return cos, emb.sin().to(dtype).expand(batch, seq, head_dim).contiguous()


def repeat_kv(hidden_states, n_rep):  # modeling_llama.repeat_kv
    batch, kv_heads, slen, head_dim = hidden_states.shape
    if n_rep == 1:
        return hidden_states
    hidden_states = hidden_states[:, :, None, :, :].expand(batch, kv_heads, n_rep, slen, head_dim)
    return hidden_states.reshape(batch, kv_heads * n_rep, slen, head_dim)


class LlamaBlock(nn.Module):
    def __init__(self, hidden, heads, kv_heads, head_dim, ffn):
        super().__init__()
        self.heads, self.kv_heads, self.head_dim = heads, kv_heads, head_dim
        self.input_layernorm = LlamaRMSNorm(hidden)
        self.q_proj = nn.Linear(hidden, heads * head_dim, bias=False)
        self.k_proj = nn.Linear(hidden, kv_heads * head_dim, bias=False)
        self.v_proj = nn.Linear(hidden, kv_heads * head_dim, bias=False)
        self.o_proj = nn.Linear(heads * head_dim, hidden, bias=False)
        self.post_attention_layernorm = LlamaRMSNorm(hidden)
        self.gate_proj = nn.Linear(hidden, ffn, bias=False)
        self.up_proj = nn.Linear(hidden, ffn, bias=False)
        self.down_proj = nn.Linear(ffn, hidden, bias=False)
        self.rec = None

    def t(self, name):
        return self.rec.tag(name) if self.rec else no_tag()

    def core(self, q, k, v, mask):  # eager_attention_forward
        n_rep = self.heads // self.kv_heads
        k, v = repeat_kv(k, n_rep), repeat_kv(v, n_rep)
        with self.t("scores"):
            w = torch.matmul(q, k.transpose(2, 3))
        with self.t("scale"):
            w = w * (self.head_dim ** -0.5)
        w = w + mask
        with self.t("softmax"):
            w = F.softmax(w, dim=-1, dtype=torch.float32).to(q.dtype)
        with self.t("pv"):
            return torch.matmul(w, v)

    def forward(self, x, mask, cos, sin, selective=False):
        b, s, _ = x.shape
        with self.t("input_layernorm"):
            a = self.input_layernorm(x)
        with self.t("qkv_proj"):
            q = self.q_proj(a).view(b, s, -1, self.head_dim).transpose(1, 2)
            k = self.k_proj(a).view(b, s, -1, self.head_dim).transpose(1, 2)
            v = self.v_proj(a).view(b, s, -1, self.head_dim).transpose(1, 2)
        with self.t("rotary"):
            c, n = cos.unsqueeze(1), sin.unsqueeze(1)
            q = (q * c) + (rotate_half(q) * n)
            k = (k * c) + (rotate_half(k) * n)
        with self.t("core"):
            o = checkpointed(self.core, selective, q, k, v, mask)
        o = o.transpose(1, 2).contiguous().reshape(b, s, -1)
        with self.t("o_proj"):
            o = self.o_proj(o)
        x = x + o
        with self.t("post_attention_layernorm"):
            m = self.post_attention_layernorm(x)
        with self.t("gate_proj"):
            g = self.gate_proj(m)
        with self.t("up_proj"):
            u = self.up_proj(m)
        with self.t("silu"):
            g = F.silu(g)
        with self.t("product"):
            p = g * u
        with self.t("down_proj"):
            return x + self.down_proj(p)


# ---- Fine-tuning: LoRA on a frozen base, and a QLoRA-style 4-bit base

class Dequant4bitMatmul(torch.autograd.Function):
    """bitsandbytes MatMul4Bit (bitsandbytes/autograd/_functions.py): the 4-bit weight is dequantized for
    the product and again in backward; only the packed weight is kept (ctx.tensors = (None, B)), never
    the input (the frozen weight needs no gradient) nor the dequantized copy."""

    @staticmethod
    def forward(ctx, x, codes, absmax, shape):
        ctx.save_for_backward(codes, absmax)  # buffers of the module: excluded like parameters
        ctx.shape = shape
        return F.linear(x, dequantize_4bit(codes, absmax, shape, x.dtype))

    @staticmethod
    def backward(ctx, grad):
        codes, absmax = ctx.saved_tensors
        return grad.matmul(dequantize_4bit(codes, absmax, ctx.shape, grad.dtype)), None, None, None


LEVELS = torch.linspace(-1.0, 1.0, 16)  # a 16-level code book (NF4's levels differ, not its layout)


def quantize_4bit(weight, block=64):
    """Two 4-bit codes per uint8 and one fp32 absmax per block of 64 weights (QLoRA §3 layout)."""
    flat = weight.detach().float().reshape(-1)
    pad = (-flat.numel()) % block
    flat = torch.cat((flat, flat.new_zeros(pad))).reshape(-1, block)
    absmax = flat.abs().amax(dim=1).clamp(min=1e-12)
    codes = ((flat / absmax[:, None])[..., None] - LEVELS).abs().argmin(dim=-1).to(torch.uint8).reshape(-1)
    return (codes[0::2] << 4 | codes[1::2]).contiguous(), absmax


def dequantize_4bit(packed, absmax, shape, dtype, block=64):
    codes = torch.stack((packed >> 4, packed & 15), dim=1).reshape(-1).long()
    values = (LEVELS[codes].reshape(-1, block) * absmax[:, None]).reshape(-1)
    return values[: shape[0] * shape[1]].reshape(shape).to(dtype)


class FrozenQuant4bitLinear(nn.Module):
    """bitsandbytes Linear4bit, frozen: packed codes and absmax as buffers, dequantized in forward."""

    def __init__(self, linear):
        super().__init__()
        codes, absmax = quantize_4bit(linear.weight)
        self.register_buffer("codes", codes)
        self.register_buffer("absmax", absmax)
        self.shape = tuple(linear.weight.shape)

    def forward(self, x):
        return Dequant4bitMatmul.apply(x, self.codes, self.absmax, self.shape)


class LoraLinear(nn.Module):
    """PEFT tuners/lora/layer.py Linear.forward: base_layer(x) + lora_B(lora_A(dropout(x))) * scaling, with
    lora_A d_in → r and lora_B r → d_out, no biases; nn.Identity instead of dropout when lora_dropout = 0."""

    def __init__(self, base, d_in, d_out, r, dropout, name):
        super().__init__()
        self.base_layer, self.name, self.p, self.scaling = base, name, dropout, 16.0 / r
        self.lora_A = nn.Linear(d_in, r, bias=False)
        self.lora_B = nn.Linear(r, d_out, bias=False)
        nn.init.normal_(self.lora_B.weight, std=0.02)  # PEFT starts B at zero; any value saves the same tensors
        self.rec = None

    def t(self, name):
        return self.rec.tag(self.name + "." + name) if self.rec else no_tag()

    def forward(self, x):
        result = self.base_layer(x)
        if self.p > 0:
            with self.t("dropout"):
                x = F.dropout(x, self.p, self.training)
        with self.t("lora_A"):
            a = self.lora_A(x)
        with self.t("lora_B"):
            b = self.lora_B(a)
        with self.t("scale"):
            return result + b * self.scaling


def adapt(block, targets, r, dropout, quantized):
    """Freezes `block` (a LlamaBlock), optionally stores its linears in 4 bits, and wraps the `targets`
    linears with LoRA adapters of rank r (in the block's dtype)."""
    dtype = block.q_proj.weight.dtype
    for p in block.parameters():
        p.requires_grad_(False)
    for name in ("q_proj", "k_proj", "v_proj", "o_proj", "gate_proj", "up_proj", "down_proj"):
        linear = getattr(block, name)
        d_out, d_in = linear.weight.shape
        base = FrozenQuant4bitLinear(linear) if quantized else linear
        if name in targets:
            base = LoraLinear(base, d_in, d_out, r, dropout, name).to(dtype)
            base.base_layer.requires_grad_(False)
        setattr(block, name, base)
    return block


def causal_mask(seq, dtype):
    return torch.full((seq, seq), torch.finfo(dtype).min, dtype=dtype).triu(1)[None, None]


def measure(block, x, extra, recompute):
    """Saved storages of one forward of `block` on x under recompute none / selective / full."""
    block.train()
    rec = Recorder(block)
    for module in block.modules():  # the block and its adapters tag what they save
        if hasattr(module, "rec"):
            module.rec = rec
    with rec.hooks():
        if recompute == "full":
            with rec.tag("checkpoint"):
                y = torch.utils.checkpoint.checkpoint(block, x, *extra)
        else:
            y = block(x, *extra, selective=(recompute == "selective"))
    for module in block.modules():
        if hasattr(module, "rec"):
            module.rec = None
    y.float().sum().backward()  # the saved tensors are the ones backward really uses
    return rec.order
