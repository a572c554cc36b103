#!/usr/bin/python3
"""ONNX graphs for the onnxruntime-web column of the benchmarks, exported with torch.onnx (opset 14).
Needs Debian's python3-torch. The bench scripts run it when a graph is missing (into build/onnx/):

  export_onnx.py mha --weights W.safetensors --heads H --T T [--causal] --out mha.onnx
      the single layer of npm run bench: x (1, T, d) -> y (1, T, d), weights (1, heads, T, T), with
      the weights of a PyTorch-layout safetensors file that scripts/bench/weights.js wrote.
  export_onnx.py gpt2 --out-dir DIR [--seed N]
      the GPT-2-small-shaped model of npm run bench:model: ids (1, 128) int64 -> logits (1, 128, 50257),
      random weights, written as DIR/gpt2-small.onnx and, for our module, DIR/gpt2-small.safetensors
      (GPT-2 layout, heads in __metadata__).
"""
import argparse
import os
import sys

try:
    import torch
except ImportError:
    sys.exit("export_onnx.py: PyTorch is missing: sudo apt-get install python3-torch")

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import torch_models as tm  # noqa: E402

OPSET = 14


def export(model, example, path, inputs, outputs):
    tmp = path + ".partial"
    with torch.no_grad():
        torch.onnx.export(model, example, tmp, input_names=inputs, output_names=outputs, opset_version=OPSET,
                          do_constant_folding=True)
    os.replace(tmp, path)


def export_mha(args):
    tensors = tm.read_safetensors(args.weights)
    d = tensors["out_proj.weight"].shape[0]
    model = tm.AttentionWithWeights(tm.attention_layer(tensors, d, args.heads), args.T, args.causal).eval()
    export(model, (torch.zeros(1, args.T, d),), args.out, ["x"], ["y", "weights"])


def export_gpt2(args):
    cfg = tm.GPT2_SMALL
    weights = tm.gpt2_random_weights(seed=args.seed, **cfg)
    os.makedirs(args.out_dir, exist_ok=True)
    st = os.path.join(args.out_dir, "gpt2-small.safetensors")
    tm.write_safetensors(st + ".partial", weights, {"layout": "gpt2", "heads": cfg["heads"], "seed": args.seed,
                                                    "made_by": "cpp/bench/export_onnx.py gpt2"})
    os.replace(st + ".partial", st)
    model = tm.GPT2(weights, cfg["heads"], cfg["T"]).eval()
    export(model, (torch.zeros(1, cfg["T"], dtype=torch.int64),), os.path.join(args.out_dir, "gpt2-small.onnx"),
           ["ids"], ["logits"])


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = ap.add_subparsers(dest="what", required=True)
    m = sub.add_parser("mha")
    m.add_argument("--weights", required=True)
    m.add_argument("--heads", type=int, required=True)
    m.add_argument("--T", type=int, required=True)
    m.add_argument("--causal", action="store_true")
    m.add_argument("--out", required=True)
    g = sub.add_parser("gpt2")
    g.add_argument("--out-dir", required=True)
    g.add_argument("--seed", type=int, default=0)
    args = ap.parse_args()
    torch.set_num_threads(1)
    (export_mha if args.what == "mha" else export_gpt2)(args)


if __name__ == "__main__":
    main()
