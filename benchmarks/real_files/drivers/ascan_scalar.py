"""Corpus driver (kx's code): proger/accelerated-scan's Triton scan (accelerated_scan/scalar.py:
forward_scan / backward_scan, chunked tl.associative_scan with enable_fp_fusion=False, inside the
Scan autograd Function) used as its README shows (`from accelerated_scan.scalar import scan`,
forget gates near 1, B x C x T contiguous) and as its tests/test_eq.py checks it: forward under
inference_mode and forward + backward of `.mean(-1).sum()`, for fp32, bf16 and fp16, at sequence
lengths below, at and above the 2048 block (one block, exact multiples, a ragged tail), compared
with accelerated_scan/ref.py's torch scan (`.item()` of the error on the host)."""

import torch
from accelerated_scan.ref import scan as scan_ref
from accelerated_scan.scalar import scan

torch.manual_seed(3407)
batch_size, dim = 2, 512
for dtype in (torch.float32, torch.bfloat16, torch.float16):
    for seqlen in (32, 2048, 8000, 16384):
        forget = (0.999 + 0.001 * torch.rand(batch_size, dim, seqlen, device="cuda")).to(dtype)
        inputs = torch.rand(batch_size, dim, seqlen, device="cuda").to(dtype)
        with torch.inference_mode():
            out = scan(forget, inputs)
        gates = forget.clone().requires_grad_()
        tokens = inputs.clone().requires_grad_()
        scan(gates, tokens).mean(dim=-1).sum().backward()
        if seqlen <= 2048:  # the reference is a tree of torch ops: short sequences only
            err = (out.float() - scan_ref(forget.float(), inputs.float())).abs().max().item()
            print(f"{dtype} T={seqlen}: max abs error {err:.3g}")
torch.cuda.synchronize()
print("accelerated-scan scalar ok", tuple(gates.grad.shape), gates.grad.dtype)
