"""Corpus driver (kx's code): kakaobrain/trident's Triton RMS norm (trident/kernel/rms_norm.py:
RMSNorm.forward / backward / backward_weight_bias through trident.RMSNorm -> operation.RMSNorm:
autotuned row kernels keyed on the row length, the rms computed over the first p * d features
when p in [0, 1] (partial RMSNorm, a constexpr branch) else over all of them, x / (rms + eps)
times the weight, an optional bias, rms saved for backward) as an LLM block's norm: bf16
8 x 1024 tokens x d 4096 forward + backward, then partial RMSNorm (p 0.25) with a bias on fp32
3 x 777 x 2560, vs the same formula written in torch in fp32."""

import _corpus12_support as S
import torch

trident = S.import_trident()

torch.manual_seed(0)
dev = "cuda"
CASES = S.pick(
    [(8, 1024, 4096, -1.0, False, torch.bfloat16), (3, 777, 2560, 0.25, True, torch.float32)],
    [(2, 8, 64, -1.0, False, torch.bfloat16), (3, 5, 96, 0.25, True, torch.float32)],
)


def reference(x, w, b, p, eps):
    d = x.shape[-1]
    k = int(d * p) if 0.0 <= p <= 1.0 else d
    rms = x[..., :k].pow(2).mean(-1, keepdim=True).sqrt()
    y = x / (rms + eps) * w
    return y + b if b is not None else y


for b, t, d, p, bias, dt in CASES:
    norm = trident.RMSNorm((d,), p=p, bias=bias, device=dev, dtype=dt)
    with torch.no_grad():
        norm.weight.uniform_(0.5, 1.5)
        if bias:
            norm.bias.uniform_(-0.5, 0.5)
    x = torch.randn(b, t, d, device=dev, dtype=dt, requires_grad=True)
    y = norm(x)
    dy = torch.randn_like(y)
    params = [x, norm.weight] + ([norm.bias] if bias else [])
    grads = torch.autograd.grad(y, params, dy)

    rp = [q.detach().float().requires_grad_() for q in params]
    ry = reference(rp[0], rp[1], rp[2] if bias else None, p, norm.eps)
    rgrads = torch.autograd.grad(ry, rp, dy.float())
    print(
        f"{b}x{t}x{d} p={p} bias={bias} {dt}",
        f"out rel err {S.rel_err(y, ry):.1e}",
        "grads " + " ".join(f"{S.rel_err(g, r):.1e}" for g, r in zip(grads, rgrads, strict=True)),
    )
torch.cuda.synchronize()
print("trident_rms_norm ok")
