#!/usr/bin/python3
"""Reference data for circuits and activation patching (cpp/core/analysis/circuits.h, patching.h),
on the GPT-2 reference model (tiny_gpt2, make_model_reference.py's) and the shipped induction model
(models/induction.safetensors), all in float64 from the files' float32 weights.

Run from the repository root (needs Debian's python3-torch; nothing else), after
make_model_reference.py (it reads tiny_gpt2.model.safetensors):

    /usr/bin/python3 tests/reference/make_circuits_reference.py

Writes tests/reference/data/circuits.expected.safetensors, per case (induction., tiny_gpt2.):

    copying          (L, H)           Σ Re λ / Σ |λ| over torch.linalg.eigvals of W_OV W_U W_E (d × d)
    composition      (3, L, H, L, H)  Q, K, V: ‖L·R‖_F / (‖L‖_F ‖R‖_F) from the full d × d matrices, for
                                      every pair [mode, A's layer, A's head, B's layer, B's head] (the
                                      core reports A's layer < B's)
    baseline         (3,)             the same score of Gaussian heads, the mean of BASELINE_DRAWS pairs
                                      (torch's generator: the core draws its own, so it is matched loosely)
    head             (2,) I64         the head whose tables follow, [layer, head]
    ids              (T,) I64         the text of those tables
    qk_positional    (T, T)           W_pos W_QK W_posᵀ over the text's positions
    qk_token, ov     (n, n)           W_E W_QK W_Eᵀ and W_E W_OV W_U over its distinct ids (first appearance)
    clean, corrupt   (T,) I64         the patching texts
    answer_wrong     (2,) I64         the clean run's first choice and the corrupted run's, at the last position
    m                (2,)             m_clean, m_corrupt: logit[answer] − logit[wrong] at the last position
    heads            (L, H)           each head's recovery, its z patched from the clean run
    residual         (L, T)           each (layer, position)'s recovery, resid_pre patched

Patching runs make_model_reference.forward with its hook. GPT-2's LayerNorm γ is folded into the
matrices that read it: ln_1's into W_Q, W_K, W_V, ln_f's into W_U. Fixed seeds: a rerun gives the same bytes.
"""

import os
import sys

import torch

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import make_model_reference as mm  # noqa: E402
import reference_model as rm  # noqa: E402

FORMAT_VERSION = "1"
COMMAND = "/usr/bin/python3 tests/reference/make_circuits_reference.py"
ROOT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..")
BASELINE_DRAWS, BASELINE_SEED = 1000, 7

# name, file, preset, head of the tables, ids of the tables, clean, corrupt
CASES = [
    ("induction", "models/induction.safetensors", "attn-only", (1, 0), [0, 5, 9, 23, 7, 5, 9, 23],
     [0, 5, 9, 23, 7, 5, 9, 23], [0, 5, 9, 23, 11, 5, 9, 23]),
    ("tiny_gpt2", "tests/reference/data/tiny_gpt2.model.safetensors", "gpt2", (1, 1), [3, 17, 40, 3, 17, 99, 3],
     [3, 17, 40, 8, 3, 17, 40, 8, 3, 17], [3, 17, 51, 8, 3, 17, 40, 8, 3, 17]),
]


def load(path):
    meta, p = rm.read_weights(os.path.join(ROOT, path), torch.float64)
    layers = len({k.split(".")[1] for k in p if k.startswith("h.")})
    heads = int(meta.get("heads", mm.HEADS))
    # make_model_reference's forward reads its module's sizes: both models share them
    assert (layers, heads, p["wte.weight"].shape[1]) == (mm.LAYERS, mm.HEADS, mm.D), path
    return p


def head_matrices(p, preset, layer, head):
    """W_Q, W_K, W_V (d, dh) and W_O (dh, d) of one head, x · W, ln_1's γ folded."""
    dh, h = mm.D // mm.HEADS, "h.%d." % layer
    w = p[h + "attn.c_attn.weight"]  # Conv1D: (in, out)
    gamma = p[h + "ln_1.weight"].view(-1, 1) if preset == "gpt2" else 1
    cols = lambda part: w[:, part * mm.D + head * dh: part * mm.D + (head + 1) * dh] * gamma
    return cols(0), cols(1), cols(2), p[h + "attn.c_proj.weight"][head * dh:(head + 1) * dh]


def unembedding(p, preset):
    """W_U (d, vocab): ln_f's γ folded for GPT-2."""
    if preset == "gpt2":
        return p["ln_f.weight"].view(-1, 1) * p["wte.weight"].T
    return p["lm_head.weight"].T


def composition_score(left, right):
    return float(torch.linalg.norm(left @ right) / (torch.linalg.norm(left) * torch.linalg.norm(right)))


def circuits(p, preset):
    W_E, W_U = p["wte.weight"], unembedding(p, preset)
    qk, ov = {}, {}
    for l in range(mm.LAYERS):
        for h in range(mm.HEADS):
            q, k, v, o = head_matrices(p, preset, l, h)
            qk[l, h], ov[l, h] = q @ k.T, v @ o
    copying = torch.zeros(mm.LAYERS, mm.HEADS, dtype=torch.float64)
    for (l, h), m in ov.items():
        eig = torch.linalg.eigvals(m @ W_U @ W_E)
        copying[l, h] = eig.real.sum() / eig.abs().sum()
    composition = torch.zeros(3, mm.LAYERS, mm.HEADS, mm.LAYERS, mm.HEADS, dtype=torch.float64)
    for a in ov:
        for b in ov:
            for mode, right in enumerate((qk[b], qk[b].T, ov[b])):
                composition[(mode,) + a + b] = composition_score(ov[a], right)
    return copying, composition, qk, ov


def baseline(d, dh):
    g = torch.Generator().manual_seed(BASELINE_SEED)
    gauss = lambda *shape: torch.randn(*shape, generator=g, dtype=torch.float64)
    total = torch.zeros(3, dtype=torch.float64)
    for _ in range(BASELINE_DRAWS):
        (qa, ka, va, oa), (qb, kb, vb, ob) = [[gauss(d, dh), gauss(d, dh), gauss(d, dh), gauss(dh, d)] for _ in range(2)]
        ov_a = va @ oa
        for mode, right in enumerate((qb @ kb.T, kb @ qb.T, vb @ ob)):
            total[mode] += composition_score(ov_a, right)
    return total / BASELINE_DRAWS


def last_logits(p, preset, ids, hook=None):
    return mm.forward(p, preset, torch.tensor([ids]), hook=hook)[0, -1]


def patching(p, preset, clean, corrupt):
    record = {}
    clean_logits = last_logits(p, preset, clean, hook=lambda point, layer, t: record.setdefault((point, layer), t.clone()))
    corrupt_logits = last_logits(p, preset, corrupt)
    answer, wrong = int(clean_logits.argmax()), int(corrupt_logits.argmax())
    assert answer != wrong
    metric = lambda logits: float(logits[answer] - logits[wrong])
    m_clean, m_corrupt = metric(clean_logits), metric(corrupt_logits)

    def recovery(point, layer, index):
        def hook(at, l, t):
            if (at, l) != (point, layer):
                return t
            t = t.clone()
            if point == "z":
                t[:, index] = record[point, layer][:, index]
            else:
                t[:, index] = record[point, layer][:, index]
            return t
        return (metric(last_logits(p, preset, corrupt, hook)) - m_corrupt) / (m_clean - m_corrupt)

    heads = torch.tensor([[recovery("z", l, h) for h in range(mm.HEADS)] for l in range(mm.LAYERS)], dtype=torch.float64)
    residual = torch.tensor([[recovery("resid_pre", l, t) for t in range(len(clean))] for l in range(mm.LAYERS)],
                            dtype=torch.float64)
    return (answer, wrong), (m_clean, m_corrupt), heads, residual


def head_tables(p, preset, qk, ov, head, ids):
    tokens = list(dict.fromkeys(ids))
    W_E, W_pos = p["wte.weight"][tokens], p["wpe.weight"][:len(ids)]
    return W_pos @ qk[head] @ W_pos.T, W_E @ qk[head] @ W_E.T, W_E @ ov[head] @ unembedding(p, preset)[:, tokens]


def main():
    torch.set_num_threads(1)
    tensors = []
    base = baseline(mm.D, mm.D // mm.HEADS)
    for name, path, preset, head, ids, clean, corrupt in CASES:
        p = load(path)
        copying, composition, qk, ov = circuits(p, preset)
        qk_pos, qk_tok, ov_table = head_tables(p, preset, qk, ov, head, ids)
        answer_wrong, m, heads, residual = patching(p, preset, clean, corrupt)
        i64 = lambda values: torch.tensor(values, dtype=torch.int64)
        for key, value in [("copying", copying), ("composition", composition), ("baseline", base), ("head", i64(head)),
                           ("ids", i64(ids)), ("qk_positional", qk_pos), ("qk_token", qk_tok), ("ov", ov_table),
                           ("clean", i64(clean)), ("corrupt", i64(corrupt)), ("answer_wrong", i64(answer_wrong)),
                           ("m", torch.tensor(m, dtype=torch.float64)), ("heads", heads), ("residual", residual)]:
            tensors.append((name + "." + key, value))
        print("%s: copying %s" % (name, [round(float(x), 4) for x in copying.flatten()]))
        top = sorted(((float(composition[(1,) + a + b]), a, b) for a in ov for b in ov if a[0] < b[0]), reverse=True)[:4]
        print("%s: top K-composition %s; baseline %s" % (name, top, [round(float(x), 4) for x in base]))
        print("%s: answer, wrong %s, m %s, head recoveries %s" % (name, answer_wrong, m, [round(float(x), 3) for x in heads.flatten()]))
    out = os.path.join(mm.OUT_DIR, "circuits.expected.safetensors")
    rm.write_safetensors(out, tensors, {"format_version": FORMAT_VERSION, "command": COMMAND,
                                        "baseline_draws": BASELINE_DRAWS, "baseline_seed": BASELINE_SEED})
    back = rm.read_safetensors(out)[1]
    assert all(back[k].shape == tuple(v.shape) for k, v in tensors), "re-read mismatch"
    print("wrote", out)


if __name__ == "__main__":
    main()
