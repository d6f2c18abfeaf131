"""Corpus driver (kx's code): apple/ml-cross-entropy's Cut Cross-Entropy (cut_cross_entropy/cce.py
over cce_lse_forward.py, indexed_dot.py and cce_backward.py) used as its README does:
`loss = linear_cross_entropy(embeddings, classifier, labels)` then `loss.backward()`, the logits
never materialised. A Llama-3-like head (8 x 1024 tokens, d 2048, vocab 128256, bf16) with
`shift=1` and ignored (-100) labels, then the options tests/test_cce_loss_backward.py sweeps on a
smaller head (vocab 32000): softcap 30 with bias, reduction 'none' / 'sum', return_lse (z-loss
as compute_z_loss does), the 'cce_exact' and 'cce_kahan_full_c' presets (fp32 accumulation,
no gradient filtering), fp16 and fp32 inputs, and shapes off the block multiples (4093 tokens,
vocab 31999, d 1000). Exercises: the Triton LSE forward (split over the vocabulary, atomic
locks), the indexed dot, the backward kernel with gradient filtering (filter_eps 'auto'),
Kahan-summed accumulation, heuristics-selected configs (CCE_AUTOTUNE unset, tl_autotune's
table keyed on the GPU's shared memory), backward to the embeddings, classifier and bias."""

import _corpus6_support as S
import torch
from cut_cross_entropy import linear_cross_entropy
from cut_cross_entropy.utils import compute_z_loss

torch.manual_seed(0)
dev = "cuda"

B, T, D, V = S.pick((8, 1024, 2048, 128256), (2, 48, 64, 500))
e = (torch.randn(B, T, D, device=dev, dtype=torch.bfloat16) * 0.5).requires_grad_()
c = (torch.randn(V, D, device=dev, dtype=torch.bfloat16) / D**0.5).requires_grad_()
labels = torch.randint(0, V, (B, T), device=dev)
labels[:, :7] = -100
loss = linear_cross_entropy(e, c, labels, shift=1)
loss.backward()
print("llama head", tuple(e.shape), V, round(loss.item(), 4), e.grad.abs().sum().item() > 0)

N, D2, V2 = S.pick((4096, 1024, 32000), (96, 32, 300))
for dtype in (torch.bfloat16, torch.float16, torch.float32):
    e = torch.randn(N, D2, device=dev, dtype=dtype).requires_grad_()
    c = (torch.randn(V2, D2, device=dev, dtype=dtype) / D2**0.5).requires_grad_()
    bias = (torch.randn(V2, device=dev, dtype=dtype) * 0.1).requires_grad_()
    t = torch.randint(0, V2, (N,), device=dev)
    t[::13] = -100
    for kw in (
        dict(softcap=30.0, bias=bias),
        dict(reduction="none"),
        dict(reduction="sum", impl="cce_exact"),
        dict(impl="cce_kahan_full_c", softcap=20.0),
    ):
        e.grad = c.grad = bias.grad = None
        out = linear_cross_entropy(e, c, t, **kw)
        (out.sum() / N if out.ndim else out).backward()
        print(dtype, sorted(k for k in kw if k != "bias"), tuple(out.shape), c.grad.dtype)
    e.grad = c.grad = None
    loss, lse = linear_cross_entropy(e, c, t, return_lse=True)
    (loss + compute_z_loss(lse, t)).backward()
    print(dtype, "z-loss", tuple(lse.shape))

N3, D3, V3 = S.pick((4093, 1000, 31999), (77, 40, 301))
e = torch.randn(N3, D3, device=dev, dtype=torch.bfloat16).requires_grad_()
c = (torch.randn(V3, D3, device=dev, dtype=torch.bfloat16) / D3**0.5).requires_grad_()
t = torch.randint(0, V3, (N3,), device=dev)
linear_cross_entropy(e, c, t).backward()
torch.cuda.synchronize()
print("cce linear cross entropy ok", tuple(e.grad.shape), tuple(c.grad.shape))
