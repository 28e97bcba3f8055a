# PyTorch peer for cuda_transformer_bench: the same pre-norm block (RMSNorm, fused QKV,
# causal attention, output projection, SwiGLU 4x), B=8 T=1024 D=768 12 heads, forward +
# backward, timed with CUDA events (median of 20 after 5 warm-ups) in fp32 (TF32 off),
# fp32 with use_deterministic_algorithms, TF32, and bf16 autocast.
import os
import statistics
import torch
import torch.nn.functional as F

os.environ.setdefault("CUBLAS_WORKSPACE_CONFIG", ":4096:8")
B, T, D, H = 8, 1024, 768, 12
FF = 4 * D
dev = "cuda"
g = torch.Generator(device=dev).manual_seed(0)


def p(*shape, scale=1.0):
    return ((torch.rand(*shape, device=dev, generator=g) * 2 - 1) * scale).requires_grad_()


x = p(B, T, D)
dy = torch.rand(B, T, D, device=dev, generator=g) * 2 - 1
g1, g2 = p(D, scale=0.1), p(D, scale=0.1)
wqkv, wo = p(D, 3 * D, scale=D ** -0.5), p(D, D, scale=D ** -0.5)
wg, wu, wd = p(D, FF, scale=D ** -0.5), p(D, FF, scale=D ** -0.5), p(FF, D, scale=FF ** -0.5)
params = [x, g1, g2, wqkv, wo, wg, wu, wd]


def rms(v, w):
    return v * torch.rsqrt(v.pow(2).mean(-1, keepdim=True) + 1e-6) * (1 + w)


def block():
    h = rms(x, g1)
    q, k, v = (h @ wqkv).view(B, T, 3, H, D // H).permute(2, 0, 3, 1, 4)
    o = F.scaled_dot_product_attention(q, k, v, is_causal=True).transpose(1, 2).reshape(B, T, D)
    x2 = x + o @ wo
    h2 = rms(x2, g2)
    y = x2 + (F.silu(h2 @ wg) * (h2 @ wu)) @ wd
    for t in params:
        t.grad = None
    y.backward(dy)
    return y


def timed(label):
    for _ in range(5):
        block()
    torch.cuda.synchronize()
    ts = []
    for _ in range(20):
        a, b = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        a.record()
        block()
        b.record()
        b.synchronize()
        ts.append(a.elapsed_time(b))
    print(f"| PyTorch {torch.__version__} {label} | {statistics.median(ts):.2f} |")


print("| peer | ms (median of 20) |\n|---|---|")
torch.backends.cuda.matmul.allow_tf32 = False
torch.backends.cudnn.allow_tf32 = False
timed("fp32 (TF32 off)")
torch.use_deterministic_algorithms(True)
timed("fp32, use_deterministic_algorithms")
torch.use_deterministic_algorithms(False)
torch.backends.cuda.matmul.allow_tf32 = True
timed("TF32")
with torch.autocast("cuda", dtype=torch.bfloat16):
    timed("bf16 autocast")
