#!/usr/bin/env python3
"""The same workload in PyTorch, one thread, for the native comparison in the README.

nn.MultiheadAttention forward with the per-head weights materialised (need_weights=True,
average_attn_weights=False), bias on every projection, batch 1, float32.
Run: /usr/bin/python3 cpp/bench/bench_pytorch.py   (needs Debian's python3-torch)

     /usr/bin/python3 cpp/bench/bench_pytorch.py --model build/onnx/gpt2-small.safetensors [--runs N]
the GPT-2-small-shaped model of npm run bench:model instead (torch_models.GPT2, T 128 ids to the
logits, the ids scripts/bench-model.js uses); prints one line, "model <median ms> ms ...".

     /usr/bin/python3 cpp/bench/bench_pytorch.py --generate build/onnx/gpt2-small.safetensors [--runs N]
that model continuing a prompt of 32 ids by 64, greedy, with the KV cache (GPT2.step, as Hugging
Face's past_key_values), for npm run bench:generate: one JSON line {prefill_ms, decode_ms (mean per
step), decode_median_ms, ids, copy_gbps (a 256 MB tensor copy, read + written)} per run.

One thread means one: torch.set_num_threads(1) limits ATen, but OpenBLAS's pthread build starts
its own threads, so without OPENBLAS_NUM_THREADS=1 its GEMMs ran on both cores (CPU time 1.7x the
wall time at L). The script sets it before torch loads and prints CPU time / wall time per row.
"""
import os

for _var in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ[_var] = "1"

import argparse  # noqa: E402
import json  # noqa: E402
import resource  # noqa: E402
import statistics  # noqa: E402
import sys  # noqa: E402
import time  # noqa: E402

try:
    import torch  # noqa: E402
except ImportError:
    sys.exit("bench_pytorch.py: PyTorch is missing: sudo apt-get install python3-torch")

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import torch_models as tm  # noqa: E402


def cpu_seconds():
    usage = resource.getrusage(resource.RUSAGE_SELF)
    return usage.ru_utime + usage.ru_stime

SIZES = [("S", 8, 64, 4), ("M", 128, 768, 12), ("L", 512, 768, 12)]


def blas_library():
    """The BLAS this process loaded (Debian's libblas.so.3 alternative): reference BLAS is ~10x slower
    than OpenBLAS (libopenblas0-pthread), so it is printed beside every result."""
    torch.ones(2, 2) @ torch.ones(2, 2)  # loads it
    with open("/proc/self/maps") as f:
        libs = {line.split()[-1] for line in f if "blas" in line.lower() and ".so" in line}
    names = sorted(os.path.basename(os.path.dirname(p)) + "/" + os.path.basename(p) for p in libs)
    kind = "OpenBLAS" if any("openblas" in n for n in names) else "reference BLAS (install libopenblas0-pthread)"
    return f"{kind}: {', '.join(names) or 'none found'}"


def time_calls(fn, warmup, runs):
    """Median ms of `runs` calls after `warmup`, and CPU time / wall time over the timed calls."""
    with torch.no_grad():
        for _ in range(warmup):
            fn()
        times = []
        cpu_start, wall_start = cpu_seconds(), time.perf_counter()
        for _ in range(runs):
            start = time.perf_counter()
            fn()
            times.append((time.perf_counter() - start) * 1e3)
        cores = (cpu_seconds() - cpu_start) / (time.perf_counter() - wall_start)
    return statistics.median(times), min(times), max(times), cores


def bench_model(path, warmup, runs):
    cfg = tm.GPT2_SMALL
    model = tm.GPT2(tm.read_weights(path), cfg["heads"]).eval()
    ids = torch.tensor([[(t * 7919 + 13) % cfg["vocab"] for t in range(cfg["T"])]], dtype=torch.int64)
    ms, lo, hi, cores = time_calls(lambda: model(ids), warmup, runs)
    print(f"model {ms:.1f} ms median of {runs} (min {lo:.1f}, max {hi:.1f}) after {warmup} warm-up  (CPU/wall {cores:.2f})")


def bench_generate(path, runs, prompt=32, made=64):
    cfg = tm.GPT2_SMALL
    model = tm.GPT2(tm.read_weights(path), cfg["heads"]).eval()
    ids = torch.tensor([[(t * 7919 + 13) % cfg["vocab"] for t in range(prompt)]], dtype=torch.int64)
    source = torch.ones(64 << 20)  # 256 MB of float32, every page touched before timing
    copy = torch.empty_like(source)
    with torch.no_grad():
        for _ in range(runs):
            start = time.perf_counter()
            logits, past = model.step(ids, None)
            made_ids = [int(logits[0, -1].argmax())]
            prefill = (time.perf_counter() - start) * 1e3
            steps = []
            while len(made_ids) < made:
                start = time.perf_counter()
                logits, past = model.step(torch.tensor([[made_ids[-1]]]), past)
                made_ids.append(int(logits[0, -1].argmax()))
                steps.append((time.perf_counter() - start) * 1e3)
            copies = []
            for _ in range(3):
                start = time.perf_counter()
                copy.copy_(source)
                copies.append(time.perf_counter() - start)
            print(json.dumps({"prefill_ms": prefill, "decode_ms": sum(steps) / len(steps), "decode_median_ms": statistics.median(steps),
                              "ids": made_ids, "copy_gbps": 2 * source.numel() * 4 / min(copies) / 1e9}), flush=True)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--model", help="time the GPT-2-small-shaped model of this safetensors file instead")
    ap.add_argument("--generate", help="time greedy generation with the KV cache on this GPT-2-small-shaped model instead")
    ap.add_argument("--runs", type=int, default=3)
    ap.add_argument("--warmup", type=int, default=1)
    args = ap.parse_args()
    torch.set_num_threads(1)
    torch.manual_seed(0)
    print(f"torch {torch.__version__}, threads {torch.get_num_threads()}, {blas_library()}")
    if args.model:
        bench_model(args.model, args.warmup, args.runs)
        return
    if args.generate:
        bench_generate(args.generate, args.runs)
        return
    for name, T, d, heads in SIZES:
        for causal in (False, True):
            mha = torch.nn.MultiheadAttention(d, heads, bias=True, batch_first=True).eval()
            x = torch.randn(1, T, d)
            mask = torch.triu(torch.ones(T, T, dtype=torch.bool), 1) if causal else None
            runs = 200 if name == "S" else 30 if name == "M" else 20
            ms, _, _, cores = time_calls(
                lambda: mha(x, x, x, attn_mask=mask, need_weights=True, average_attn_weights=False), 5, runs)
            flops = 8 * T * d * d + 4 * T * T * d
            print(f"{name} {'causal' if causal else 'full  '} {ms:9.3f} ms  {flops / ms / 1e6:6.1f} GFLOP/s"
                  f"  (CPU/wall {cores:.2f})")


if __name__ == "__main__":
    main()
