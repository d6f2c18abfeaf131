"""Corpus driver (kx's code): ECMWF anemoi's Triton GraphTransformer attention
(ecmwf/anemoi-core, models/src/anemoi/models/triton/gt.py) inside a torch.compile'd training
step, the use its custom ops and fake kernels are written for ("torch.compile-friendly"): a
two-block processor in the shape of anemoi's GraphTransformerProcessorBlock (layer norm, q / k /
v / edge projections into 16 heads, graph_transformer_attention_conv over the mesh graph, output
projection, residual, GELU MLP; the blocks are kx's code, the attention is the file's op) on a
10k-node mesh with 512 channels, bf16 autocast, MSE loss, loss.backward() and AdamW, 3 steps;
the compiled model's loss checked against the eager model's at the same weights first. The
extracted file is the module anemoi_gt."""

import _corpus17_support as S
import torch
import torch.nn as nn
import torch.nn.functional as F
from anemoi_gt import graph_transformer_attention_conv


class ProcessorBlock(nn.Module):
    def __init__(self, channels: int, heads: int, edge_dim: int):
        super().__init__()
        self.heads, self.head_dim = heads, channels // heads
        self.norm1, self.norm2 = nn.LayerNorm(channels), nn.LayerNorm(channels)
        self.lin_qkv = nn.Linear(channels, 3 * channels)
        self.lin_edge = nn.Linear(edge_dim, channels)
        self.proj = nn.Linear(channels, channels)
        self.mlp = nn.Sequential(
            nn.Linear(channels, 4 * channels), nn.GELU(), nn.Linear(4 * channels, channels)
        )

    def forward(self, x, edge_attr, csc, reverse):
        n = x.shape[0]
        q, k, v = self.lin_qkv(self.norm1(x)).view(n, 3, self.heads, self.head_dim).unbind(1)
        e = self.lin_edge(edge_attr).view(-1, self.heads, self.head_dim)
        att = graph_transformer_attention_conv(q, k, v, e, csc, reverse)
        x = x + self.proj(att.reshape(n, -1))
        return x + self.mlp(self.norm2(x))


class Processor(nn.Module):
    def __init__(self, channels, heads, edge_dim, depth):
        super().__init__()
        self.blocks = nn.ModuleList(ProcessorBlock(channels, heads, edge_dim) for _ in range(depth))

    def forward(self, x, edge_attr, csc, reverse):
        for blk in self.blocks:
            x = blk(x, edge_attr, csc, reverse)
        return x


torch.manual_seed(0)
dev = "cuda"
N, DEG, CH, HEADS, EDGE_DIM, STEPS = S.pick((10242, 12, 512, 16, 8, 3), (16, 3, 16, 2, 4, 2))
csc, reverse, edge_index = S.random_csc_graph(N, N, DEG, dev, seed=2)
model = Processor(CH, HEADS, EDGE_DIM, depth=2).to(dev)
cmodel = torch.compile(model)
opt = torch.optim.AdamW(model.parameters(), lr=1e-4)
x = torch.randn(N, CH, device=dev)
edge_attr = torch.randn(edge_index.shape[1], EDGE_DIM, device=dev)
target = torch.randn(N, CH, device=dev)

with torch.autocast("cuda", dtype=torch.bfloat16):
    with torch.no_grad():
        l_eager = F.mse_loss(model(x, edge_attr, csc, reverse).float(), target)
for step in range(STEPS):
    opt.zero_grad(set_to_none=True)
    with torch.autocast("cuda", dtype=torch.bfloat16):
        loss = F.mse_loss(cmodel(x, edge_attr, csc, reverse).float(), target)
    loss.backward()
    opt.step()
    print(f"step {step}: loss {loss.item():.5f}")
    assert torch.isfinite(loss)
    if step == 0:
        err = abs(loss.item() - l_eager.item()) / l_eager.item()
        print(f"compiled vs eager step-0 loss rel err {err:.1e}")
        assert err < 2e-2, err
torch.cuda.synchronize()
print("anemoi_gt_compile_train ok")
