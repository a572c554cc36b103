#!/usr/bin/env python3
"""The same workload in PyTorch, one thread, for the native comparison in the README.

nn.MultiheadAttention forward with the per-head weights materialised (need_weights=True,
average_attn_weights=False), bias on every projection, batch 1, float32.
Run: /usr/bin/python3 cpp/bench/bench_pytorch.py   (needs Debian's python3-torch)

One thread means one: torch.set_num_threads(1) limits ATen, but OpenBLAS's pthread build starts
its own threads, so without OPENBLAS_NUM_THREADS=1 its GEMMs ran on both cores (CPU time 1.7x the
wall time at L). The script sets it before torch loads and prints CPU time / wall time per row.
"""
import os

for _var in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ[_var] = "1"

import resource  # noqa: E402
import statistics  # noqa: E402
import time  # noqa: E402

import torch  # noqa: E402


def cpu_seconds():
    usage = resource.getrusage(resource.RUSAGE_SELF)
    return usage.ru_utime + usage.ru_stime

SIZES = [("S", 8, 64, 4), ("M", 128, 768, 12), ("L", 512, 768, 12)]


def main():
    torch.set_num_threads(1)
    torch.manual_seed(0)
    print(f"torch {torch.__version__}, threads {torch.get_num_threads()}, {torch.__config__.parallel_info().splitlines()[0]}")
    for name, T, d, heads in SIZES:
        for causal in (False, True):
            mha = torch.nn.MultiheadAttention(d, heads, bias=True, batch_first=True).eval()
            x = torch.randn(1, T, d)
            mask = torch.triu(torch.ones(T, T, dtype=torch.bool), 1) if causal else None
            runs = 200 if name == "S" else 30 if name == "M" else 20
            with torch.no_grad():
                for _ in range(5):
                    mha(x, x, x, attn_mask=mask, need_weights=True, average_attn_weights=False)
                times = []
                cpu_start, wall_start = cpu_seconds(), time.perf_counter()
                for _ in range(runs):
                    start = time.perf_counter()
                    mha(x, x, x, attn_mask=mask, need_weights=True, average_attn_weights=False)
                    times.append((time.perf_counter() - start) * 1e3)
                cores = (cpu_seconds() - cpu_start) / (time.perf_counter() - wall_start)
            ms = statistics.median(times)
            flops = 8 * T * d * d + 4 * T * T * d
            print(f"{name} {'causal' if causal else 'full  '} {ms:9.3f} ms  {flops / ms / 1e6:6.1f} GFLOP/s"
                  f"  (CPU/wall {cores:.2f})")


if __name__ == "__main__":
    main()
