"""The project's one PyTorch model of what cpp/core/model/forward.cpp computes, and the one reader and
writer of the safetensors files the core reads. Every reference script beside this file imports it,
and so do the PyTorch peers of the benchmarks (cpp/bench/torch_models.py, train_pytorch.py), as
llm.c's train_gpt2.py writes what its test_gpt2.c reads.

The weights are a dict under GPT-2's Hugging Face names (Conv1D weights (in, out): y = x·W + b):
wte.weight, wpe.weight, and per block h.N.attn.c_attn.*, h.N.attn.c_proj.*, with the gpt2 preset
also h.N.ln_1.*, h.N.ln_2.*, h.N.mlp.c_fc.*, h.N.mlp.c_proj.*, ln_f.* and the unembedding tied to
wte; the attn-only preset has an lm_head.weight (vocab·readouts, d) instead.

forward() is written out once, in two spellings of the same arithmetic:
  reference (fused=False)  LayerNorm, GELU and the score scale written out, in the dtype of the
                           weights (float64 for the reference files), recording LayerNorm's
                           statistics and every trace tensor the core names;
  fused (fused=True)       torch's own layer_norm, gelu and addmm, as a PyTorch user would write it:
                           what the benchmarks time and export to ONNX.
Needs only torch and numpy (Debian's python3-torch).
"""

import json
import math
import struct

import numpy as np
import torch
import torch.nn.functional as F

EPS = 1e-5  # GPT-2's LayerNorm epsilon (kLayerNormEps in cpp/core/base/config.h)

_DTYPES = {"F32": ("<f4", 4), "I64": ("<i8", 8)}  # numpy dtype, bytes


def write_safetensors(path, tensors, metadata=None):
    """tensors: a dict or a list of (name, tensor), stored in that order; integer tensors as I64, the
    rest as F32. metadata: a dict whose values are stored as strings (none: no __metadata__)."""
    header = {"__metadata__": {k: str(v) for k, v in metadata.items()}} if metadata else {}
    blobs, offset = [], 0
    for name, t in (tensors.items() if isinstance(tensors, dict) else tensors):
        t = t.detach().contiguous().cpu()
        if t.dtype in (torch.int32, torch.int64):
            raw, dtype = t.to(torch.int64).numpy().astype("<i8").tobytes(), "I64"
        else:
            raw, dtype = t.to(torch.float32).numpy().astype("<f4").tobytes(), "F32"
        header[name] = {"dtype": dtype, "shape": list(t.shape), "data_offsets": [offset, offset + len(raw)]}
        blobs.append(raw)
        offset += len(raw)
    text = json.dumps(header, separators=(",", ":")).encode()
    text += b" " * (-(8 + len(text)) % 8)
    with open(path, "wb") as f:
        f.write(struct.pack("<Q", len(text)) + text)
        for raw in blobs:
            f.write(raw)


def read_safetensors(path):
    """(metadata, {name: numpy array}) of an F32/I64 file, checking that its tensors fill the data
    buffer back to back with nothing left over."""
    with open(path, "rb") as f:
        data = f.read()
    (n,) = struct.unpack("<Q", data[:8])
    header = json.loads(data[8:8 + n].decode("utf-8"))
    meta = header.pop("__metadata__", {})
    body = memoryview(data)[8 + n:]
    out, spans = {}, []
    for name, info in header.items():
        if info["dtype"] not in _DTYPES:
            raise ValueError("%s: %s has dtype %s, not F32 or I64" % (path, name, info["dtype"]))
        start, end = info["data_offsets"]
        count = int(np.prod(info["shape"])) if info["shape"] else 1
        dtype, size = _DTYPES[info["dtype"]]
        if end - start != size * count:
            raise ValueError("%s: %s offsets do not match its shape" % (path, name))
        spans.append((start, end))
        out[name] = np.frombuffer(body[start:end], dtype=dtype).reshape(info["shape"])
    spans.sort()
    pos = 0
    for start, end in spans:
        if start != pos:
            raise ValueError("%s: tensors not packed back to back" % path)
        pos = end
    if pos != len(body):
        raise ValueError("%s: trailing bytes in the data buffer" % path)
    return meta, out


def read_weights(path, dtype=None):
    """(metadata, {name: torch tensor}) of a model file, each tensor its own copy (in `dtype` if given)."""
    meta, arrays = read_safetensors(path)
    tensors = {k: torch.from_numpy(v.copy()) for k, v in arrays.items()}
    return meta, ({k: v.to(dtype) for k, v in tensors.items()} if dtype is not None else tensors)


def layers_of(p):
    return sum(1 for k in p if k.endswith("attn.c_attn.weight"))


def layer_norm(x, w, b, keep=None, name=None):
    """LayerNorm over the last dimension, written out; `keep` records the row means and 1/σ as
    name_mean, name_rstd (what the core's backward pass reads)."""
    mean = x.mean(-1, keepdim=True)
    var = ((x - mean) ** 2).mean(-1, keepdim=True)
    rstd = 1 / torch.sqrt(var + EPS)
    if keep is not None:
        keep(name + "_mean", mean.squeeze(-1))
        keep(name + "_rstd", rstd.squeeze(-1))
    return (x - mean) * rstd * w + b


def gelu(x):
    """GPT-2's GELU, the tanh approximation."""
    return 0.5 * x * (1 + torch.tanh(math.sqrt(2 / math.pi) * (x + 0.044715 * x ** 3)))


def forward(p, ids, heads, preset="gpt2", *, cache=None, record=None, readouts=1, gates=None, hook=None, fused=False):
    """ids (B, n) -> logits (B, n, vocab), or (B, n, readouts, vocab).

    cache: a list, per block, of the (k, v) of the positions before ids, each (B, heads, P, d_head);
        empty at first. The new positions' k and v are appended to it (Hugging Face's past_key_values).
    record: a dict that receives every trace tensor of sequence 0 under the core's names
        (cpp/core/model/stages.cpp), LayerNorm's statistics and each head's write.
    gates: (layers, heads); each head's output is multiplied by its gate before the concat (1: on).
    hook(point, layer, tensor) -> tensor at TransformerLens's hook points: "resid_pre" (the stream
        entering block `layer`, (B, n, d)) and "z" (head_out, (B, heads, n, d_head)).
    fused: torch's own layer_norm, gelu and addmm instead of the written-out ones (see the top)."""
    hook = hook or (lambda point, layer, t: t)
    keep = (lambda name, t: record.__setitem__(name, t[:1].clone())) if record is not None else (lambda name, t: None)
    norm = (lambda x, w, b, name: F.layer_norm(x, w.shape, w, b, EPS)) if fused else (lambda x, w, b, name: layer_norm(x, w, b, keep, name))
    act = (lambda x: F.gelu(x, approximate="tanh")) if fused else gelu

    def linear(x, w, b):  # Conv1D: x·W + b, W (in, out)
        if fused:
            return torch.addmm(b, x.reshape(-1, w.shape[0]), w).view(*x.shape[:-1], w.shape[1])
        return x @ w + b

    Bn, n = ids.shape
    wte = p["wte.weight"]
    vocab, d = wte.shape
    dh = d // heads
    P = cache[0][0].shape[2] if cache else 0
    tok, pos = wte[ids], p["wpe.weight"][P:P + n].unsqueeze(0)
    keep("token_embedding", tok)
    keep("position_encoding", pos)
    x = tok + pos
    keep("x", x)
    # query i (position P + i) sees keys 0 … P + i; a comparison, so a traced graph takes any P and n
    future = torch.arange(P + n).unsqueeze(0) > (torch.arange(n) + P).unsqueeze(1)  # (n, P + n)
    for i in range(layers_of(p)):
        h, L = "h.%d." % i, "layers.%d." % i
        x = hook("resid_pre", i, x)
        a_in = x
        if preset == "gpt2":
            a_in = norm(x, p[h + "ln_1.weight"], p[h + "ln_1.bias"], L + "ln_1")
            keep(L + "ln_1", a_in)
        q, k, v = linear(a_in, p[h + "attn.c_attn.weight"], p[h + "attn.c_attn.bias"]).split(d, dim=-1)
        for name, t in (("q", q), ("k", k), ("v", v)):
            keep(L + name, t)
        qh, kh, vh = (t.view(Bn, n, heads, dh).transpose(1, 2) for t in (q, k, v))  # (B, heads, n, dh)
        for name, t in (("q_heads", qh), ("k_heads", kh), ("v_heads", vh)):
            keep(L + name, t)
        if cache is not None:
            if len(cache) > i:
                kh, vh = torch.cat([cache[i][0], kh], dim=2), torch.cat([cache[i][1], vh], dim=2)
                cache[i] = (kh, vh)
            else:
                cache.append((kh, vh))
        raw = (qh @ kh.transpose(-2, -1)) * (1.0 / math.sqrt(dh)) if fused else qh @ kh.transpose(-2, -1) / math.sqrt(dh)
        keep(L + "raw_scores", raw)
        scores = raw.masked_fill(future, float("-inf"))
        keep(L + "scores", scores)
        weights = torch.softmax(scores, dim=-1)
        keep(L + "weights", weights)
        head_out = hook("z", i, weights @ vh)
        if gates is not None:
            head_out = head_out * gates[i].view(1, heads, 1, 1)
        keep(L + "head_out", head_out)
        concat = head_out.transpose(1, 2).reshape(Bn, n, d)
        keep(L + "concat", concat)
        w_o = p[h + "attn.c_proj.weight"]  # (in, out): rows h·dh … of head h
        if record is not None:
            keep(L + "head_write", torch.stack([head_out[:, j] @ w_o[j * dh:(j + 1) * dh] for j in range(heads)], 1))
        y = linear(concat, w_o, p[h + "attn.c_proj.bias"])
        keep(L + "y", y)
        x = x + y
        keep(L + "resid_mid", x)
        if preset == "gpt2":
            ln2 = norm(x, p[h + "ln_2.weight"], p[h + "ln_2.bias"], L + "ln_2")
            keep(L + "ln_2", ln2)
            pre = linear(ln2, p[h + "mlp.c_fc.weight"], p[h + "mlp.c_fc.bias"])
            keep(L + "mlp_pre", pre)
            hidden = act(pre)
            keep(L + "mlp_hidden", hidden)
            mlp_out = linear(hidden, p[h + "mlp.c_proj.weight"], p[h + "mlp.c_proj.bias"])
            keep(L + "mlp_out", mlp_out)
            x = x + mlp_out
            keep(L + "resid_out", x)
    if preset == "gpt2":
        x = norm(x, p["ln_f.weight"], p["ln_f.bias"], "ln_f")
        keep("ln_f", x)
        logits = x @ wte.t()
    else:
        logits = x @ p["lm_head.weight"].t()
    if readouts > 1:  # row r·V + v of lm_head is readout r's score for id v
        logits = logits.view(Bn, n, readouts, vocab)
    keep("logits", logits)
    keep("probs", torch.softmax(logits, dim=-1))
    return logits


class Model(torch.nn.Module):
    """forward() as a torch module over a weights dict: ids (B, n) -> logits, fused unless told;
    step() runs new ids after cached positions. trainable: the weights are copied and take gradients."""

    def __init__(self, weights, heads, preset="gpt2", trainable=False, fused=True):
        super().__init__()
        self.heads, self.preset, self.fused = heads, preset, fused
        self.w = torch.nn.ParameterDict({k.replace(".", "__"): torch.nn.Parameter(v.clone() if trainable else v, requires_grad=trainable)
                                         for k, v in weights.items()})
        self.layers = layers_of(weights)

    def weights(self):
        return {k.replace("__", "."): v for k, v in self.w.items()}

    def forward(self, ids):
        return forward(self.weights(), ids, self.heads, self.preset, fused=self.fused)

    def step(self, ids, past):
        """ids (B, n) after the positions of `past` (a list of per-block (k, v), or None) -> logits and
        the cache with the new positions."""
        cache = list(past) if past is not None else []
        return forward(self.weights(), ids, self.heads, self.preset, cache=cache, fused=self.fused), cache
