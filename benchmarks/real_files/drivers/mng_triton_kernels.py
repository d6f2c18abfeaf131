"""Corpus driver (kx's code): KellerJordan/modded-nanogpt's Triton kernels (triton_kernels.py at
the 2026-03-07 record: XXT / XTX (A @ A^T and A^T @ A computing only the lower-triangular blocks
and mirroring them, block sizes chosen on the host from K == 768, batched 3-D operands),
ba_plus_cAA (beta * A + alpha * A @ A^T of a symmetric A), linear_relu_square_kernel (a persistent
kernel over host-made TensorDescriptors (TMA) with NUM_SMS from
torch.cuda.get_device_properties, tl.range(..., flatten=True), an accumulator split into two
halves with tl.reshape / tl.permute / tl.split, storing relu(x W^T)^2 and its pre-activation,
and a backward variant reading the pre-activation), FusedLinearReLUSquareFunction (the MLP's
autograd.Function), fused_softcapped_entropy_fwd / bwd kernels inside FusedSoftcappedCrossEntropy
(FP8 e4m3 lm-head logits through torch._scaled_mm, the 23 * sigmoid((z + 5) / 7.5) softcap,
multi-token-prediction weights, an FP8 e5m2 gradient, transpose_copy of FP8 operands for the
weight gradient), transpose_copy / transpose_add (tiled transposes)) called as train_gpt.py calls
them: the Polar Express orthogonalisation's XXT / XTX + ba_plus_cAA on GPT-small matrices (768 x
768 attention, 768 x 3072 and 3072 x 768 MLP, stacked 4 x 768 x 768), the MLP on one packed (1, 8192, 768)
sequence (hidden 3072), the loss on the 50304-token vocabulary with 1 and 3 prediction weights.
Each is compared with torch (fp32 for the Gram kernels, relative errors in bf16 / fp8)."""

import _corpus8_support as S
import torch
from triton_kernels import (
    XTX,
    XXT,
    FusedLinearReLUSquareFunction,
    FusedSoftcappedCrossEntropy,
    ba_plus_cAA,
    transpose_add,
    transpose_copy,
)

torch.manual_seed(0)
dev = "cuda"
torch.backends.cuda.matmul.allow_tf32 = False
D, HID, VOCAB, TOKENS = S.pick((768, 3072, 50304, 8192), (64, 96, 300, 40))


def rel(a, b):
    return ((a.float() - b.float()).abs().max() / b.float().abs().max().clamp(min=1e-6)).item()


# the Gram kernels of Polar Express (fp32 checks, then the bf16 shapes the optimizer uses)
for shape in S.pick(
    [(768, 3072), (3072, 768), (4, 768, 768), (500, 700)], [(24, 40), (40, 24), (2, 32, 32), (20, 28)]
):
    for dtype in (torch.float32, torch.bfloat16):
        X = torch.randn(*shape, device=dev, dtype=dtype) / shape[-1] ** 0.5
        tall = X.size(-2) > X.size(-1)
        n = X.size(-1) if tall else X.size(-2)
        A = torch.empty(*X.shape[:-2], n, n, device=dev, dtype=dtype)
        (XTX if tall else XXT)(X, out=A)
        want = X.mT @ X if tall else X @ X.mT
        B = torch.empty_like(A)
        ba_plus_cAA(A, alpha=0.5, beta=-1.5, out=B)
        want_b = -1.5 * want + 0.5 * want @ want.mT
        print(
            "gram",
            shape,
            dtype,
            "XTX" if tall else "XXT",
            f"rel err {rel(A, want):.1e} ba+cAA {rel(B, want_b):.1e}",
        )

# tiled transposes (bf16 and the fp8 operands of the lm-head weight gradient)
for dtype in (torch.bfloat16, torch.float8_e4m3fn):
    src = torch.randn(S.pick(8192, 70), D, device=dev).to(dtype)
    dst = torch.empty(D, src.shape[0], device=dev, dtype=dtype)
    transpose_copy(src, dst)
    print("transpose_copy", dtype, "exact" if torch.equal(dst.float(), src.float().T) else "MISMATCH")
acc = torch.randn(D, S.pick(3072, 50), device=dev)
src = torch.randn(acc.shape[1], D, device=dev)
want = acc + src.T
transpose_add(src, acc)
print("transpose_add", f"err {(acc - want).abs().max().item():.1e}")

# the fused ReLU^2 MLP, forward and backward, against torch
# one flattened (1, T, D) sequence of packed documents, the shape train_gpt.py feeds the MLP
x = (torch.randn(1, S.pick(8192, 40), D, device=dev) * 0.5).bfloat16().requires_grad_()
W1 = (torch.randn(HID, D, device=dev) / D**0.5).bfloat16().requires_grad_()
W2 = (torch.randn(HID, D, device=dev) / HID**0.5).bfloat16().requires_grad_()
out = FusedLinearReLUSquareFunction.apply(x, W1, W2)
g = torch.randn_like(out)
out.backward(g)
grads = [t.grad for t in (x, W1, W2)]
xr, W1r, W2r = (t.detach().float().requires_grad_() for t in (x, W1, W2))
ref = torch.relu(xr @ W1r.T).square() @ W2r
ref.backward(g.float())
print(
    "relu^2 mlp",
    f"out rel err {rel(out, ref):.1e}",
    "grads",
    " ".join(f"{rel(a, b.grad):.1e}" for a, b in zip(grads, (xr, W1r, W2r), strict=True)),
)

# the fused softcapped cross-entropy (fp8 lm head), 1 and 3 prediction weights
x_s, w_s, grad_s = 100 / 448, 1.6 / 448, 0.75 / 448
for mtp in ([1.0], [1.0, 0.5, 0.25]):
    h = torch.randn(TOKENS, D, device=dev).bfloat16().requires_grad_()
    w = (torch.randn(D, VOCAB, device=dev) * 0.02).bfloat16().requires_grad_()
    targets = torch.randint(0, VOCAB, (TOKENS,), device=dev)
    mtp_weights = torch.tensor(mtp, device=dev)
    losses = FusedSoftcappedCrossEntropy.apply(h, targets, mtp_weights, w, x_s, w_s, grad_s)
    losses.sum().backward()
    # reference: the same fp8-rounded operands, softcapped logits, weighted future targets
    hq = h.detach().div(x_s).to(torch.float8_e4m3fn).float() * x_s
    wq = w.detach().div(w_s).to(torch.float8_e4m3fn).float() * w_s
    z = 23 * torch.sigmoid((hq @ wq + 5) / 7.5)
    lse = torch.logsumexp(z, dim=-1)
    want = torch.zeros(TOKENS, device=dev)
    for k, wk in enumerate(mtp):
        rows = torch.arange(TOKENS - k, device=dev)
        want[: TOKENS - k] += wk * (lse[: TOKENS - k] - z[rows, targets[k:]])
    print(
        "softcapped ce",
        len(mtp),
        f"loss {losses.sum().item():.2f} rel err {rel(losses, want):.1e}",
        f"|dh| {h.grad.float().norm().item():.3f} |dw| {w.grad.float().norm().item():.3f}",
    )
torch.cuda.synchronize()
print("modded-nanogpt triton kernels ok")
