"""Corpus driver (kx's code): latkins/trifast's fused triangle self-attention in Triton
(src/trifast/triton.py: the _fwd kernel (flash-attention over the k axis of a pair representation,
o[i, j] = softmax_k(q[i, j] . k[i, k] + bias[j, k], masked) v[i, k], with the log-sum-exp kept for
backward) and the _bwd_q / _bwd_kv / _bwd_b kernels, each under trifast's own Autotuner subclass
(src/trifast/autotune.py: triton's Autotuner with its choices persisted to a JSON file per kernel,
device name and capability); src/trifast/torch.py wraps them as torch.library triton_ops
(wrap_triton launches) with a registered autograd formula) as an AlphaFold-style trunk uses it:
bf16 pair representations of 1 x 4 heads x 384 x 384 residues x 32, a padding mask (the last
residues of a shorter chain), forward + backward, compared with the repo's reference
(src/trifast/equiv.py: triangle_attention_simple) in fp32; then the "ending node" orientation
(inputs transposed over i, j and made contiguous) and a second sequence length (a new autotune key)."""

import _corpus10_support as S
import torch

S.install_trifast_env()
from trifast import triangle_attention  # noqa: E402
from trifast.equiv import triangle_attention_simple  # noqa: E402

torch.manual_seed(0)
dev, dt = "cuda", torch.bfloat16
H, D = S.pick((4, 32), (2, 16))
LENGTHS = S.pick((384, 256), (16, 24))


def inputs(n, pad):
    q, k, v = (torch.randn(1, H, n, n, D, device=dev).to(dt).requires_grad_() for _ in range(3))
    b = torch.randn(1, H, n, n, device=dev).to(dt).requires_grad_()
    mask = torch.zeros(1, n, n, device=dev, dtype=torch.bool)
    mask[:, :, n - pad :] = True  # keys of padding residues are masked out
    return [q, k, v, b], mask


def check(name, params, mask):
    out = triangle_attention(*params, mask)
    do = torch.randn_like(out)
    grads = torch.autograd.grad((out.float() * do.float()).sum(), params)
    ref_params = [p.detach().float().requires_grad_() for p in params]
    ref = triangle_attention_simple(*ref_params, mask)
    ref_grads = torch.autograd.grad((ref * do.float()).sum(), ref_params)
    print(
        name, tuple(out.shape), f"out rel err {S.rel_err(out, ref):.1e}",
        "grads q k v b " + " ".join(f"{S.rel_err(g, r):.1e}" for g, r in zip(grads, ref_grads, strict=True)),
    )


for n in LENGTHS:
    params, mask = inputs(n, pad=n // 8)
    check(f"starting node n={n}", params, mask)
    # ending node: attention along the other axis, as AlphaFold's trunk does it, on transposed copies
    t_params = [p.detach().transpose(2, 3).contiguous().requires_grad_() for p in params]
    check(f"ending node n={n}", t_params, mask)  # the same padding keys masked
torch.cuda.synchronize()
print("trifast triangle attention ok")
