"""Corpus driver (kx's code): dame-cell/Triformer's TritonRMSNorm (rms_norm.py: a forward kernel
saving the inverse RMS, an autotuned backward kernel with atomic adds into dW) and TritonSwiglu
(swiglu.py: forward saving sigmoid and silu, backward kernel) inside a Llama-style pre-norm MLP
block (d 4096, hidden 11008, batch 4 x 512 tokens, bf16): out = x + down(swiglu(gate(n), up(n)))
with n = rmsnorm(x); forward and backward (input, RMSNorm weight and projection gradients) vs the
same block with PyTorch RMSNorm / SiLU in fp32, 3 steps of SGD on both."""

import copy

import _corpus14_support as S
import torch
import torch.nn.functional as F
from torch import nn

S.install_llama_rmsnorm_standin()
from triformer.rms_norm import TritonRMSNorm  # noqa: E402
from triformer.swiglu import TritonSwiglu  # noqa: E402

torch.manual_seed(0)
# fp16 at toy sizes: the CPU interpreter lacks bf16 here
dev, dt = "cuda", S.pick(torch.bfloat16, torch.float16)
D, FF, B, T, STEPS = S.pick((4096, 11008, 4, 512, 3), (64, 160, 2, 8, 2))


class MLPBlock(nn.Module):  # kx's own block
    def __init__(self):
        super().__init__()
        self.norm = TritonRMSNorm(D, eps=1e-6)
        self.gate, self.up = nn.Linear(D, FF, bias=False), nn.Linear(D, FF, bias=False)
        self.down = nn.Linear(FF, D, bias=False)
        self.act = TritonSwiglu()

    def forward(self, x, reference=False):
        if reference:
            xf = x.float()
            n = self.norm.weight * (xf * torch.rsqrt(xf.pow(2).mean(-1, keepdim=True) + 1e-6))
            return x + self.down(F.silu(self.gate(n)) * self.up(n))
        n = self.norm(x)
        return x + self.down(self.act(self.gate(n), self.up(n)))


blk = MLPBlock().to(dev)
with torch.no_grad():
    blk.norm.weight.uniform_(0.5, 1.5)
blk = blk.to(dt)
ref = copy.deepcopy(blk).float()
opt, ref_opt = torch.optim.SGD(blk.parameters(), lr=1e-2), torch.optim.SGD(ref.parameters(), lr=1e-2)
for step in range(STEPS):
    x = torch.randn(B, T, D, device=dev, dtype=dt, requires_grad=True)
    xr = x.detach().float().requires_grad_()
    out, want = blk(x), ref(xr, reference=True)
    g = torch.randn_like(want)
    out.backward(g.to(dt))
    want.backward(g)
    gerr = {n: S.rel_err(p.grad, q.grad) for (n, p), q in zip(blk.named_parameters(), ref.parameters())}
    print(
        f"step {step}: out rel err {S.rel_err(out, want):.1e}, dx {S.rel_err(x.grad, xr.grad):.1e}, "
        + ", ".join(f"d{n} {e:.1e}" for n, e in gerr.items())
    )
    opt.step(), ref_opt.step()
    opt.zero_grad(set_to_none=True), ref_opt.zero_grad(set_to_none=True)
torch.cuda.synchronize()
print("triformer_rmsnorm_swiglu ok")
