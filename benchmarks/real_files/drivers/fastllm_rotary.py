"""Corpus driver (kx's code): ServiceNow/Fast-LLM's rotary embeddings in Triton
(fast_llm/functional/triton/rotary.py: triton_rotary_ / triton_rotary_autograd_, one in-place
kernel over (batch * sequence, head blocks) that rotates the two halves of each head by
precomputed cos / sin tables, its backward the same kernel with the rotation reversed; with
is_key_value only the key half of a fused key-value tensor is rotated) as an attention layer
applies it: bf16 queries of 4 x 4096 tokens x 32 heads x 128 and a fused key-value tensor
(8 kv heads each), forward in place, then forward + backward through the autograd wrapper on a
non-contiguous (transposed) input, compared with a rotate-half reference in fp32."""

import _corpus10_support as S
import torch
from fast_llm.functional.triton.rotary import triton_rotary_, triton_rotary_autograd_

torch.manual_seed(0)
dev, dt = "cuda", torch.bfloat16
B, N, H, KV, D = S.pick((4, 4096, 32, 8, 128), (2, 12, 4, 2, 16))
R = D // 2


def tables(n, theta=500000.0):
    inv = theta ** (-torch.arange(R, device=dev, dtype=torch.float64) / R)
    ang = torch.arange(n, device=dev, dtype=torch.float64)[:, None] * inv[None, :]
    return torch.cat([ang.cos(), ang.sin()], -1).float().contiguous()  # (n, 2 * R): cos | sin


def reference(x, freqs):
    cos, sin = freqs[:, None, :R], freqs[:, None, R:]
    re, im = x.float()[..., :R], x.float()[..., R:]
    return torch.cat([re * cos - im * sin, im * cos + re * sin], -1)


freqs = tables(N)
q = torch.randn(B, N, H, D, device=dev, dtype=dt)
want = reference(q, freqs)
got = triton_rotary_(q.clone(), freqs)
print("query in place", tuple(q.shape), f"rel err {S.rel_err(got, want):.1e}")

kv = torch.randn(B, N, 2 * KV, D, device=dev, dtype=dt)
got = triton_rotary_(kv.clone(), freqs, is_key_value=True, inplace=False)
k_want = reference(kv[:, :, :KV], freqs)
print(
    "fused key-value", tuple(kv.shape),
    f"key rel err {S.rel_err(got[:, :, :KV], k_want):.1e}",
    f"value unchanged {torch.equal(got[:, :, KV:], kv[:, :, KV:])}",
)

# autograd: a (B, H, N, D) projection transposed to (B, N, H, D) (stride(-1) == 1, not contiguous)
x = torch.randn(B, H, N, D, device=dev, dtype=dt, requires_grad=True)
y = triton_rotary_autograd_(x.mul(1.0).transpose(1, 2), freqs)  # rotated in place: not the leaf
g = torch.randn_like(y)
(y.float() * g.float()).sum().backward()
x_ref = x.detach().clone().requires_grad_()
y_ref = reference(x_ref.transpose(1, 2), freqs)
(y_ref * g.float()).sum().backward()
print("autograd", f"out rel err {S.rel_err(y, y_ref):.1e}", f"grad rel err {S.rel_err(x.grad, x_ref.grad):.1e}")
torch.cuda.synchronize()
print("fast-llm rotary ok")
