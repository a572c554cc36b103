#!/usr/bin/python3
"""Reference data for whole small models: every trace tensor of a forward pass, the gradient of the
loss for every parameter, and two Adam steps. The loss is the next token's, or for tiny_recall the
recall task's: K = 3 readouts per position, readout k predicting the id k places back.

Run from the repository root (needs Debian's python3-torch; nothing else):

    /usr/bin/python3 tests/reference/make_model_reference.py

Writes into tests/reference/data/, for each of tiny_gpt2, tiny_attn_only and tiny_recall:

    <case>.model.safetensors     the weights under GPT-2's Hugging Face names
    <case>.expected.safetensors  ids and every trace tensor of one forward pass (computed in float64)
    <case>.grads.safetensors     a batch, its loss, grad.<param> for every parameter and the
                                 parameters after one and two torch.optim.Adam steps (float64)
    <case>.heads.safetensors     the gradient of the loss with respect to each head's gate (autograd),
                                 and the logit of two (position, token) pairs split into the direct
                                 path, each head, each MLP and the biases (numpy, float64)

The forward is reference_model.forward, written out in float64, cross-checked here against torch.nn
modules in float32 before anything is written. Fixed seeds: a rerun gives the same bytes.
"""

import os
import sys

import numpy as np
import torch
import torch.nn.functional as F

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import reference_model as rm  # noqa: E402
from reference_model import write_safetensors  # noqa: E402

FORMAT_VERSION = "3"  # 2: LayerNorm statistics and mlp_pre, which the backward pass reads; 3: head_write, heads file
RECALL_K = 3  # tiny_recall's readouts: logits and probs (1, T, K, vocab), lm_head (K·vocab, d_model)
COMMAND = "/usr/bin/python3 tests/reference/make_model_reference.py"
OUT_DIR = os.path.join(os.path.dirname(os.path.abspath(__file__)), "data")

LAYERS, D, HEADS, VOCAB, POSITIONS, T = 2, 64, 4, 128, 32, 12
B_GRAD = 3
EPS = rm.EPS


def make_params(preset, seed, readouts=1):
    """The model's parameters (float64), under GPT-2's names; Conv1D weights are (in, out)."""
    g = torch.Generator().manual_seed(seed)
    normal = lambda *shape, std: torch.randn(*shape, generator=g, dtype=torch.float64) * std
    p = {"wte.weight": normal(VOCAB, D, std=0.5), "wpe.weight": normal(POSITIONS, D, std=0.3)}
    for i in range(LAYERS):
        h = "h.%d." % i
        if preset == "gpt2":
            p[h + "ln_1.weight"] = 1 + normal(D, std=0.1)
            p[h + "ln_1.bias"] = normal(D, std=0.05)
        p[h + "attn.c_attn.weight"] = normal(D, 3 * D, std=0.15)
        p[h + "attn.c_attn.bias"] = normal(3 * D, std=0.05)
        p[h + "attn.c_proj.weight"] = normal(D, D, std=0.15)
        p[h + "attn.c_proj.bias"] = normal(D, std=0.05)
        if preset == "gpt2":
            p[h + "ln_2.weight"] = 1 + normal(D, std=0.1)
            p[h + "ln_2.bias"] = normal(D, std=0.05)
            p[h + "mlp.c_fc.weight"] = normal(D, 4 * D, std=0.15)
            p[h + "mlp.c_fc.bias"] = normal(4 * D, std=0.05)
            p[h + "mlp.c_proj.weight"] = normal(4 * D, D, std=0.1)
            p[h + "mlp.c_proj.bias"] = normal(D, std=0.05)
    if preset == "gpt2":
        p["ln_f.weight"] = 1 + normal(D, std=0.1)
        p["ln_f.bias"] = normal(D, std=0.05)
    else:
        p["lm_head.weight"] = normal(readouts * VOCAB, D, std=0.2)  # nn.Linear: (out, in)
    return p


def forward(p, preset, ids, record=None, readouts=1, gates=None, hook=None):
    """reference_model.forward at these models' head count, written out in float64."""
    return rm.forward(p, ids, HEADS, preset, record=record, readouts=readouts, gates=gates, hook=hook)


class TorchGPT(torch.nn.Module):
    """The same model from torch.nn modules, float32: the cross-check of the hand-written forward."""

    def __init__(self, p, preset):
        super().__init__()
        self.preset = preset
        self.wte = torch.nn.Embedding.from_pretrained(p["wte.weight"].float())
        self.wpe = torch.nn.Embedding.from_pretrained(p["wpe.weight"].float())
        self.blocks = []
        for i in range(LAYERS):
            h = "h.%d." % i
            blk = {}
            attn = torch.nn.MultiheadAttention(D, HEADS, batch_first=True)
            with torch.no_grad():
                attn.in_proj_weight.copy_(p[h + "attn.c_attn.weight"].T.float())
                attn.in_proj_bias.copy_(p[h + "attn.c_attn.bias"].float())
                attn.out_proj.weight.copy_(p[h + "attn.c_proj.weight"].T.float())
                attn.out_proj.bias.copy_(p[h + "attn.c_proj.bias"].float())
            blk["attn"] = attn
            if preset == "gpt2":
                for n in ("ln_1", "ln_2"):
                    ln = torch.nn.LayerNorm(D, eps=EPS)
                    with torch.no_grad():
                        ln.weight.copy_(p[h + n + ".weight"].float())
                        ln.bias.copy_(p[h + n + ".bias"].float())
                    blk[n] = ln
                fc, proj = torch.nn.Linear(D, 4 * D), torch.nn.Linear(4 * D, D)
                with torch.no_grad():
                    fc.weight.copy_(p[h + "mlp.c_fc.weight"].T.float())
                    fc.bias.copy_(p[h + "mlp.c_fc.bias"].float())
                    proj.weight.copy_(p[h + "mlp.c_proj.weight"].T.float())
                    proj.bias.copy_(p[h + "mlp.c_proj.bias"].float())
                blk["fc"], blk["proj"] = fc, proj
            self.blocks.append(blk)
        self.p = p

    def forward(self, ids):
        Tn = ids.shape[1]
        x = self.wte(ids) + self.wpe(torch.arange(Tn))
        mask = torch.triu(torch.ones(Tn, Tn, dtype=torch.bool), 1)
        for blk in self.blocks:
            a_in = blk["ln_1"](x) if self.preset == "gpt2" else x
            x = x + blk["attn"](a_in, a_in, a_in, attn_mask=mask, need_weights=False)[0]
            if self.preset == "gpt2":
                x = x + blk["proj"](rm.gelu(blk["fc"](blk["ln_2"](x))))
        if self.preset == "gpt2":
            ln_f = torch.nn.LayerNorm(D, eps=EPS)
            with torch.no_grad():
                ln_f.weight.copy_(self.p["ln_f.weight"].float())
                ln_f.bias.copy_(self.p["ln_f.bias"].float())
            return ln_f(x) @ self.p["wte.weight"].float().T
        return x @ self.p["lm_head.weight"].float().T


def next_token_loss(logits, ids):
    return F.cross_entropy(logits[:, :-1].reshape(-1, VOCAB), ids[:, 1:].reshape(-1))


def recall_targets(ids, K):
    """(B, T) -> (B, T, K): readout k − 1 at position i is the id at i − k, for i ≥ K; −1 elsewhere."""
    targets = torch.full(ids.shape + (K,), -1, dtype=torch.int64)
    for k in range(1, K + 1):
        targets[:, K:, k - 1] = ids[:, K - k:ids.shape[1] - k]
    return targets


def recall_loss(logits, ids):
    """The mean cross-entropy over every counted readout row (the same code path as the next token's)."""
    return F.cross_entropy(logits.reshape(-1, VOCAB), recall_targets(ids, logits.shape[2]).reshape(-1), ignore_index=-1)


def gate_gradient(p, preset, batch, gates):
    """d(next-token loss)/d(gate) of every head at these gates, by autograd (float64)."""
    leaf = gates.clone().requires_grad_(True)
    next_token_loss(forward(p, preset, batch, gates=leaf), batch).backward()
    return leaf.grad


def attribution(p, preset, record, position, token):
    """The logit of `token` at `position` split into the parts a learner can name, in numpy: the
    direct path (x), each head's write, each MLP's output without its bias, and every bias (b_O,
    b_proj and, for GPT-2, ln_f's β). GPT-2's ln_f is linear once its 1/σ at that position is held
    fixed (TransformerLens's convention): each part is centred, scaled by 1/σ and γ, then read by the
    token's unembedding row. Rows: embedding, heads (layer-major), MLPs, bias; and the logit."""
    n = lambda t: t.detach().numpy().astype(np.float64)
    gpt2 = preset == "gpt2"
    u = n(p["wte.weight"] if gpt2 else p["lm_head.weight"])[token]
    if gpt2:
        gamma, beta, rstd = n(p["ln_f.weight"]), n(p["ln_f.bias"]), n(record["ln_f_rstd"])[0, position]
        read = lambda v: float(((v - v.mean()) * rstd * gamma) @ u)
    else:
        read = lambda v: float(v @ u)
    parts = [read(n(record["x"])[0, position])]
    biases = np.zeros(D)
    for i in range(LAYERS):
        heads = n(record["layers.%d.head_write" % i])[0, :, position]
        parts += [read(heads[j]) for j in range(HEADS)]
        biases += n(p["h.%d.attn.c_proj.bias" % i])
    for i in range(LAYERS if gpt2 else 0):
        b_proj = n(p["h.%d.mlp.c_proj.bias" % i])
        parts.append(read(n(record["layers.%d.mlp_out" % i])[0, position] - b_proj))
        biases += b_proj
    parts.append(read(biases) + (float(beta @ u) if gpt2 else 0.0))
    logit = float(n(record["logits"])[0, position, token])
    if abs(sum(parts) - logit) > 1e-9 * max(1.0, abs(logit)):
        raise SystemExit("attribution: the parts sum to %r, the logit is %r" % (sum(parts), logit))
    return torch.tensor(parts, dtype=torch.float64), logit


def make_case(name, preset, seed, readouts=1):
    p = make_params(preset, seed, readouts)
    g = torch.Generator().manual_seed(seed + 1)
    ids = torch.randint(1, VOCAB, (1, T), generator=g)
    ids[0, 7:10] = ids[0, 2:5]  # a repeat, so the trace has something to copy
    record = {}
    with torch.no_grad():
        logits = forward(p, preset, ids, record, readouts)
        check = TorchGPT(p, preset)(ids).view(logits.shape)
    error = (check.double() - logits).abs().max().item() / logits.abs().max().item()
    if error > 1e-5:
        raise SystemExit("%s: the hand-written forward and torch.nn disagree (relative error %.2e)" % (name, error))

    meta = {"format_version": FORMAT_VERSION, "layout": "gpt2" if preset == "gpt2" else "attn-only",
            "heads": HEADS, "command": COMMAND}
    if readouts > 1:  # as `mha train --task recall` writes it
        meta.update(task="recall", recall=readouts)
    loss_of = recall_loss if readouts > 1 else next_token_loss
    params = list(p.items())
    extra = []
    if preset == "gpt2":  # Hugging Face keeps the causal mask as a buffer: loaders must ignore it
        mask = torch.tril(torch.ones(POSITIONS, POSITIONS)).view(1, 1, POSITIONS, POSITIONS)
        extra = [("h.%d.attn.bias" % i, mask) for i in range(LAYERS)]
    write_safetensors(os.path.join(OUT_DIR, name + ".model.safetensors"), params + extra, meta)
    write_safetensors(os.path.join(OUT_DIR, name + ".expected.safetensors"), [("ids", ids)] + list(record.items()),
                      dict(meta, layers=LAYERS, d_model=D, vocab=VOCAB, T=T))

    # Gradients and Adam, float64
    batch = torch.randint(0, VOCAB, (B_GRAD, T), generator=g)
    leaves = {k: v.clone().requires_grad_(True) for k, v in p.items()}
    loss = loss_of(forward(leaves, preset, batch, readouts=readouts), batch)
    loss.backward()
    grads = [("grad." + k, v.grad) for k, v in leaves.items()]
    lr, betas, eps = 1e-2, (0.9, 0.999), 1e-8
    leaves = {k: v.clone().requires_grad_(True) for k, v in p.items()}
    opt = torch.optim.Adam(list(leaves.values()), lr=lr, betas=betas, eps=eps)
    steps = []
    for step in (1, 2):
        opt.zero_grad()
        loss_of(forward(leaves, preset, batch, readouts=readouts), batch).backward()
        opt.step()
        steps += [("adam%d.%s" % (step, k), v.detach().clone()) for k, v in leaves.items()]
    write_safetensors(os.path.join(OUT_DIR, name + ".grads.safetensors"),
                      [("batch_ids", batch), ("loss", loss.detach().reshape(1))] + grads + steps,
                      dict(meta, lr=lr, beta1=betas[0], beta2=betas[1], eps=eps, B=B_GRAD, T=T))
    if readouts > 1:  # the gates and the attribution read the next-token prediction
        print("%s: forward checked against torch.nn (%.1e), %d trace tensors, %d gradients" % (name, error, len(record), len(grads)))
        return
    # Each head's gate: the gradient at 1 on the batch and on the ids alone (a head's importance,
    # Michel et al. 2019), and at gates between 0 and 1 (one head off, one at half), on the batch.
    on = torch.ones(LAYERS, HEADS, dtype=torch.float64)
    mixed = on.clone()
    mixed[0, 1], mixed[LAYERS - 1, 2] = 0.0, 0.5
    heads = [("batch_ids", batch), ("gate_grad", gate_gradient(p, preset, batch, on)),
             ("gate_grad_ids", gate_gradient(p, preset, ids, on)),
             ("gates_mixed", mixed), ("gate_grad_mixed", gate_gradient(p, preset, batch, mixed))]
    # The last position's first choice, and another token at an earlier position.
    last = int(record["logits"][0, T - 1].argmax())
    for case, (position, token) in enumerate(((T - 1, last), (5, 3))):
        parts, logit = attribution(p, preset, record, position, token)
        heads += [("attribution%d.position" % case, torch.tensor([position])), ("attribution%d.token" % case, torch.tensor([token])),
                  ("attribution%d.logit" % case, torch.tensor([logit])), ("attribution%d.parts" % case, parts)]
    write_safetensors(os.path.join(OUT_DIR, name + ".heads.safetensors"), heads, dict(meta, B=B_GRAD, T=T))
    print("%s: forward checked against torch.nn (%.1e), %d trace tensors, %d gradients, gate gradients, attribution" %
          (name, error, len(record), len(grads)))


def main():
    torch.set_grad_enabled(True)
    os.makedirs(OUT_DIR, exist_ok=True)
    make_case("tiny_gpt2", "gpt2", 11)
    make_case("tiny_attn_only", "attn-only", 12)
    make_case("tiny_recall", "attn-only", 13, readouts=RECALL_K)


if __name__ == "__main__":
    main()
