"""The PyTorch side of the benchmarks: the models bench_pytorch.py times and export_onnx.py exports
for onnxruntime-web. The GPT-2 model is the project's one reference model (tests/reference/
reference_model.py, whose safetensors reader and writer these scripts use too). Needs Debian's
python3-torch.

  single layer   nn.MultiheadAttention(d, heads, bias=True), batch_first, weights (1, heads, T, T)
                 returned per head (average_attn_weights=False), as npm run bench runs it.
  GPT-2 small    12 pre-LN blocks, d_model 768, 12 heads, vocab 50257, 1024 positions, GELU (tanh),
                 unembedding tied to wte: what cpp/core/model/forward.cpp computes for a 'gpt2' model.
                 Weights under GPT-2's Hugging Face names, Conv1D weights (in, out): y = x·W + b.
"""
import math
import os
import sys

import torch

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "tests", "reference"))
import reference_model as rm  # noqa: E402

GPT2_SMALL = dict(layers=12, d_model=768, heads=12, vocab=50257, positions=1024, T=128)


def read_weights(path):
    """{name: float32 tensor} of a model file."""
    return rm.read_weights(path)[1]


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


class GPT2(rm.Model):
    """ids (1, T) int64 -> logits (1, T, vocab): the project's reference forward (tests/reference/
    reference_model.py) in its fused spelling, nanoGPT's forward with GPT-2's Conv1D weights; step() is
    the same forward after cached positions (Hugging Face's past_key_values). torch.onnx folds the tied
    unembedding's wteᵀ into an initializer of its own, so an exported graph holds wte twice (650 MB);
    the computation is the same."""

    def __init__(self, weights, heads):
        super().__init__(weights, heads, "gpt2")


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
