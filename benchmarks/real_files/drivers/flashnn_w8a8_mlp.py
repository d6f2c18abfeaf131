"""Corpus driver (kx's code): AlibabaPAI/FLASHNN's Triton W8A8 path (flashnn/quant_gemm.py and
flashnn/norm.py modules over flashnn/triton_kernels: RMSNormDquant -> rmsnorm_dquant (RMS norm
fused with per-token int8 quantisation, scale per row), DynamicQuantize -> dynamic_quant
(per-token absmax int8), GemmA8W8 -> gemm_a8w8 (int8 x int8 GEMM with int32 accumulation and the
row x column scales applied in the epilogue, fp16 out)) as a SmoothQuant-style Llama MLP runs
them: the hidden state normed + quantised, gate and up projections (d 4096 -> 11008, per-channel
int8 weights), SiLU-gate in fp16, the product re-quantised dynamically, the down projection;
prefill of 2048 tokens then a decode batch of 16 tokens, vs the same quantised arithmetic
(int8 values, fp32 matmuls) and vs the unquantised fp32 MLP."""

import _corpus12_support as S
import torch

S.install_loguru_standin()
S.bare_package("flashnn")  # not its __init__ (imports every module's kernels)
from flashnn.norm import RMSNormDquant  # noqa: E402
from flashnn.quant_gemm import DynamicQuantize, GemmA8W8  # noqa: E402

torch.manual_seed(0)
dev, dt = "cuda", torch.float16
D, FF = S.pick((4096, 11008), (64, 96))
TOKENS = S.pick((2048, 16), (24, 3))


def quantize_weight(w):  # per output channel symmetric int8
    scale = w.abs().amax(1).float() / 127.0
    return torch.round(w.float() / scale[:, None]).clamp(-127, 127).to(torch.int8), scale.to(dt)


w_gate, w_up = (torch.randn(FF, D, device=dev) / D**0.5 for _ in range(2))
w_down = torch.randn(D, FF, device=dev) / FF**0.5
(qg, sg), (qu, su), (qd, sd) = quantize_weight(w_gate), quantize_weight(w_up), quantize_weight(w_down)
norm = RMSNormDquant(D).to(dev, dt)
with torch.no_grad():
    norm.weight.uniform_(0.5, 1.5)
dq, gemm = DynamicQuantize(), GemmA8W8(out_ty=dt)


def mlp_triton(x):
    xq, xs = norm(x)
    g = gemm(xq, qg, xs, sg)
    u = gemm(xq, qu, xs, su)
    hq, hs = dq(torch.nn.functional.silu(g) * u)
    return gemm(hq, qd, hs, sd), (xq, xs)


def mlp_quant_reference(xq, xs):  # the same int8 operands, fp32 arithmetic
    g = (xq.float() @ qg.float().t()) * xs.float()[:, None] * sg.float()
    u = (xq.float() @ qu.float().t()) * xs.float()[:, None] * su.float()
    h = (torch.nn.functional.silu(g) * u).to(dt).float()
    hs = h.abs().amax(1) / 127.0
    hq = torch.round(h / hs[:, None])
    return (hq @ qd.float().t()) * hs[:, None] * sd.float()


def mlp_fp32(x):
    xn = x.float() * torch.rsqrt(x.float().pow(2).mean(-1, keepdim=True) + norm.eps) * norm.weight.float()
    return (torch.nn.functional.silu(xn @ w_gate.t()) * (xn @ w_up.t())) @ w_down.t()


for m in TOKENS:
    x = torch.randn(m, D, device=dev, dtype=dt)
    y, (xq, xs) = mlp_triton(x)
    print(
        f"{m} tokens d{D} ff{FF}",
        f"vs quantised ref rel err {S.rel_err(y, mlp_quant_reference(xq, xs)):.1e}",
        f"vs fp32 MLP {S.rel_err(y, mlp_fp32(x)):.1e}",
    )
torch.cuda.synchronize()
print("flashnn_w8a8_mlp ok")
