#!/usr/bin/env python3
"""PyTorch's own latency on the GPU for the models tests/onnx/torch/export_models.py exports (the peer of
`onnx_models_bench --backend cuda` in scripts/gpu-check.sh): the same classes, seeds and inputs, eval mode,
torch.no_grad, CUDA-synchronised wall time per forward, median (p10, p90) of N runs, as JSON on stdout.

  python3 bench/onnx/torch_models_cuda.py [--runs 200] [--warmup 20]
"""
import argparse
import json
import os
import sys
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "tests", "onnx", "torch"))
import torch  # noqa: E402
from export_models import CASES  # noqa: E402


def main():
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--runs", type=int, default=200)
    ap.add_argument("--warmup", type=int, default=20)
    args = ap.parse_args()
    if not torch.cuda.is_available():
        sys.exit("torch_models_cuda: torch sees no CUDA device")
    dev = torch.device("cuda")
    result = {}
    for name, (cls, seed, make_inputs, _, _, _) in sorted(CASES.items()):
        torch.manual_seed(seed)
        model = cls().eval().to(dev)
        inputs = tuple(t.to(dev) for t in make_inputs(torch.Generator().manual_seed(1000 + seed)))
        with torch.no_grad():
            for _ in range(args.warmup):
                model(*inputs)
            torch.cuda.synchronize()
            us = []
            for _ in range(args.runs):
                t0 = time.perf_counter()
                model(*inputs)
                torch.cuda.synchronize()
                us.append((time.perf_counter() - t0) * 1e6)
        us.sort()
        q = lambda f: round(us[min(len(us) - 1, int(f * len(us)))], 1)  # noqa: E731
        result[name] = {"median_us": q(0.5), "p10_us": q(0.1), "p90_us": q(0.9)}
    print(json.dumps({"torch": torch.__version__, "device": torch.cuda.get_device_name(0), "models": result}, indent=1))


if __name__ == "__main__":
    main()
