"""Corpus driver (kx's code): ai-compiler-study/triton-kernels' individual Triton kernels for Flux /
SD3 (triton_kernels/kernels: layer_norm_modulation (LayerNorm without affine then x * (1 + scale)
+ shift, one row per program), rms_norm (an autograd.Function with a Triton forward and backward,
the scale gradient summed on the host side), apply_rope (Flux's 2 x 2 rotation-matrix RoPE, one
(batch-head, token) per program, block size and warps from calculate_settings), linear (tiled GEMM
with fused bias + tanh-GELU), scaled_dot_product_attention (autotuned flash-attention forward)),
each against the repository's PyTorch versions (triton_kernels/functional: the eager function and
its @torch.compile twin, so Inductor compiles those too) at Flux-dev shapes in bf16: 4096 image +
512 text tokens, hidden 3072, 24 heads of 128, MLP 12288; then a ragged 1000-token batch of 2 for
the row kernels; rms_norm forward + backward."""

import _corpus13_support as S
import torch
import torch.nn.functional as F
import triton_kernels as tk
from triton_kernels.flux.layers import EmbedND

torch.manual_seed(0)
dev, dt = "cuda", torch.bfloat16
HID, HEADS, MLP = S.pick((3072, 24, 12288), (256, 4, 512))
TOKENS = S.pick([(1, 4608), (2, 1000)], [(1, 128), (2, 37)])
HD = HID // HEADS


def report(name, got, *refs):
    print(f"  {name}: " + ", ".join(f"{S.rel_err(got, r):.1e}" for r in refs))


for b, n in TOKENS:
    print(f"batch {b} x {n} tokens (vs eager, vs torch.compile):")
    x = torch.randn(b, n, HID, device=dev, dtype=dt)
    scale, shift = (
        0.1 * torch.randn(b, 1, HID, device=dev, dtype=dt),
        0.1 * torch.randn(b, 1, HID, device=dev, dtype=dt),
    )
    report(
        "layer_norm_modulation",
        tk.layer_norm_modulation(x, scale, shift),
        tk.layer_norm_modulation_torch(x.float(), scale.float(), shift.float()),
        tk.layer_norm_modulation_torch_compile(x, scale, shift),
    )

    q = torch.randn(b, HEADS, n, HD, device=dev, dtype=dt, requires_grad=True)
    w = (1 + 0.1 * torch.randn(HD, device=dev, dtype=dt)).requires_grad_()
    y = tk.rms_norm(q, w)
    q_ref, w_ref = q.detach().float().requires_grad_(), w.detach().float().requires_grad_()
    y_ref = tk.rms_norm_torch(q_ref, w_ref)
    report("rms_norm", y, y_ref, tk.rms_norm_torch_compile(q, w))
    g = torch.randn_like(y_ref)
    dq, dw = torch.autograd.grad(y, (q, w), g.to(dt))
    dq_ref, dw_ref = torch.autograd.grad(y_ref, (q_ref, w_ref), g)
    report("rms_norm dq", dq, dq_ref)
    report("rms_norm dscale", dw, dw_ref)

    txt = n // 9  # text tokens first (position 0), then an image grid, any rest at 0
    side = int((n - txt) ** 0.5)
    ids = torch.zeros(b, n, 3, device=dev)
    ids[:, txt : txt + side * side, 1] = torch.arange(side, device=dev).repeat_interleave(side).float()
    ids[:, txt : txt + side * side, 2] = torch.arange(side, device=dev).repeat(side).float()
    pe = EmbedND(HD, 10000, [HD // 8, HD * 7 // 16, HD * 7 // 16])(ids)
    qq, kk = q.detach(), torch.randn_like(q.detach())
    rq, rk = tk.apply_rope(qq, kk, pe)
    eq, ek = tk.apply_rope_torch(qq.float(), kk.float(), pe)
    cq, ck = tk.apply_rope_torch_compile(qq, kk, pe)
    report("apply_rope q", rq, eq, cq)
    report("apply_rope k", rk, ek, ck)

    w1 = torch.randn(MLP, HID, device=dev, dtype=dt) / HID**0.5
    b1 = 0.1 * torch.randn(MLP, device=dev, dtype=dt)
    report(
        "linear + gelu",
        tk.linear(x, w1, b1, activation="GELU"),
        F.gelu(F.linear(x.float(), w1.float(), b1.float()), approximate="tanh"),
    )

    if n % 128 == 0:
        k_, v_ = torch.randn_like(qq), torch.randn_like(qq)
        report(
            "attention",
            tk.scaled_dot_product_attention(qq, k_, v_),
            F.scaled_dot_product_attention(qq.float(), k_.float(), v_.float()),
        )
torch.cuda.synchronize()
print("aics_flux_kernels ok")
