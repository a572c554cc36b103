#!/usr/bin/python3
"""Reference data for generation: greedy decoding with a KV cache, and the distributions sampling
draws from, made with PyTorch in float64.

Run from the repository root (needs Debian's python3-torch), after make_model_reference.py (whose
models it decodes, rebuilt from the same seeds):

    /usr/bin/python3 tests/reference/make_generate_reference.py

Writes tests/reference/data/generate.expected.safetensors, for each case (tiny_gpt2, tiny_attn_only):

    <case>.ids       (P + N,)  the prompt, then N ids chosen greedily (the likeliest logit)
    <case>.logits    (N, V)    the logits each of the N steps chose from: the last position's, from a
                               forward that runs the prompt once and then one token at a time, reading
                               the keys and values it cached (checked against the whole forward each step)
    <case>.dist.<i>  (N, V)    the distribution setting i of SETTINGS draws from on each row of logits:
                               Hugging Face's warpers in its order (temperature, top-k, top-p), then softmax

Settings are in __metadata__ (settings = temperature/top_k/top_p;…). Fixed seeds: a rerun gives the same bytes.
"""

import os
import sys

import torch

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import make_model_reference as mm  # noqa: E402
import reference_model as rm  # noqa: E402

FORMAT_VERSION = "1"
COMMAND = "/usr/bin/python3 tests/reference/make_generate_reference.py"
PROMPT, NEW = 6, 10
# (temperature, top_k, top_p): each cut alone, both, and top_p 0 (only the likeliest survives)
SETTINGS = [(0.7, 0, 1.0), (1.0, 5, 1.0), (1.3, 0, 0.8), (0.8, 10, 0.9), (1.0, 0, 0.0)]


def warped_distribution(logits, temperature, top_k, top_p):
    """transformers' TemperatureLogitsWarper, TopKLogitsWarper and TopPLogitsWarper (min_tokens_to_keep
    1), in generate()'s order, then the softmax. logits: (N, V)."""
    scores = logits / temperature
    if top_k > 0:
        kth = torch.topk(scores, top_k)[0][..., -1, None]
        scores = scores.masked_fill(scores < kth, float("-inf"))
    if top_p < 1.0:
        sorted_logits, sorted_indices = torch.sort(scores, descending=False)
        cumulative = sorted_logits.softmax(dim=-1).cumsum(dim=-1)
        remove = cumulative <= (1 - top_p)
        remove[..., -1:] = False
        scores = scores.masked_fill(remove.scatter(1, sorted_indices, remove), float("-inf"))
    return torch.softmax(scores, dim=-1)


def make_case(name, preset, seed):
    p = mm.make_params(preset, seed)
    g = torch.Generator().manual_seed(seed + 2)
    ids = torch.randint(1, mm.VOCAB, (1, PROMPT), generator=g)
    cache, chosen, rows = [], ids, []
    step_ids = ids
    with torch.no_grad():
        for _ in range(NEW):
            logits = rm.forward(p, step_ids, mm.HEADS, preset, cache=cache)[0, -1]
            whole = mm.forward(p, preset, chosen)[0, -1]
            error = (logits - whole).abs().max().item() / whole.abs().max().item()
            if error > 1e-12:
                raise SystemExit("%s: the cached forward and the whole one disagree (%.1e)" % (name, error))
            rows.append(logits)
            step_ids = logits.argmax().view(1, 1)
            chosen = torch.cat([chosen, step_ids], dim=1)
    logits = torch.stack(rows)
    out = [(name + ".ids", chosen[0]), (name + ".logits", logits)]
    for i, (temperature, top_k, top_p) in enumerate(SETTINGS):
        out.append(("%s.dist.%d" % (name, i), warped_distribution(logits, temperature, top_k, top_p)))
    print("%s: %d new ids greedily, cached forward checked against the whole one at every step" % (name, NEW))
    return out


def main():
    tensors = make_case("tiny_gpt2", "gpt2", 11) + make_case("tiny_attn_only", "attn-only", 12)
    settings = ";".join("%g/%d/%g" % s for s in SETTINGS)
    rm.write_safetensors(os.path.join(mm.OUT_DIR, "generate.expected.safetensors"), tensors,
                         {"format_version": FORMAT_VERSION, "command": COMMAND, "prompt": PROMPT, "new": NEW,
                          "settings": settings, "torch_version": torch.__version__})


if __name__ == "__main__":
    main()
