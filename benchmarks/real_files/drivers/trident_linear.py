"""Corpus driver (kx's code): kakaobrain/trident's Triton linear layer (trident/kernel/linear.py:
Linear.forward / backward_input / backward_weight / backward_bias through trident.Linear ->
trident.function.linear -> operation.Linear (an autograd Function): autotuned GEMMs over
m/n/k block-size grids (configs built by linear_configs with warps / stages picked from the tile
size, keyed on the problem sizes), make_block_ptr loads, the bias added in the epilogue,
trident.language.dot choosing tl.dot's out_dtype from a constexpr dtype and allow_tf32 from
use_accelerator) as a user swaps it in for torch.nn.Linear: an MLP (d 2048 -> 8192 -> 2048,
GELU between, fp16 weights) on 8 x 512 tokens forward + backward, then fp32 with
use_accelerator=True (TF32 dots) on an odd token count (3 x 1000) without bias, vs torch's
linear in fp32."""

import _corpus12_support as S
import torch

trident = S.import_trident()

torch.manual_seed(0)
dev = "cuda"
CASES = S.pick(
    [(8, 512, 2048, 8192, torch.float16, False, True), (3, 1000, 1024, 4096, torch.float32, True, False)],
    [(2, 16, 32, 64, torch.float16, False, True), (3, 10, 32, 48, torch.float32, True, False)],
)

for b, t, d, h, dt, accel, bias in CASES:
    up = trident.Linear(d, h, bias=bias, use_accelerator=accel, device=dev, dtype=dt)
    down = trident.Linear(h, d, bias=bias, use_accelerator=accel, device=dev, dtype=dt)
    x = torch.randn(b, t, d, device=dev, dtype=dt, requires_grad=True)
    y = down(torch.nn.functional.gelu(up(x)))
    dy = torch.randn_like(y)
    params = [x] + list(up.parameters()) + list(down.parameters())
    grads = torch.autograd.grad(y, params, dy)

    rp = [p.detach().float().requires_grad_() for p in params]
    rx, ups, downs = rp[0], rp[1 : 1 + len(list(up.parameters()))], rp[1 + len(list(up.parameters())) :]
    ry = torch.nn.functional.linear(torch.nn.functional.gelu(torch.nn.functional.linear(rx, *ups)), *downs)
    rgrads = torch.autograd.grad(ry, rp, dy.float())
    print(
        f"{b}x{t} {d}->{h}->{d} {dt} tf32={accel} bias={bias}",
        f"out rel err {S.rel_err(y, ry):.1e}",
        "grads " + " ".join(f"{S.rel_err(g, r):.1e}" for g, r in zip(grads, rgrads, strict=True)),
    )
torch.cuda.synchronize()
print("trident_linear ok")
