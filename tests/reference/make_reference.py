#!/usr/bin/python3
"""Generate reference attention traces for the C++ multi-head attention tests.

Run from the repository root:

    /usr/bin/python3 tests/reference/make_reference.py [case ...]

With case names, only those cases are written (the llama cases got RoPE after
the others were made; the others stay as they were).

Needs PyTorch (Debian's python3-torch) and numpy; nothing else.  Writes, for
every case, three safetensors files into tests/reference/data/:

    <case>.weights.safetensors   attention weights under the ecosystem's names
    <case>.input.safetensors     the input x
    <case>.expected.safetensors  every intermediate of the attention forward

The safetensors files are written by reference_model.py (no safetensors package needed).
Everything is float32 and deterministic (fixed seed per case).
"""

import math
import os
import sys

import numpy as np
import torch
import torch.nn.functional as F

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from reference_model import read_safetensors, write_safetensors  # noqa: E402

FORMAT_VERSION = "1"
COMMAND = "/usr/bin/python3 tests/reference/make_reference.py"
OUT_DIR = os.path.join(os.path.dirname(os.path.abspath(__file__)), "data")


# --------------------------------------------------------------------------
# shared attention core (operates on already-projected q, k, v)
# --------------------------------------------------------------------------

def rotate_half(x):
    """transformers' rotate_half: (x1, x2) -> (-x2, x1), halves of the last dim."""
    x1 = x[..., : x.shape[-1] // 2]
    x2 = x[..., x.shape[-1] // 2:]
    return torch.cat((-x2, x1), dim=-1)


def llama_rope(T, dh, base):
    """cos, sin (1, T, dh) as transformers' LlamaRotaryEmbedding makes them
    (default rope_type, attention_scaling 1), all in float32."""
    inv_freq = 1.0 / (base ** (torch.arange(0, dh, 2, dtype=torch.int64).float() / dh))
    position_ids = torch.arange(T)[None, :]
    inv_freq_expanded = inv_freq[None, :, None].float().expand(position_ids.shape[0], -1, 1)
    position_ids_expanded = position_ids[:, None, :].float()
    freqs = (inv_freq_expanded.float() @ position_ids_expanded.float()).transpose(1, 2)
    emb = torch.cat((freqs, freqs), dim=-1)
    return emb.cos(), emb.sin()


def apply_rotary_pos_emb(q, k, cos, sin):
    """transformers' apply_rotary_pos_emb: q, k (1, heads, T, dh)."""
    cos = cos.unsqueeze(1)
    sin = sin.unsqueeze(1)
    return q * cos + rotate_half(q) * sin, k * cos + rotate_half(k) * sin


def attention_core(q, k, v, heads, kv_heads, causal, rope_theta=None):
    """q: (1,T,heads*dh); k, v: (1,T,kv_heads*dh). Returns dict of intermediates
    (without the output projection). rope_theta: turn q and k after the split
    (Llama), adding q_rot and k_rot."""
    B, T, d_model = q.shape
    dh = d_model // heads
    q_heads = q.view(B, T, heads, dh).transpose(1, 2).contiguous()
    k_heads = k.view(B, T, kv_heads, dh).transpose(1, 2).contiguous()
    v_heads = v.view(B, T, kv_heads, dh).transpose(1, 2).contiguous()
    q_att, k_att = q_heads, k_heads
    if rope_theta is not None:
        cos, sin = llama_rope(T, dh, rope_theta)
        q_att, k_att = apply_rotary_pos_emb(q_heads, k_heads, cos, sin)
    group = heads // kv_heads
    # Hugging Face repeat_kv: kv head g serves query heads g*group .. (g+1)*group-1
    k_rep = k_att.repeat_interleave(group, dim=1)
    v_rep = v_heads.repeat_interleave(group, dim=1)
    scores = torch.matmul(q_att, k_rep.transpose(-2, -1)) / math.sqrt(dh)
    if causal:
        future = torch.triu(torch.ones(T, T, dtype=torch.bool), 1)
        scores = scores.masked_fill(future, float("-inf"))
    weights = torch.softmax(scores, dim=-1)
    head_out = torch.matmul(weights, v_rep)
    concat = head_out.transpose(1, 2).contiguous().view(B, T, d_model)
    out = {
        "q": q, "k": k, "v": v,
        "q_heads": q_heads, "k_heads": k_heads, "v_heads": v_heads,
        "scores": scores, "weights": weights, "head_out": head_out,
        "concat": concat,
    }
    if rope_theta is not None:
        out["q_rot"], out["k_rot"] = q_att.contiguous(), k_att.contiguous()
    return out


# The order tensors are stored in; a case stores those its trace has (q_rot and
# k_rot: the llama cases).
EXPECTED_ORDER = ["q", "k", "v", "q_heads", "k_heads", "v_heads", "q_rot", "k_rot",
                  "scores", "weights", "head_out", "concat", "y"]


def uniform_(t, scale=0.5):
    with torch.no_grad():
        t.uniform_(-scale, scale)
    return t


def rand_w(*shape, scale=0.5):
    return torch.empty(*shape, dtype=torch.float32).uniform_(-scale, scale)


# --------------------------------------------------------------------------
# cases
# --------------------------------------------------------------------------

def case_pytorch(name, seed, d, heads, T, causal, x_scale=1.0, x_no_batch=False):
    torch.manual_seed(seed)
    m = torch.nn.MultiheadAttention(embed_dim=d, num_heads=heads, bias=True,
                                    batch_first=True)
    m.eval()
    for p in m.parameters():
        uniform_(p, 0.5)
    x = torch.randn(1, T, d) * x_scale

    attn_mask = torch.triu(torch.ones(T, T, dtype=torch.bool), 1) if causal else None
    with torch.no_grad():
        y_mod, w_mod = m(x, x, x, need_weights=True, attn_mask=attn_mask,
                         average_attn_weights=False)

        W = m.in_proj_weight
        b = m.in_proj_bias
        q = F.linear(x, W[:d], b[:d])
        k = F.linear(x, W[d:2 * d], b[d:2 * d])
        v = F.linear(x, W[2 * d:], b[2 * d:])
        tr = attention_core(q, k, v, heads, heads, causal)
        tr["y"] = F.linear(tr["concat"], m.out_proj.weight, m.out_proj.bias)

    assert w_mod.shape == tr["weights"].shape, (w_mod.shape, tr["weights"].shape)
    assert torch.allclose(tr["weights"], w_mod, atol=1e-6, rtol=0), \
        "%s: manual weights differ from module (max %g)" % (
            name, (tr["weights"] - w_mod).abs().max().item())
    assert torch.allclose(tr["y"], y_mod, atol=1e-6, rtol=0), \
        "%s: manual y differs from module (max %g)" % (
            name, (tr["y"] - y_mod).abs().max().item())
    # The reference is the real module: store its weights and y.
    tr["weights"] = w_mod.detach().clone()
    tr["y"] = y_mod.detach().clone()

    sd = m.state_dict()
    weights = [(n, sd[n]) for n in ("in_proj_weight", "in_proj_bias",
                                    "out_proj.weight", "out_proj.bias")]
    x_store = x[0] if x_no_batch else x
    return dict(layout="pytorch", layer="0", heads=heads, kv_heads=heads,
                d_model=d, seq=T, causal=causal, weights=weights,
                x=x_store, trace=tr)


def case_gpt2(name, seed, d, heads, T, vocab=50, n_ctx=16, layer=1, n_layers=2):
    torch.manual_seed(seed)
    weights = [("wte.weight", rand_w(vocab, d)), ("wpe.weight", rand_w(n_ctx, d))]
    layers = {}
    for N in range(n_layers):
        p = "h.%d." % N
        ln_w = 1.0 + rand_w(d, scale=0.1)
        ln_b = rand_w(d, scale=0.1)
        c_attn_w = rand_w(d, 3 * d)   # Conv1D: [in, out]
        c_attn_b = rand_w(3 * d)
        c_proj_w = rand_w(d, d)
        c_proj_b = rand_w(d)
        weights += [(p + "ln_1.weight", ln_w), (p + "ln_1.bias", ln_b),
                    (p + "attn.c_attn.weight", c_attn_w),
                    (p + "attn.c_attn.bias", c_attn_b),
                    (p + "attn.c_proj.weight", c_proj_w),
                    (p + "attn.c_proj.bias", c_proj_b)]
        layers[N] = (c_attn_w, c_attn_b, c_proj_w, c_proj_b)
    assert not torch.equal(layers[0][0], layers[1][0])
    x = torch.randn(1, T, d)

    c_attn_w, c_attn_b, c_proj_w, c_proj_b = layers[layer]
    with torch.no_grad():
        qkv = x @ c_attn_w + c_attn_b
        q, k, v = qkv.split(d, dim=-1)
        tr = attention_core(q.contiguous(), k.contiguous(), v.contiguous(),
                            heads, heads, causal=True)
        tr["y"] = tr["concat"] @ c_proj_w + c_proj_b
    return dict(layout="gpt2", layer=str(layer), heads=heads, kv_heads=heads,
                d_model=d, seq=T, causal=True, weights=weights, x=x, trace=tr)


def case_llama(name, seed, d, heads, kv_heads, T, causal, prefix_fmt=None,
               n_layers=1, layer=0, file_rope_theta=None):
    """file_rope_theta: written to the weights file's __metadata__ as rope_theta;
    None leaves it out, so the loader's default (10000) applies."""
    torch.manual_seed(seed)
    dh = d // heads
    kvd = kv_heads * dh
    weights = []
    layers = {}
    for N in range(n_layers):
        p = prefix_fmt % N if prefix_fmt else ""
        wq = rand_w(d, d)
        wk = rand_w(kvd, d)
        wv = rand_w(kvd, d)
        wo = rand_w(d, d)
        weights += [(p + "q_proj.weight", wq), (p + "k_proj.weight", wk),
                    (p + "v_proj.weight", wv), (p + "o_proj.weight", wo)]
        layers[N] = (wq, wk, wv, wo)
    x = torch.randn(1, T, d)

    wq, wk, wv, wo = layers[layer]
    with torch.no_grad():
        q = F.linear(x, wq)
        k = F.linear(x, wk)
        v = F.linear(x, wv)
        theta = float(file_rope_theta) if file_rope_theta else 10000.0
        tr = attention_core(q, k, v, heads, kv_heads, causal, rope_theta=theta)
        tr["y"] = F.linear(tr["concat"], wo)
    weights_meta = {"rope_theta": file_rope_theta} if file_rope_theta else {}
    return dict(layout="llama", layer=str(layer), heads=heads, kv_heads=kv_heads,
                d_model=d, seq=T, causal=causal, weights=weights, x=x, trace=tr,
                weights_meta=weights_meta, rope_theta=theta)


CASES = [
    ("pytorch_mha", lambda n: case_pytorch(n, 101, d=24, heads=4, T=7, causal=False)),
    ("pytorch_causal", lambda n: case_pytorch(n, 102, d=32, heads=8, T=9, causal=True,
                                              x_no_batch=True)),
    ("pytorch_large", lambda n: case_pytorch(n, 103, d=16, heads=2, T=5, causal=False,
                                             x_scale=40.0)),
    ("gpt2_layer1", lambda n: case_gpt2(n, 104, d=48, heads=4, T=6)),
    ("llama_gqa", lambda n: case_llama(n, 105, d=32, heads=8, kv_heads=2, T=6,
                                       causal=True)),
    ("llama_mqa_layer0", lambda n: case_llama(n, 106, d=24, heads=6, kv_heads=1, T=5,
                                              causal=False,
                                              prefix_fmt="model.layers.%d.self_attn.",
                                              n_layers=2, layer=0,
                                              file_rope_theta="500000")),
]


# --------------------------------------------------------------------------
# checks on the written files
# --------------------------------------------------------------------------

def verify(name, c):
    meta, exp = read_safetensors(os.path.join(OUT_DIR, name + ".expected.safetensors"))
    _, inp = read_safetensors(os.path.join(OUT_DIR, name + ".input.safetensors"))
    _, wts = read_safetensors(os.path.join(OUT_DIR, name + ".weights.safetensors"))
    assert meta["case"] == name and meta["format_version"] == FORMAT_VERSION
    assert list(exp) == [n for n in EXPECTED_ORDER if n in c["trace"]], list(exp)
    assert ("q_rot" in exp) == (c["layout"] == "llama"), name
    assert list(inp) == ["x"]
    assert [n for n, _ in c["weights"]] == list(wts)
    H, KV, D, T = c["heads"], c["kv_heads"], c["d_model"], c["seq"]
    dh = D // H
    shapes = {"q": (1, T, D), "k": (1, T, KV * dh), "v": (1, T, KV * dh),
              "q_heads": (1, H, T, dh), "k_heads": (1, KV, T, dh),
              "v_heads": (1, KV, T, dh), "q_rot": (1, H, T, dh),
              "k_rot": (1, KV, T, dh), "scores": (1, H, T, T),
              "weights": (1, H, T, T), "head_out": (1, H, T, dh),
              "concat": (1, T, D), "y": (1, T, D)}
    for n, s in shapes.items():
        if n in exp:
            assert exp[n].shape == s, (name, n, exp[n].shape, s)
    if "q_rot" in exp:
        # A rotation keeps each pair's length, and position 0 is not turned.
        for a, b in (("q_heads", "q_rot"), ("k_heads", "k_rot")):
            h = dh // 2
            norm = lambda x: np.hypot(x[..., :h], x[..., h:])
            assert np.allclose(norm(exp[a]), norm(exp[b]), rtol=1e-5, atol=1e-6), (name, b)
            assert np.array_equal(exp[a][:, :, 0], exp[b][:, :, 0]), (name, b)
    scores, w = exp["scores"], exp["weights"]
    upper = np.triu(np.ones((T, T), dtype=bool), 1)
    if c["causal"]:
        assert np.all(np.isneginf(scores[..., upper])), name
        assert np.all(np.isfinite(scores[..., ~upper])), name
        assert np.all(w[..., upper] == 0.0), name
    else:
        assert np.all(np.isfinite(scores)), name
    for n, a in exp.items():
        if n != "scores":
            assert np.all(np.isfinite(a)), (name, n)
    for n, a in list(inp.items()) + list(wts.items()):
        assert np.all(np.isfinite(a)), (name, n)
    row_err = float(np.abs(w.sum(-1) - 1.0).max())
    assert row_err < 1e-5, (name, row_err)
    # Recompute y from the stored tensors with numpy as an independent check.
    ho = w.astype(np.float64) @ np.repeat(exp["v_heads"], H // KV, axis=1)
    assert np.allclose(ho, exp["head_out"], atol=1e-5), name
    return row_err


def main():
    os.makedirs(OUT_DIR, exist_ok=True)
    torch.set_num_threads(1)
    chosen = sys.argv[1:]
    unknown = set(chosen) - {n for n, _ in CASES}
    if unknown:
        sys.exit("unknown case(s): %s" % ", ".join(sorted(unknown)))
    for name, fn in CASES:
        if chosen and name not in chosen:
            continue
        c = fn(name)
        meta = {
            "case": name,
            "layout": c["layout"],
            "layer": c["layer"],
            "heads": str(c["heads"]),
            "kv_heads": str(c["kv_heads"]),
            "d_model": str(c["d_model"]),
            "seq": str(c["seq"]),
            "causal": "true" if c["causal"] else "false",
            "format_version": FORMAT_VERSION,
            "torch_version": torch.__version__,
            "command": COMMAND,
        }
        if "rope_theta" in c:
            meta["rope_theta"] = repr(c["rope_theta"])
        write_safetensors(os.path.join(OUT_DIR, name + ".weights.safetensors"),
                          c["weights"], dict({"case": name, "layout": c["layout"],
                                              "format_version": FORMAT_VERSION},
                                             **c.get("weights_meta", {})))
        write_safetensors(os.path.join(OUT_DIR, name + ".input.safetensors"),
                          [("x", c["x"])], {"case": name,
                                            "format_version": FORMAT_VERSION})
        write_safetensors(os.path.join(OUT_DIR, name + ".expected.safetensors"),
                          [(n, c["trace"][n]) for n in EXPECTED_ORDER if n in c["trace"]], meta)
        row_err = verify(name, c)
        tr = c["trace"]
        print("%-17s x%s q%s k%s scores%s y%s  max|rowsum-1|=%.3g" % (
            name, list(c["x"].shape), list(tr["q"].shape), list(tr["k"].shape),
            list(tr["scores"].shape), list(tr["y"].shape), row_err))
    return 0


if __name__ == "__main__":
    sys.exit(main())
