"""Corpus driver (kx's code): ServiceNow/Fast-LLM's Adam in Triton (fast_llm/functional/triton/adam.py:
triton_adam, one elementwise kernel per parameter tensor that reads a no-op flag and a gradient
scale from device memory (an overflow check skips the whole update on device, with no host read),
updates both moments and applies decoupled weight decay; its `numel` is a constexpr, so each
distinct parameter size is its own compile) driving a mixed-precision training loop: a 4-block
MLP (d 2048, hidden 8192, LayerNorm, fp32 master weights, bf16 autocast), 6 steps with a loss
scale of 1024, an overflow injected at step 3 (the flag set on device: the step is skipped), and
the final weights compared with torch.optim.AdamW run on a copy with the same skipped step."""

import copy

import _corpus10_support as S
import torch
import torch.nn as nn
from fast_llm.functional.triton.adam import triton_adam

torch.manual_seed(0)
dev = "cuda"
D, HID, BLOCKS, BATCH, STEPS = S.pick((2048, 8192, 4, 4096, 6), (32, 64, 2, 16, 4))
LR, BETAS, WD, EPS, LOSS_SCALE = 1e-3, (0.9, 0.95), 0.1, 1e-8, 1024.0

model = nn.Sequential(
    *[
        nn.Sequential(nn.LayerNorm(D), nn.Linear(D, HID), nn.GELU(), nn.Linear(HID, D))
        for _ in range(BLOCKS)
    ],
    nn.Linear(D, 1),
).to(dev)
ref = copy.deepcopy(model)
ref_opt = torch.optim.AdamW(ref.parameters(), lr=LR, betas=BETAS, weight_decay=WD, eps=EPS)
params = list(model.parameters())
exp_avgs = [torch.zeros_like(p) for p in params]
exp_avg_sqs = [torch.zeros_like(p) for p in params]
noop_flag = torch.zeros(1, dtype=torch.int32, device=dev)
grad_scale = torch.full((1,), 1 / LOSS_SCALE, device=dev)
teacher = torch.randn(D, 1, device=dev) / D**0.5

step = 0
for it in range(STEPS):
    x = torch.randn(BATCH, D, device=dev)
    y = x @ teacher
    for m in (model, ref):
        m.zero_grad(set_to_none=True)
        with torch.autocast("cuda", dtype=torch.bfloat16):
            loss = nn.functional.mse_loss(m(x).float(), y)
        (loss * LOSS_SCALE).backward()
    if it == 3:  # an overflowing step: one gradient entry becomes inf
        params[0].grad.view(-1)[0] = float("inf")
    # overflow check on device (no host read): the kernel reads the flag
    finite = torch.stack([p.grad.isfinite().all() for p in params]).all()
    noop_flag.copy_((~finite).to(torch.int32).view(1))
    skipped = it == 3
    if not skipped:
        step += 1
    for p, m1, m2 in zip(params, exp_avgs, exp_avg_sqs, strict=True):
        triton_adam(
            p.data, p.grad, m1, m2, noop_flag, grad_scale, LR, BETAS[0], BETAS[1], max(step, 1), WD, EPS
        )
    if not skipped:
        for p in ref.parameters():
            p.grad.mul_(1 / LOSS_SCALE)
        ref_opt.step()
    print(f"step {it} loss {loss.item():.5f}" + (" (overflow: skipped)" if skipped else ""))

errs = [S.rel_err(p, q) for p, q in zip(model.parameters(), ref.parameters(), strict=True)]
print("weights vs torch AdamW", f"max rel err {max(errs):.1e}", f"{len(params)} tensors")
torch.cuda.synchronize()
print("fast-llm adam ok")
