"""Corpus driver (kx's code): Doraemonzzz/xopes' cross entropy and cumulative sum in Triton with
data-dependent host reads (xopes/ops/cross_entropy/ce_parallel_triton.py:
cross_entropy_parallel_triton, the vocabulary split over programs (_ce_fwd_parallel), a
reduction kernel (_ce_fwd_reduce) and the gradient kernel (_ce_bwd), the mean over non-ignored
labels taken from `y.ne(ignore_index).sum().item()` on the host; ce_triton.py:
cross_entropy_triton, the single-pass variant, likewise; xopes/ops/cumsum/cumsum/cumsum_triton.py:
cumsum_triton, forward and backward (reverse) cumsum kernels whose block size comes from
`torch.max(cu_seqlens[1:] - cu_seqlens[:-1]).item()` for packed variable-length rows) as an LM
training step uses them: bf16 logits of 8 x 1024 tokens over a 50,257-word vocabulary with the
prompt half of each sequence ignored (-100), label smoothing 0.1, mean and sum reductions, forward
+ backward; then a per-token score cumulated along packed sequences (3 rows of 8192 positions,
each row holding a different number of documents of random lengths), forward + backward, twice
with new lengths. Everything is compared with the repo's PyTorch versions (cross_entropy_torch,
cumsum_torch)."""

import _corpus9_support as S
import torch

S.bare_package("xopes.ops")
from xopes.ops.cross_entropy import (  # noqa: E402
    cross_entropy_parallel_triton,
    cross_entropy_torch,
    cross_entropy_triton,
)
from xopes.ops.cumsum.cumsum import cumsum_torch, cumsum_triton  # noqa: E402

torch.manual_seed(0)
dev = "cuda"
B, T, V = S.pick((8, 1024, 50257), (2, 8, 300))
IGN = -100

z = (torch.randn(B * T, V, device=dev) * 2).to(torch.bfloat16).requires_grad_()
y = torch.randint(0, V, (B, T), device=dev)
y[:, : T // 2] = IGN  # the prompt half of every sequence is not scored
y = y.flatten()

for name, fn in (("parallel", cross_entropy_parallel_triton), ("single pass", cross_entropy_triton)):
    for reduction in ("mean", "sum"):
        loss = fn(z if fn is cross_entropy_parallel_triton else z.clone(), y, ignore_index=IGN, reduction=reduction, label_smoothing=0.1)
        loss.backward()
        g = z.grad.clone()
        z.grad = None
        ref = cross_entropy_torch(z.float(), y, ignore_index=IGN, reduction=reduction, label_smoothing=0.1)
        ref.backward()
        g_ref = z.grad.clone()
        z.grad = None
        print(f"ce {name} {reduction}", f"loss {loss.item():.4f} ref {ref.item():.4f}", f"grad rel err {S.rel_err(g, g_ref):.1e}")

# packed variable-length cumsum: each row holds several documents, cu_seqlens marks their bounds
ROWS, N = S.pick((3, 8192), (2, 40))
for trial in range(2):
    n_docs = int(torch.randint(3, S.pick(24, 5), ()).item())
    cuts = torch.randperm(N - 1, device=dev)[: n_docs - 1].add(1).sort().values
    cu_seqlens = torch.cat([torch.tensor([0], device=dev), cuts, torch.tensor([N], device=dev)]).long()
    x = torch.randn(ROWS, N, device=dev, requires_grad=True)
    for reverse in (False, True):
        o = cumsum_triton(x, dim=-1, reverse=reverse, cu_seqlens=cu_seqlens)
        do = torch.randn_like(o)
        o.backward(do)
        g = x.grad.clone()
        x.grad = None
        o_ref = cumsum_torch(x, dim=-1, reverse=reverse, cu_seqlens=cu_seqlens)
        o_ref.backward(do)
        print(
            f"cumsum varlen trial {trial} reverse {reverse}: {n_docs} docs, longest {int((cu_seqlens[1:] - cu_seqlens[:-1]).max())}",
            f"o rel err {S.rel_err(o, o_ref):.1e} grad rel err {S.rel_err(g, x.grad):.1e}",
        )
        x.grad = None
torch.cuda.synchronize()
print("xopes cross entropy + varlen cumsum ok")
