#!/usr/bin/python3
"""Reference head metrics (cpp/core/analysis/head_metrics.h), written out with numpy from their definitions.

Run from the repository root:

    /usr/bin/python3 tests/reference/head_metrics.py

Reads the attention weights of committed reference traces and writes
tests/reference/data/head_metrics.expected.json: for each case, the ids used and, per layer, every
head's metrics, its label and the head similarity matrix (null where no row qualifies). The committed file
predates the labels; the C++ test checks the labels against a hand-written list and compares "label"
only when the file has it.
"""

import json
import math
import os
import struct

import numpy as np

DATA = os.path.join(os.path.dirname(os.path.abspath(__file__)), "data")
COMMAND = "/usr/bin/python3 tests/reference/head_metrics.py"


def read(path):
    raw = open(path, "rb").read()
    n = struct.unpack("<Q", raw[:8])[0]
    header = json.loads(raw[8:8 + n])
    meta = header.pop("__metadata__", {})
    out = {}
    for name, e in header.items():
        a, b = e["data_offsets"]
        dtype = {"F32": "<f4", "I64": "<i8"}[e["dtype"]]
        out[name] = np.frombuffer(raw[8 + n + a:8 + n + b], dtype=dtype).reshape(e["shape"])
    return meta, out


def mean(values):
    return float(np.mean(values)) if values else None


def metrics(a, ids, causal):
    """a: (T, T) one head's weights."""
    a = a.astype(np.float64)
    T = a.shape[0]
    allowed = [i + 1 if causal else T for i in range(T)]
    if T < 2:
        return dict.fromkeys(["entropy", "self", "previous_token", "first_token", "locality", "distance",
                              "distance_normalised", "induction", "duplicate_token", "offset", "offset_weight"])
    entropy, dist, uniform = [], [], []
    for i in range(1, T):
        n = allowed[i]
        row = a[i, :n]
        h = -sum(p * math.log(p) for p in row if p > 0)
        if n > 1:
            entropy.append(h / math.log(n))
        dist.append(sum(row[j] * abs(i - j) for j in range(n)))
        uniform.append(sum(abs(i - j) for j in range(n)) / n)
    induction, duplicate = [], []
    for i in range(T):
        m = [j for j in range(1, i) if ids[j - 1] == ids[i]]
        d = [j for j in range(i) if ids[j] == ids[i]]
        if m:
            induction.append(sum(a[i, j] for j in m))
        if d:
            duplicate.append(sum(a[i, j] for j in d))
    stripes = [(float(np.mean([a[i, i - d] for i in range(d, T)])), d) for d in range(1, T // 2 + 1)]
    best = max(stripes, key=lambda s: (s[0], -s[1]))  # the largest mean; the smallest d among equals
    return {
        "offset": float(best[1]),
        "offset_weight": best[0],
        "entropy": mean(entropy),
        "self": mean([a[i, i] for i in range(T)]),
        "previous_token": mean([a[i, i - 1] for i in range(1, T)]),
        "first_token": mean([a[i, 0] for i in range(1, T)]),
        "locality": mean([sum(a[i, j] for j in range(T) if abs(i - j) <= 3) for i in range(T)]),
        "distance": mean(dist),
        "distance_normalised": float(np.sum(dist) / np.sum(uniform)) if sum(uniform) > 0 else None,
        "induction": mean(induction),
        "duplicate_token": mean(duplicate),
    }


def similarity(a, b, causal):
    T = a.shape[0]
    out = []
    for i in range(1, T):
        n = i + 1 if causal else T
        p = 0.001 / n + 0.999 * a[i, :n].astype(np.float64)
        q = 0.001 / n + 0.999 * b[i, :n].astype(np.float64)
        m = 0.5 * (p + q)
        js = 0.5 * np.sum(p * np.log2(p / m)) + 0.5 * np.sum(q * np.log2(q / m))
        out.append(1.0 - min(1.0, max(0.0, js)))
    return mean(out)


# head_label_rules() in cpp/core/analysis/head_metrics.cpp, in its order: (label, metric, at least).
LABEL_RULES = [
    ("previous_token", "previous_token", 0.5),
    ("induction", "induction", 0.5),
    ("self", "self", 0.5),
    ("first_token", "first_token", 0.5),
    ("broad", "entropy", 0.9),
]


def with_label(m):
    """m plus its label: the first rule whose metric reaches its threshold, else "mixed"."""
    label = next((name for name, metric, at_least in LABEL_RULES if m[metric] is not None and m[metric] >= at_least), "mixed")
    return dict(m, label=label)


def analyse(weights, ids, causal):
    """weights: (heads, T, T)."""
    H = weights.shape[0]
    return {
        "heads": [with_label(metrics(weights[h], ids, causal)) for h in range(H)],
        "similarity": [[similarity(weights[h], weights[g], causal) for g in range(H)] for h in range(H)],
    }


def main():
    cases = {}
    for name in ("tiny_attn_only", "tiny_gpt2"):
        meta, t = read(os.path.join(DATA, name + ".expected.safetensors"))
        ids = [int(v) for v in t["ids"][0]]
        layers = [analyse(t["layers.%d.weights" % l][0], ids, True) for l in range(int(meta["layers"]))]
        cases[name] = {"ids": ids, "causal": True, "layers": layers}
    for name in ("pytorch_mha", "pytorch_causal"):
        meta, t = read(os.path.join(DATA, name + ".expected.safetensors"))
        w = t["weights"][0]
        T = w.shape[1]
        ids = [i % 3 for i in range(T)]  # repeats, so induction and duplicate-token have rows
        causal = meta["causal"] == "true"
        cases[name] = {"ids": ids, "causal": causal, "layers": [analyse(w, ids, causal)]}
    out = {"format_version": "1", "command": COMMAND, "cases": cases}
    with open(os.path.join(DATA, "head_metrics.expected.json"), "w") as f:
        json.dump(out, f, indent=1, sort_keys=True)
        f.write("\n")
    print("wrote %d cases" % len(cases))


if __name__ == "__main__":
    main()
