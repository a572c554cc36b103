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
  export_onnx.py gpt2-past --weights DIR/gpt2-small.safetensors --out DIR/gpt2-small-past.onnx
      the same weights as a graph with past key/values (npm run bench:generate): ids (1, n), past_key.i,
      past_value.i (1, 12, P, 64) -> logits (1, n, 50257), present_key.i, present_value.i (1, 12, P + n, 64),
      n and P free (P = 0 for the prompt).
"""
import argparse
import os
import sys

try:
    import torch
except ImportError:
    sys.exit("export_onnx.py: PyTorch is missing: sudo apt-get install python3-torch")

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import torch_models as tm  # noqa: E402  (it puts tests/reference on the path)
import reference_model as rm  # noqa: E402

OPSET = 14


def export(model, example, path, inputs, outputs):
    tmp = path + ".partial"
    with torch.no_grad():
        torch.onnx.export(model, example, tmp, input_names=inputs, output_names=outputs, opset_version=OPSET,
                          do_constant_folding=True)
    os.replace(tmp, path)


def export_mha(args):
    tensors = tm.read_weights(args.weights)
    d = tensors["out_proj.weight"].shape[0]
    model = tm.AttentionWithWeights(tm.attention_layer(tensors, d, args.heads), args.T, args.causal).eval()
    export(model, (torch.zeros(1, args.T, d),), args.out, ["x"], ["y", "weights"])


def export_gpt2(args):
    cfg = tm.GPT2_SMALL
    weights = tm.gpt2_random_weights(seed=args.seed, **cfg)
    os.makedirs(args.out_dir, exist_ok=True)
    st = os.path.join(args.out_dir, "gpt2-small.safetensors")
    rm.write_safetensors(st + ".partial", weights, {"layout": "gpt2", "heads": cfg["heads"], "seed": args.seed,
                                                    "made_by": "cpp/bench/export_onnx.py gpt2"})
    os.replace(st + ".partial", st)
    model = tm.GPT2(weights, cfg["heads"]).eval()
    export(model, (torch.zeros(1, cfg["T"], dtype=torch.int64),), os.path.join(args.out_dir, "gpt2-small.onnx"),
           ["ids"], ["logits"])


def export_gpt2_past(args):
    cfg = tm.GPT2_SMALL
    model = tm.GPT2WithPast(tm.GPT2(tm.read_weights(args.weights), cfg["heads"])).eval()
    layers, D = model.gpt2.layers, cfg["d_model"] // cfg["heads"]
    past = [torch.zeros(1, cfg["heads"], 3, D) for _ in range(2 * layers)]  # P = 3, n = 2: neither is baked in
    names = [f"{kind}.{i}" for i in range(layers) for kind in ("key", "value")]
    inputs, outputs = ["ids"] + [f"past_{n}" for n in names], ["logits"] + [f"present_{n}" for n in names]
    axes = {"ids": {1: "n"}, "logits": {1: "n"}, **{f"past_{n}": {2: "past"} for n in names},
            **{f"present_{n}": {2: "total"} for n in names}}
    tmp = args.out + ".partial"
    with torch.no_grad():
        torch.onnx.export(model, (torch.zeros(1, 2, dtype=torch.int64), *past), tmp, input_names=inputs,
                          output_names=outputs, dynamic_axes=axes, opset_version=OPSET, do_constant_folding=True)
    os.replace(tmp, args.out)


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
    gp = sub.add_parser("gpt2-past")
    gp.add_argument("--weights", required=True)
    gp.add_argument("--out", required=True)
    args = ap.parse_args()
    torch.set_num_threads(1)
    {"mha": export_mha, "gpt2": export_gpt2, "gpt2-past": export_gpt2_past}[args.what](args)


if __name__ == "__main__":
    main()
