"""Corpus driver (kx's code): hpcaitech/ColossalAI's fused SwiGLU combine (colossalai/kernel/triton/
llama_act_combine_kernel.py: LlamaActCombine, a torch.autograd.Function with custom_fwd /
custom_bwd over _llama_act_combine_forward / _llama_act_combine_backward; `x_gate[..., :d] *
silu(x_gate[..., d:]) * x_up`), used as its MoE experts use it (colossalai/legacy/moe/layer/experts.py's
MLPExperts.forward with use_kernel and gated swiglu, re-written here without the expert-parallel
scalers): tokens routed top-1 into (groups, experts, capacity, hidden) slots with zero padding,
each expert's occupied rows found on the host (`mask = (x[:, :, 0] != 0).sum(-1)` then
`x[i, :mask[i]]`: a data-dependent slice per expert), `LlamaActCombine.apply(x_gate[i], x_up[i])`
per expert, the outputs padded back. 8 experts, hidden 1024, intermediate 2816, 4096 tokens,
capacity factor 1.25; 4 AdamW steps in bf16 (forward + backward through the Triton kernels, the
uneven expert loads changing M every step), then an fp32 check of the kernel's forward and its
gradients against torch's silu on a (2, 333, 2 x 1000) input (N off the power-of-two block)."""

import _corpus7_support as S
import torch
import torch.nn.functional as F

S.bare_package("colossalai")
S.bare_package("colossalai.kernel")
with S.quiet_warnings():
    from colossalai.kernel.triton.llama_act_combine_kernel import HAS_TRITON, LlamaActCombine  # noqa: E402

assert HAS_TRITON
torch.manual_seed(0)
dev = "cuda"
E, Hd, FF, T = S.pick((8, 1024, 2816, 4096), (4, 32, 48, 40))
cap = int(1.25 * T / E)
dt = torch.bfloat16
router = torch.nn.Linear(Hd, E, bias=False).to(dev, dt)
wi_gate = torch.nn.Parameter(torch.randn(E, Hd, 2 * FF, device=dev, dtype=dt) * (0.1 / Hd) ** 0.5)
wi_up = torch.nn.Parameter(torch.randn(E, Hd, FF, device=dev, dtype=dt) * (0.1 / Hd) ** 0.5)
wo = torch.nn.Parameter(torch.randn(E, FF, Hd, device=dev, dtype=dt) * (0.1 / FF) ** 0.5)
params = [wi_gate, wi_up, wo, *router.parameters()]
opt = torch.optim.AdamW(params, lr=1e-3)


def experts(x):
    # x: (num_groups, num_experts, capacity, hidden), as MLPExperts.forward receives it
    e, h = x.size(1), x.size(-1)
    x = x.transpose(0, 1)
    inshape = x.shape
    x = x.reshape(e, -1, h)
    seq_len = x.shape[1]
    with torch.no_grad():
        mask = (x[:, :, 0] != 0.0).sum(dim=-1)
    xs = [x[i, : mask[i]] for i in range(e)]
    x_gate = [torch.mm(xs[i], wi_gate[i]) for i in range(e)]
    x_up = [torch.mm(xs[i], wi_up[i]) for i in range(e)]
    xs = [LlamaActCombine.apply(x_gate[i], x_up[i]) for i in range(e)]
    xs = [torch.mm(xs[i], wo[i]) for i in range(e)]
    xs = [F.pad(xs[i], (0, 0, 0, seq_len - xs[i].shape[0])) for i in range(e)]
    return torch.stack(xs).reshape(inshape).transpose(0, 1).contiguous()


for step in range(4):
    tokens = torch.randn(T, Hd, device=dev, dtype=dt)
    probs = router(tokens).float().softmax(-1)
    weight, expert = probs.max(-1)
    # capacity-limited dispatch: position of each token within its expert
    onehot = F.one_hot(expert, E)
    slot = (onehot.cumsum(0) - 1)[torch.arange(T, device=dev), expert]
    keep = slot < cap
    disp = torch.zeros(1, E, cap, Hd, device=dev, dtype=dt)
    disp[0, expert[keep], slot[keep]] = tokens[keep]
    out = experts(disp)
    y = torch.zeros_like(tokens)
    y[keep] = out[0, expert[keep], slot[keep]] * weight[keep, None].to(dt)
    loss = (y.float() - tokens.float()).pow(2).mean()
    loss.backward()
    opt.step()
    opt.zero_grad(set_to_none=True)
    print(
        "step",
        step,
        "loss",
        round(loss.item(), 4),
        "tokens per expert",
        onehot.sum(0).clamp(max=cap).tolist(),
    )

# fp32 check of forward and backward against torch
shape = S.pick((2, 333, 1000), (2, 7, 40))
g = torch.randn(*shape[:-1], 2 * shape[-1], device=dev, requires_grad=True)
u = torch.randn(*shape, device=dev, requires_grad=True)
y = LlamaActCombine.apply(g, u)
dy = torch.randn_like(y)
y.backward(dy)
g2, u2 = g.detach().clone().requires_grad_(), u.detach().clone().requires_grad_()
g1, gg = g2.chunk(2, -1)
(g1 * F.silu(gg) * u2).backward(dy)
err = max((g.grad - g2.grad).abs().max().item(), (u.grad - u2.grad).abs().max().item())
torch.cuda.synchronize()
print("colossalai llama act combine ok", tuple(y.shape), "grad max err", round(err, 5))
