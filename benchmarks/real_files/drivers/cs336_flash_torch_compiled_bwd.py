"""Corpus driver (kx's code): a CS336 student's PyTorch FlashAttention-2 (mocibb/cs336,
assignment2-systems/cs336_systems/flash_attention_torch.py: FlashAttentionTorch, an
autograd.Function whose forward is an eager 16 x 16 tiled online-softmax loop and whose backward
is torch.compile(flash_backward), the recompute-P backward written with einops.einsum) used as the
assignment's part (a) asks: forward, backward through the compiled function at two sequence
lengths (a recompile on the new shape), and the compiled backward alone called again on saved
tensors; outputs and gradients checked against PyTorch softmax attention."""

import _corpus16_support as S
import torch

S.install_einops_standin()
from flash_attention_torch import FlashAttentionTorch, compiled_backward  # noqa: E402

torch.manual_seed(0)
dev = "cuda"
BATCH, D = S.pick((8, 64), (2, 16))
LENGTHS = S.pick((256, 384), (32, 48))
tol = S.pick(1e-2, 1e-4)

for N in LENGTHS:
    q, k, v = (torch.randn(BATCH, N, D, device=dev, requires_grad=True) for _ in range(3))
    o = FlashAttentionTorch.apply(q, k, v, False)
    do = torch.randn_like(o)
    got = (o,) + torch.autograd.grad(o, (q, k, v), do)
    o_ref = S.attention_reference(q, k, v, causal=False)
    want = (o_ref,) + torch.autograd.grad(o_ref, (q, k, v), do)
    errs = [S.rel_err(a, b) for a, b in zip(got, want)]
    print(f"N {N}: rel err o / dq / dk / dv " + " ".join(f"{e:.1e}" for e in errs))
    assert max(errs) < tol, errs

# The compiled backward on its own with a causal mask (the forward above is non-causal only):
# L is the causal log-sum-exp, O the causal output.
N = LENGTHS[0]
q, k, v, do = (torch.randn(BATCH, N, D, device=dev) for _ in range(4))
s = (q @ k.transpose(1, 2)) / D**0.5
s = s.masked_fill(torch.ones(N, N, dtype=torch.bool, device=dev).triu(1), float("-inf"))
L = torch.logsumexp(s, -1)
o = torch.softmax(s, -1) @ v
dq, dk, dv, _ = compiled_backward(q, k, v, o, L, do, True)
qr, kr, vr = (t.clone().requires_grad_(True) for t in (q, k, v))
want = torch.autograd.grad(S.attention_reference(qr, kr, vr, causal=True), (qr, kr, vr), do)
errs = [S.rel_err(a, b) for a, b in zip((dq, dk, dv), want)]
print(f"compiled causal backward N {N}: rel err dq / dk / dv " + " ".join(f"{e:.1e}" for e in errs))
assert max(errs) < tol, errs

torch.cuda.synchronize()
print("cs336_flash_torch_compiled_bwd ok")
