"""The PyTorch side of the benchmarks: the models bench_pytorch.py times and export_onnx.py exports
for onnxruntime-web, and the safetensors reader and writer they share. Needs Debian's python3-torch.

  single layer   nn.MultiheadAttention(d, heads, bias=True), batch_first, weights (1, heads, T, T)
                 returned per head (average_attn_weights=False), as npm run bench runs it.
  GPT-2 small    12 pre-LN blocks, d_model 768, 12 heads, vocab 50257, 1024 positions, GELU (tanh),
                 unembedding tied to wte: what cpp/core/model/forward.cpp computes for a 'gpt2' model.
                 Weights under GPT-2's Hugging Face names, Conv1D weights (in, out): y = x·W + b.
"""
import json
import math
import struct

import torch

GPT2_SMALL = dict(layers=12, d_model=768, heads=12, vocab=50257, positions=1024, T=128)
EPS = 1e-5  # GPT-2's LayerNorm epsilon (kLayerNormEps in cpp/core/base/config.h)


def write_safetensors(path, tensors, metadata):
    """tensors: dict name -> float32 tensor, written in insertion order."""
    header = {"__metadata__": {k: str(v) for k, v in metadata.items()}}
    offset = 0
    for name, t in tensors.items():
        n = t.numel() * 4
        header[name] = {"dtype": "F32", "shape": list(t.shape), "data_offsets": [offset, offset + n]}
        offset += n
    text = json.dumps(header, separators=(",", ":")).encode()
    text += b" " * (-(8 + len(text)) % 8)
    with open(path, "wb") as f:
        f.write(struct.pack("<Q", len(text)) + text)
        for t in tensors.values():
            f.write(t.detach().contiguous().to(torch.float32).numpy().astype("<f4").tobytes())


def read_safetensors(path):
    """F32 tensors only: dict name -> tensor."""
    with open(path, "rb") as f:
        data = f.read()
    (n,) = struct.unpack("<Q", data[:8])
    header = json.loads(data[8 : 8 + n])
    body = memoryview(data)[8 + n :]
    out = {}
    for name, info in header.items():
        if name == "__metadata__":
            continue
        if info["dtype"] != "F32":
            raise ValueError(f"{path}: {name} is {info['dtype']}, not F32")
        start, end = info["data_offsets"]
        out[name] = torch.frombuffer(bytearray(body[start:end]), dtype=torch.float32).reshape(info["shape"])
    return out


def attention_layer(tensors, d, heads):
    """nn.MultiheadAttention with the weights of a PyTorch-layout safetensors file
    (in_proj_weight, in_proj_bias, out_proj.weight, out_proj.bias: what scripts/bench/weights.js writes)."""
    mha = torch.nn.MultiheadAttention(d, heads, bias=True, batch_first=True).eval()
    with torch.no_grad():
        mha.in_proj_weight.copy_(tensors["in_proj_weight"])
        mha.in_proj_bias.copy_(tensors["in_proj_bias"])
        mha.out_proj.weight.copy_(tensors["out_proj.weight"])
        mha.out_proj.bias.copy_(tensors["out_proj.bias"])
    return mha


class AttentionWithWeights(torch.nn.Module):
    """x (1, T, d) -> y (1, T, d), weights (1, heads, T, T); the causal mask is a fixed buffer."""

    def __init__(self, mha, T, causal):
        super().__init__()
        self.mha = mha
        self.register_buffer("mask", torch.triu(torch.ones(T, T, dtype=torch.bool), 1) if causal else None)

    def forward(self, x):
        # nn.MultiheadAttention's own math without its fused fast path (aten::_native_multi_head_attention,
        # which it takes in eval mode and torch.onnx cannot export), in its (T, 1, d) layout.
        m, xt = self.mha, x.transpose(0, 1)
        y, weights = torch.nn.functional.multi_head_attention_forward(
            xt, xt, xt, m.embed_dim, m.num_heads, m.in_proj_weight, m.in_proj_bias, None, None, False, 0.0,
            m.out_proj.weight, m.out_proj.bias, training=False, attn_mask=self.mask, need_weights=True,
            average_attn_weights=False)
        return y.transpose(0, 1), weights


def gpt2_random_weights(seed=0, layers=12, d_model=768, vocab=50257, positions=1024, **_):
    """Random GPT-2 weights under Hugging Face's names: matrices normal(0, 0.02) (projections into the
    residual stream 0.02/√(2·layers)), LayerNorm γ = 1 + normal(0, 0.1), every β and bias normal(0, 0.02)."""
    g = torch.Generator().manual_seed(seed)
    normal = lambda *shape, std: torch.randn(*shape, generator=g) * std
    d, resid = d_model, 0.02 / math.sqrt(2 * layers)
    w = {"wte.weight": normal(vocab, d, std=0.02), "wpe.weight": normal(positions, d, std=0.01)}
    for i in range(layers):
        h = f"h.{i}."
        w[h + "ln_1.weight"], w[h + "ln_1.bias"] = 1 + normal(d, std=0.1), normal(d, std=0.02)
        w[h + "attn.c_attn.weight"], w[h + "attn.c_attn.bias"] = normal(d, 3 * d, std=0.02), normal(3 * d, std=0.02)
        w[h + "attn.c_proj.weight"], w[h + "attn.c_proj.bias"] = normal(d, d, std=resid), normal(d, std=0.02)
        w[h + "ln_2.weight"], w[h + "ln_2.bias"] = 1 + normal(d, std=0.1), normal(d, std=0.02)
        w[h + "mlp.c_fc.weight"], w[h + "mlp.c_fc.bias"] = normal(d, 4 * d, std=0.02), normal(4 * d, std=0.02)
        w[h + "mlp.c_proj.weight"], w[h + "mlp.c_proj.bias"] = normal(4 * d, d, std=resid), normal(d, std=0.02)
    w["ln_f.weight"], w["ln_f.bias"] = 1 + normal(d, std=0.1), normal(d, std=0.02)
    return w


class GPT2(torch.nn.Module):
    """ids (1, T) int64 -> logits (1, T, vocab), nanoGPT's forward with GPT-2's Conv1D weights; step()
    is the same forward after cached positions (Hugging Face's past_key_values)."""

    def __init__(self, weights, heads):
        super().__init__()
        self.heads = heads
        self.w = torch.nn.ParameterDict({k.replace(".", "__"): torch.nn.Parameter(v, requires_grad=False) for k, v in weights.items()})
        self.layers = sum(1 for k in weights if k.endswith("ln_1.weight"))

    def p(self, name):
        return self.w[name.replace(".", "__")]

    def layer_norm(self, x, name):
        w = self.p(name + ".weight")  # its shape, not x's: a constant in a traced graph
        return torch.nn.functional.layer_norm(x, w.shape, w, self.p(name + ".bias"), EPS)

    def conv1d(self, x, name):  # x·W + b, W (in, out)
        return x @ self.p(name + ".weight") + self.p(name + ".bias")

    def forward(self, ids):
        return self.step(ids, None)[0]

    def step(self, ids, past):
        """ids (1, n) after P cached positions -> logits (1, n, vocab) and the cache with them: per layer
        (k, v), each (1, heads, P + n, d_head). past: that list, or None for P = 0."""
        n = ids.shape[1]
        P = past[0][0].shape[2] if past is not None else 0
        wte = self.p("wte.weight")
        d = wte.shape[1]
        D = d // self.heads
        x = wte[ids] + self.p("wpe.weight")[P : P + n]  # (1, n, d)
        # query i (position P + i) sees keys 0 … P + i: compared, so the traced graph takes any P and n
        future = torch.arange(P + n).unsqueeze(0) > (torch.arange(n) + P).unsqueeze(1)  # (n, P + n)
        present = []
        for i in range(self.layers):
            h = f"h.{i}."
            q, k, v = self.conv1d(self.layer_norm(x, h + "ln_1"), h + "attn.c_attn").split(d, dim=-1)
            q, k, v = (t.view(1, n, self.heads, D).transpose(1, 2) for t in (q, k, v))  # (1, heads, n, D)
            if past is not None:
                k, v = torch.cat([past[i][0], k], dim=2), torch.cat([past[i][1], v], dim=2)  # (1, heads, P + n, D)
            present.append((k, v))
            scores = (q @ k.transpose(-2, -1)) * (1.0 / math.sqrt(D))  # (1, heads, n, P + n)
            weights = torch.softmax(scores.masked_fill(future, float("-inf")), dim=-1)
            concat = (weights @ v).transpose(1, 2).reshape(1, n, d)  # (1, n, d)
            x = x + self.conv1d(concat, h + "attn.c_proj")
            hidden = torch.nn.functional.gelu(self.conv1d(self.layer_norm(x, h + "ln_2"), h + "mlp.c_fc"), approximate="tanh")
            x = x + self.conv1d(hidden, h + "mlp.c_proj")
        x = self.layer_norm(x, "ln_f")
        # The tied unembedding. torch.onnx folds wteᵀ into an initializer of its own, so the graph holds
        # wte twice (650 MB); the computation is the same.
        return x @ wte.t(), present  # (1, n, vocab)


class GPT2WithPast(torch.nn.Module):
    """GPT2.step with flat inputs and outputs, as an ONNX graph takes them: ids (1, n), then
    past_key.i, past_value.i (1, heads, P, d_head) for every layer -> logits (1, n, vocab), then
    present_key.i, present_value.i (1, heads, P + n, d_head)."""

    def __init__(self, gpt2):
        super().__init__()
        self.gpt2 = gpt2

    def forward(self, ids, *past):
        pairs = [(past[2 * i], past[2 * i + 1]) for i in range(self.gpt2.layers)]
        logits, present = self.gpt2.step(ids, pairs)
        return (logits, *[t for kv in present for t in kv])
