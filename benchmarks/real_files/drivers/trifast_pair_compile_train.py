"""Corpus driver (kx's code): latkins/trifast's triangle attention (src/trifast/torch.py:
triangle_attention, a torch.library triton_op over the Triton kernels of src/trifast/triton.py,
with a registered autograd formula and wrap_triton launches that torch.compile can trace into
its graph; trifast's own persisted Autotuner around each kernel) inside a compiled training step:
a small AlphaFold-style pair stack (kx's code: per layer LayerNorm, q / k / v / bias / gate
projections of the pair representation, triangle attention around the starting node then the
ending node (the pair transposed), sigmoid gating, output projection, residual, then a
transition MLP) on a 1 x 256 x 256 x 128 pair representation, 4 heads of 32, 2 layers, bf16
autocast, AdamW, 4 steps of forward + backward under torch.compile with a padding mask, then
the compiled forward compared with eager."""

import _corpus10_support as S
import torch
import torch.nn as nn
import torch.nn.functional as F

S.install_trifast_env()
from trifast import triangle_attention  # noqa: E402

torch.manual_seed(0)
dev = "cuda"
N, C, H, D, LAYERS, STEPS = S.pick((256, 128, 4, 32, 2, 4), (16, 16, 2, 8, 1, 2))


class TriangleAttention(nn.Module):
    def __init__(self, ending: bool):
        super().__init__()
        self.ending = ending
        self.norm = nn.LayerNorm(C)
        self.qkvg = nn.Linear(C, 4 * H * D, bias=False)
        self.bias = nn.Linear(C, H, bias=False)
        self.out = nn.Linear(H * D, C)

    def forward(self, z, mask):
        if self.ending:
            z, mask = z.transpose(1, 2), mask.transpose(1, 2)
        x = self.norm(z)
        q, k, v, g = self.qkvg(x).unflatten(-1, (4, H, D)).permute(3, 0, 4, 1, 2, 5).contiguous().unbind(0)
        b = self.bias(x).permute(0, 3, 1, 2).contiguous()
        o = triangle_attention(q, k, v, b, mask.contiguous())  # (1, H, N, N, D)
        o = (o * torch.sigmoid(g)).permute(0, 2, 3, 1, 4).flatten(-2)
        o = self.out(o)
        return o.transpose(1, 2) if self.ending else o


class PairStack(nn.Module):
    def __init__(self):
        super().__init__()
        self.layers = nn.ModuleList()
        for _ in range(LAYERS):
            self.layers.append(
                nn.ModuleList(
                    [
                        TriangleAttention(False),
                        TriangleAttention(True),
                        nn.Sequential(nn.LayerNorm(C), nn.Linear(C, 4 * C), nn.ReLU(), nn.Linear(4 * C, C)),
                    ]
                )
            )

    def forward(self, z, mask):
        for start, end, transition in self.layers:
            z = z + start(z, mask)
            z = z + end(z, mask)
            z = z + transition(z)
        return z


model = PairStack().to(dev)
compiled = torch.compile(model)
opt = torch.optim.AdamW(model.parameters(), lr=1e-3)
mask = torch.zeros(1, N, N, dtype=torch.bool, device=dev)
mask[:, :, N - N // 8 :] = True  # padding residues' keys
target_map = torch.randn(C, C, device=dev) / C**0.5

for step in range(STEPS):
    z = torch.randn(1, N, N, C, device=dev)
    target = torch.tanh(z @ target_map)
    with torch.autocast("cuda", dtype=torch.bfloat16):
        out = compiled(z, mask)
    loss = F.mse_loss(out.float(), target)
    opt.zero_grad(set_to_none=True)
    loss.backward()
    opt.step()
    print(f"step {step} loss {loss.item():.4f}")

with torch.no_grad(), torch.autocast("cuda", dtype=torch.bfloat16):
    z = torch.randn(1, N, N, C, device=dev)
    got, want = compiled(z, mask), model(z, mask)
print("pair stack", tuple(got.shape), f"compiled vs eager rel err {S.rel_err(got, want):.1e}")
torch.cuda.synchronize()
print("trifast pair compile train ok")
