"""Corpus driver (kx's code): RobertCsordas/moe_attention's Triton "CVMM" kernels (layers/cvmm.py:
cvmm_prepare_sel2 (sort the flattened expert choices), cvmm -> CVMM (an autograd Function):
cvmm_kernel (autotuned over 10 tile configs keyed on M / N / K / dtype flags: each row block
loops over the experts its sorted rows select, rows gathered through an index, the output
scattered through out_index) and cvmm_backward_kernel3 (the per-expert weight gradient, split
over K with atomic adds, reset_to_zero on the output), the row-weighted reduction over the top-k
experts done with a batched matmul) as the sigma-MoE feed-forward layer (layers/moe_layer.py)
runs them: 16 experts of size 256 on d 1024, top-4 sigmoid gating, 8 x 512 tokens, keys then
ReLU then values with the gate as reduction weight, forward + backward, first in fp32 then
under fp16 autocast (the path the repo trains with), vs a per-token loop-free PyTorch reference
(gathered expert weights) in fp32."""

import _corpus12_support as S
import torch

S.bare_package("layers")  # not its __init__ (the whole transformer framework)
from layers.cvmm import cvmm, cvmm_prepare_sel2  # noqa: E402

torch.manual_seed(0)
dev = "cuda"
B, T, D, E, ESIZE, K = S.pick((8, 512, 1024, 16, 256, 4), (2, 16, 32, 4, 16, 2))


def sigma_moe(x, sel_w, keys, values):
    sel = torch.sigmoid(x @ sel_w)
    sel_val, sel_index = sel.topk(K, dim=-1, sorted=False)
    idx = cvmm_prepare_sel2(sel_index.int())
    scores = torch.relu(cvmm(x, idx, keys))  # (B, T, K, ESIZE)
    idx = idx.clone()
    idx.reduction_weight = sel_val
    idx.sel_index = idx.out_index
    idx.out_index = None
    return cvmm(scores, idx, values), sel_index


def reference(x, sel_index, sel_w, keys, values):
    sel_val = torch.sigmoid(x @ sel_w).gather(-1, sel_index)
    h = torch.relu(torch.einsum("btd,btkdf->btkf", x, keys[sel_index]))
    return torch.einsum("btkf,btkfd,btk->btd", h, values[sel_index], sel_val)


sel_w = (torch.randn(D, E, device=dev) / D**0.5).requires_grad_()
keys = (torch.randn(E, D, ESIZE, device=dev) / D**0.5).requires_grad_()
values = (torch.randn(E, ESIZE, D, device=dev) / ESIZE**0.5).requires_grad_()
for autocast in (False, True):
    x = torch.randn(B, T, D, device=dev, requires_grad=True)
    with torch.autocast("cuda", dtype=torch.float16, enabled=autocast):
        out, sel_index = sigma_moe(x, sel_w, keys, values)
    dy = torch.randn_like(out)
    params = [x, sel_w, keys, values]
    grads = torch.autograd.grad(out, params, dy)

    rp = [p.detach().requires_grad_() for p in params]
    ref = reference(rp[0], sel_index, *rp[1:])
    rgrads = torch.autograd.grad(ref, rp, dy.float())
    print(
        f"{B}x{T} d{D} E{E}x{ESIZE} top{K} fp16-autocast={autocast}",
        f"out rel err {S.rel_err(out, ref):.1e}",
        "grads " + " ".join(f"{S.rel_err(g, r):.1e}" for g, r in zip(grads, rgrads, strict=True)),
    )
torch.cuda.synchronize()
print("sigmamoe_cvmm ok")
