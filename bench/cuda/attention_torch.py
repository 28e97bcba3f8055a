# PyTorch peer for cuda_attention_bench: scaled_dot_product_attention, causal, at the
# transformer block's shape (B=8, H=12, T=1024, head dim 64), forward only, in bf16 (the
# flash backend) and fp32; CUDA events, median of 20 after 5 warm-ups.
import statistics
import sys

import torch
import torch.nn.functional as F

B, H, T, D = (int(a) for a in sys.argv[1:5]) if len(sys.argv) >= 5 else (8, 12, 1024, 64)
g = torch.Generator(device="cuda").manual_seed(0)


def timed(label, dtype):
    q, k, v = (torch.rand(B, H, T, D, device="cuda", generator=g, dtype=torch.float32).mul(2).sub(1).to(dtype) for _ in range(3))
    for _ in range(5):
        F.scaled_dot_product_attention(q, k, v, is_causal=True)
    torch.cuda.synchronize()
    ts = []
    for _ in range(20):
        a, b = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        a.record()
        F.scaled_dot_product_attention(q, k, v, is_causal=True)
        b.record()
        b.synchronize()
        ts.append(a.elapsed_time(b))
    ms = statistics.median(ts)
    print(f"| PyTorch {torch.__version__} SDPA {label} | {ms:.3f} | {4 * B * H * T * T * D / 2 / ms / 1e9:.1f} |")


print("| peer | ms (median of 20) | TFLOP/s (causal, useful flops) |\n|---|---|---|")
timed("bf16 causal", torch.bfloat16)
torch.backends.cuda.matmul.allow_tf32 = False
timed("fp32 causal", torch.float32)
