"""Corpus driver (kx's code): Doraemonzzz/xopes' Lightning Attention in Triton
(xopes/ops/lightning_attn/__init__.py: lightning_attn_func, dispatching by decay_type;
constant_decay/lacd_parallel_triton.py (the chunked parallel form: intra-chunk attention, chunk
states, inter-chunk reduction, with their backward kernels, picked when v requires grad) and
lacd_recurrence_triton.py (the recurrent form used for decoding); scalar_decay's lasd_* (a
per-token, per-head log decay)) as a linear-attention language-model layer uses it: a bf16 training
step (forward + backward) with a learnt per-head constant decay and an initial state, then the
same with a data-dependent scalar decay (the PyTorch comparison at 256 tokens), then a prefill of the trained shapes without grad (the
recurrence path) and 16 single-token decode steps carrying the state. The training outputs and
gradients are compared with the repo's PyTorch references (lacd_torch / lasd_torch) in fp32."""

import _corpus9_support as S
import torch
import torch.nn.functional as F

S.bare_package("xopes.ops")
from xopes.ops.lightning_attn import lightning_attn_func  # noqa: E402
from xopes.ops.lightning_attn.constant_decay import lacd_torch  # noqa: E402
from xopes.ops.lightning_attn.scalar_decay import lasd_torch  # noqa: E402

torch.manual_seed(0)
dev = "cuda"
B, N, H, D, E = S.pick((4, 2048, 16, 128, 128), (2, 70, 2, 32, 32))
N_REF = S.pick(256, 40)
dt = torch.bfloat16


def leaf(*shape, scale=1.0):
    return (torch.randn(*shape, device=dev) * scale).to(dt).requires_grad_()


q, k, v = leaf(B, N, H, D, scale=D**-0.5), leaf(B, N, H, D, scale=D**-0.5), leaf(B, N, H, E)
s0 = leaf(B, H, D, E, scale=0.1)
ld_h = F.logsigmoid(torch.randn(H, device=dev) + 3).requires_grad_()  # per-head constant decay
do = torch.randn(B, N, H, E, device=dev, dtype=dt)


def grads(*ts):
    out = [t.grad.clone() for t in ts]
    for t in ts:
        t.grad = None
    return out


def check(decay, n):
    """One training step at sequence length n (the parallel kernels, forward + backward), compared
    with the repo's PyTorch reference (a token-by-token recurrence, in fp32)."""
    qs, ks, vs = (t.detach()[:, :n].clone().requires_grad_() for t in (q, k, v))
    dos = do[:, :n]
    if decay == "constant":
        ld, ref, s_init = ld_h, lacd_torch, s0
    else:  # a log decay per token and head, computed from the input (a data-dependent gate)
        ld = F.logsigmoid((qs.detach().float() * gate_w).sum(-1) + 4)  # (B, n, H)
        ref, s_init = lasd_torch, None
    o, _ = lightning_attn_func(qs, ks, vs, ld=ld, initial_state=s_init, decay_type=decay)
    (o * dos).sum().backward()
    leaves = [qs, ks, vs] + ([s_init] if s_init is not None else [])
    g_tri = grads(*leaves)
    if n > N_REF:
        return f"{decay} decay fwd+bwd {(B, n, H, D, E)}"
    o_ref, _ = ref(
        q=qs.float(), k=ks.float(), v=vs.float(), ld=ld, initial_state=None if s_init is None else s_init.float()
    )
    (o_ref * dos.float()).sum().backward()
    g_ref = grads(*leaves)
    return (
        f"{decay} decay fwd+bwd {(B, n, H, D, E)} o rel err {S.rel_err(o, o_ref):.1e} grads "
        + " ".join(f"{S.rel_err(a, b):.1e}" for a, b in zip(g_tri, g_ref, strict=True))
    )


gate_w = torch.randn(H, D, device=dev) * D**-0.5
# training steps at the full length, then the reference comparison at a shorter length (the
# references loop over tokens in Python)
for decay in ("constant", "scalar"):
    print(check(decay, N))
    print(check(decay, N_REF))
    ld_h.grad = None

# inference: prefill without grad (recurrence kernels), then single-token decode steps
with torch.no_grad():
    o, state = lightning_attn_func(q, k, v, ld=ld_h, decay_type="constant")
    for step in range(S.pick(16, 3)):
        qt, kt, vt = (torch.randn(B, 1, H, x, device=dev, dtype=dt) for x in (D, D, E))
        ot, state = lightning_attn_func(qt, kt, vt, ld=ld_h, initial_state=state, decay_type="constant")
    print("decode", tuple(ot.shape), "state", tuple(state.shape), f"|state| {state.float().abs().mean().item():.3f}")
torch.cuda.synchronize()
print("xopes lightning attention ok")
