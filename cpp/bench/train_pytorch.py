#!/usr/bin/python3
"""The PyTorch peer of npm run bench:train: the induction model trained with autograd and
torch.optim.Adam, one thread, float32: the project's reference model (tests/reference/reference_model.py,
fused) with the attn-only preset, what cpp/core/model/forward.cpp computes:

  x = wte[ids] + wpe[:T]                                      (B, T, d)
  per block: q, k, v = x · c_attn + b  (fused, Conv1D (in, out)), causal softmax(q·kᵀ/√D) · v,
             x = x + concat · c_proj + b
  logits = x · lm_headᵀ (no bias); loss = mean cross-entropy over the positions with a target (−1: none)

Run by scripts/bench-train.js: /usr/bin/python3 cpp/bench/train_pytorch.py SPEC.json, where the spec is
  {"heads", "batch", "lr", "beta1", "beta2", "eps", "warmup",
   "cases": [{"L", "steps", "weights": model file of our trainer, "check": {"ids", "targets"}}]}
For each case: the loss of the weights on the check batch (B·T ids, targets) before any step, then
warmup + steps Adam steps on batches drawn before timing (the induction task at that L: [0, s1…sL,
s1…sL], s uniform in 1…vocab−1), the last `steps` timed. Prints one JSON object.

One thread: OPENBLAS_NUM_THREADS=1 before torch loads (torch.set_num_threads(1) does not stop
OpenBLAS's own threads; see bench_pytorch.py), and CPU time / wall time is returned per case.
"""
import json
import os
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
# bench_pytorch first: it sets OPENBLAS_NUM_THREADS=1 before torch loads, and exits saying so when
# torch is missing.
from bench_pytorch import blas_library, cpu_seconds  # noqa: E402
from torch_models import read_weights  # noqa: E402  (it puts tests/reference on the path)
import reference_model as rm  # noqa: E402

import torch  # noqa: E402


def loss_of(model, ids, targets):
    logits = model(ids)
    return torch.nn.functional.cross_entropy(logits.view(-1, logits.shape[-1]), targets.view(-1), ignore_index=-1)


def induction_batch(g, B, L, vocab):
    first = torch.randint(1, vocab, (B, L), generator=g)
    ids = torch.cat([torch.zeros(B, 1, dtype=torch.int64), first, first], dim=1)  # (B, 2L + 1)
    targets = torch.cat([ids[:, 1:], torch.full((B, 1), -1, dtype=torch.int64)], dim=1)
    return ids, targets


def run_case(spec, case):
    tensors = read_weights(case["weights"])
    model = rm.Model(tensors, spec["heads"], "attn-only", trainable=True)
    vocab = tensors["wte.weight"].shape[0]
    B, L = spec["batch"], case["L"]
    T = 2 * L + 1
    check_ids = torch.tensor(case["check"]["ids"], dtype=torch.int64).view(B, T)
    check_targets = torch.tensor(case["check"]["targets"], dtype=torch.int64).view(B, T)
    with torch.no_grad():
        check_loss = loss_of(model, check_ids, check_targets).item()
    opt = torch.optim.Adam(model.parameters(), lr=spec["lr"], betas=(spec["beta1"], spec["beta2"]), eps=spec["eps"])
    g = torch.Generator().manual_seed(case["L"])
    warmup, steps = spec["warmup"], case["steps"]
    batches = [induction_batch(g, B, L, vocab) for _ in range(warmup + steps)]
    losses = []

    def step(ids, targets):
        opt.zero_grad(set_to_none=True)
        loss = loss_of(model, ids, targets)
        loss.backward()
        opt.step()
        losses.append(loss.item())  # read back every step, as our trainer returns it

    for ids, targets in batches[:warmup]:
        step(ids, targets)
    cpu0, wall0 = cpu_seconds(), time.perf_counter()
    for ids, targets in batches[warmup:]:
        step(ids, targets)
    seconds = time.perf_counter() - wall0
    return {"L": L, "T": T, "steps": steps, "seconds": seconds, "rate": steps / seconds,
            "cpu": (cpu_seconds() - cpu0) / seconds, "check_loss": check_loss, "losses": losses}


def main():
    torch.set_num_threads(1)
    with open(sys.argv[1]) as f:
        spec = json.load(f)
    out = {"torch": torch.__version__, "blas": blas_library(), "threads": torch.get_num_threads(),
           "cases": [run_case(spec, case) for case in spec["cases"]]}
    print(json.dumps(out))


if __name__ == "__main__":
    main()
