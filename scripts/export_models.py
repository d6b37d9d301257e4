#!/usr/bin/python3
"""Exports the whole-network benchmark models (bench/run.sh e2e) as ONNX and TorchScript.

    /usr/bin/python3 scripts/export_models.py [OUT_DIR] [--only NAME,...] [--opset N]

Needs Debian's python3-torch 1.13.1 and python3-torchvision 0.14.1 (scripts/setup_bench.sh
installs them); run it with /usr/bin/python3: a pyenv python3 first on PATH does not see
Debian's packages. Nothing is downloaded: the models have random weights (weights=None) from a
fixed seed, so every export writes the same numbers. BatchNorm and LayerNorm scales and
shifts are drawn from the seed too, and BatchNorm running statistics are calibrated on random
batches (see calibrate): with the defaults, MobileNetV2's output does not depend on its input.

Writes to OUT_DIR (default build/models/), for each model NAME:
  NAME.onnx  ONNX, static shapes, batch 1, constant folding on (eval-mode export folds each
             BatchNormalization into the preceding Conv)
  NAME.pt    TorchScript (torch.jit.trace(...).save) for the LibTorch baseline
and models.json listing file names, input and output names and shapes. Models:
  resnet50     torchvision ResNet-50,   input [1,3,224,224] -> [1,1000]
  mobilenetv2  torchvision MobileNetV2, input [1,3,224,224] -> [1,1000]
  bert_base    a BERT-base encoder: 12 post-LN layers, hidden 768, 12 heads, FFN 3072, GELU via
               erf, seq 128; input the hidden states [1,128,768] (no embedding lookup: Gather
               of token ids is outside Tessera's op set) -> [1,128,768]. Attention is written
               with plain ops (Linear, reshape, transpose, matmul, softmax):
               nn.TransformerEncoderLayer fails to export in eval mode on torch 1.13.
  bert_base_s197  the same encoder at 197 tokens (ViT-B/16's count, a prime): input
               [1,197,768] -> [1,197,768]. Its dense layers' rows have no divisor but 1, so it
               checks kernels on a shape no default or search was sized on.
Every model has one input named "input" and one output named "output". At the default opset
17 LayerNorm is one LayerNormalization node; --opset 13..16 writes its decomposition
(ReduceMean, Sub, Pow, Sqrt, Div). Progress and timings go to stderr.
"""
import argparse
import json
import math
import os
import sys
import time

import torch
import torch.nn as nn
import torchvision

SEED = 0
DEFAULT_OPSET = 17  # ONNX 1.12 (libonnx-dev, python3-onnx) knows opsets up to 17


def log(msg):
    print(f"export_models: {msg}", file=sys.stderr, flush=True)


class SelfAttention(nn.Module):
    def __init__(self, hidden, heads):
        super().__init__()
        self.heads = heads
        self.head_dim = hidden // heads
        self.query = nn.Linear(hidden, hidden)
        self.key = nn.Linear(hidden, hidden)
        self.value = nn.Linear(hidden, hidden)
        self.out = nn.Linear(hidden, hidden)

    def split(self, x):  # [B, S, H] -> [B, heads, S, head_dim]
        b, s, _ = x.shape
        return x.reshape(b, s, self.heads, self.head_dim).transpose(1, 2)

    def forward(self, x):
        b, s, h = x.shape
        q = self.split(self.query(x))
        k = self.split(self.key(x))
        v = self.split(self.value(x))
        scores = torch.matmul(q, k.transpose(-1, -2)) / math.sqrt(self.head_dim)
        probs = torch.softmax(scores, dim=-1)
        ctx = torch.matmul(probs, v).transpose(1, 2).reshape(b, s, h)
        return self.out(ctx)


class EncoderLayer(nn.Module):
    """BERT's post-LayerNorm encoder layer (dropout omitted: eval mode)."""

    def __init__(self, hidden, heads, ffn):
        super().__init__()
        self.attention = SelfAttention(hidden, heads)
        self.norm1 = nn.LayerNorm(hidden, eps=1e-12)
        self.ffn_in = nn.Linear(hidden, ffn)
        self.act = nn.GELU()  # approximate='none': exported as Erf
        self.ffn_out = nn.Linear(ffn, hidden)
        self.norm2 = nn.LayerNorm(hidden, eps=1e-12)

    def forward(self, x):
        x = self.norm1(x + self.attention(x))
        return self.norm2(x + self.ffn_out(self.act(self.ffn_in(x))))


class BertEncoder(nn.Module):
    def __init__(self, layers=12, hidden=768, heads=12, ffn=3072):
        super().__init__()
        self.layers = nn.ModuleList(EncoderLayer(hidden, heads, ffn) for _ in range(layers))

    def forward(self, x):
        for layer in self.layers:
            x = layer(x)
        return x


def randomize_norms(model):
    """Draws BatchNorm/LayerNorm affine parameters from the seed.

    Their default init is the identity (scale 1, shift 0): folding BN into a conv would then
    be barely tested, and torch's exporter deduplicates the many identical tensors it leaves
    (all-zero conv biases, all-one LayerNorm scales) into Identity nodes, an op outside
    Tessera's set."""
    for m in model.modules():
        if isinstance(m, (nn.BatchNorm2d, nn.LayerNorm)):
            c = m.weight.shape[0]
            m.weight.data = torch.empty(c).uniform_(0.5, 1.5)
            m.bias.data = torch.randn(c) * 0.1
    return model


def calibrate(model, shape, batches=4, batch=8):
    """Sets each BatchNorm's running mean and variance to the statistics of its input on
    random data, as training would.

    With the default running stats (mean 0, var 1) and random weights, activations of
    MobileNetV2 fade to nothing within a few blocks, so its output does not depend on its input
    at all (two random inputs gave outputs 5e-8 apart), and ResNet-50's output is 98%
    constant: an error check against ONNX Runtime would then test almost nothing. Calibrated,
    every layer sees unit-scale activations, as in a trained network."""
    bns = [m for m in model.modules() if isinstance(m, nn.BatchNorm2d)]
    if not bns:
        return model
    for m in bns:
        m.reset_running_stats()
        m.momentum = None  # cumulative average over the calibration batches
    model.train()
    gen = torch.Generator().manual_seed(SEED + 2)
    with torch.no_grad():
        for _ in range(batches):
            model(torch.randn(batch, *shape[1:], generator=gen))
    model.eval()
    return model


def build(name):
    torch.manual_seed(SEED)
    if name == "resnet50":
        model, shape = torchvision.models.resnet50(weights=None), [1, 3, 224, 224]
    elif name == "mobilenetv2":
        model, shape = torchvision.models.mobilenet_v2(weights=None), [1, 3, 224, 224]
    elif name == "bert_base":
        model, shape = BertEncoder(), [1, 128, 768]
    elif name == "bert_base_s197":
        model, shape = BertEncoder(), [1, 197, 768]
    else:
        raise SystemExit(f"export_models: unknown model {name!r}")
    return randomize_norms(model), shape


MODELS = ["resnet50", "mobilenetv2", "bert_base", "bert_base_s197"]


def export(name, out_dir, opset):
    t0 = time.perf_counter()
    model, shape = build(name)
    calibrate(model, shape)
    model.eval()
    torch.manual_seed(SEED + 1)
    example = torch.randn(*shape)
    onnx_file, ts_file = f"{name}.onnx", f"{name}.pt"
    with torch.no_grad():
        out = model(example)
        t1 = time.perf_counter()
        torch.onnx.export(model, example, os.path.join(out_dir, onnx_file), opset_version=opset,
                          input_names=["input"], output_names=["output"],
                          do_constant_folding=True, export_params=True)
        t2 = time.perf_counter()
        traced = torch.jit.trace(model, example)
        traced.save(os.path.join(out_dir, ts_file))
        t3 = time.perf_counter()
    checked = ""
    try:
        import onnx  # python3-onnx; optional
        onnx.checker.check_model(os.path.join(out_dir, onnx_file))
        proto = onnx.load(os.path.join(out_dir, onnx_file))
        ops = sorted({n.op_type for n in proto.graph.node})
        checked = f", onnx.checker ok, {len(proto.graph.node)} nodes: {' '.join(ops)}"
        if "Identity" in ops:
            log(f"{name}: warning: the export holds Identity nodes")
    except ImportError:
        pass
    log(f"{name}: build+forward {t1 - t0:.1f} s, onnx {t2 - t1:.1f} s, torchscript "
        f"{t3 - t2:.1f} s{checked} "
        f"({os.path.getsize(os.path.join(out_dir, onnx_file)) / 2**20:.0f} MiB onnx)")
    return {
        "name": name,
        "onnx": onnx_file,
        "torchscript": ts_file,
        "opset": opset,
        "inputs": [{"name": "input", "shape": shape, "dtype": "float32"}],
        "outputs": [{"name": "output", "shape": list(out.shape), "dtype": "float32"}],
        "seed": SEED,
        "output_max_abs": float(out.abs().max()),
        "export_seconds": round(t3 - t0, 2),
    }


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("out_dir", nargs="?", default=None)
    ap.add_argument("--only", default=",".join(MODELS),
                    help="comma-separated subset of " + ",".join(MODELS))
    ap.add_argument("--opset", type=int, default=DEFAULT_OPSET, choices=range(13, 18))
    args = ap.parse_args()
    root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    out_dir = args.out_dir or os.path.join(root, "build", "models")
    os.makedirs(out_dir, exist_ok=True)
    names = [n for n in args.only.split(",") if n]
    for n in names:
        if n not in MODELS:
            raise SystemExit(f"export_models: unknown model {n!r} (known: {', '.join(MODELS)})")
    log(f"torch {torch.__version__}, torchvision {torchvision.__version__}, opset {args.opset},"
        f" writing to {out_dir}")
    torch.set_grad_enabled(False)

    manifest_path = os.path.join(out_dir, "models.json")
    entries = {}
    if os.path.exists(manifest_path):  # keep the entries of models not exported this time
        with open(manifest_path) as f:
            entries = {m["name"]: m for m in json.load(f).get("models", [])}
    start = time.perf_counter()
    for n in names:
        log(f"{n}: exporting")
        entries[n] = export(n, out_dir, args.opset)
    manifest = {"torch": torch.__version__, "torchvision": torchvision.__version__,
                "models": [entries[n] for n in MODELS if n in entries]}
    tmp = manifest_path + ".tmp"
    with open(tmp, "w") as f:
        json.dump(manifest, f, indent=2)
        f.write("\n")
    os.replace(tmp, manifest_path)
    log(f"done in {time.perf_counter() - start:.1f} s: {manifest_path}")


if __name__ == "__main__":
    main()
