"""Corpus driver (kx's code): lucidrains/lion-pytorch's Lion optimizer with use_triton=True,
whose step() calls lion_pytorch.triton.update_fn per parameter: an @triton.autotune'd
elementwise update (2 configs keyed on n_elements, restore_value=['p_ptr', 'exp_avg_ptr'],
so every autotuning round snapshots and restores the in-place parameter and momentum).
Three training steps of a small fp32 transformer block (several distinct parameter sizes ->
several tuning rounds) and a bf16 MLP in a second optimizer with decoupled weight decay.
"""

import torch
from lion_pytorch import Lion

torch.manual_seed(0)
block = torch.nn.TransformerEncoderLayer(
    d_model=512, nhead=8, dim_feedforward=2048, batch_first=True, device="cuda"
)
mlp = torch.nn.Sequential(torch.nn.Linear(1024, 4096), torch.nn.GELU(), torch.nn.Linear(4096, 1024)).to(
    device="cuda", dtype=torch.bfloat16
)

opt = Lion(block.parameters(), lr=1e-4, weight_decay=1e-2, use_triton=True)
opt_bf16 = Lion(
    mlp.parameters(),
    lr=3e-5,
    betas=(0.95, 0.98),
    weight_decay=0.1,
    use_triton=True,
    decoupled_weight_decay=True,
)

for _ in range(3):
    x = torch.randn(8, 256, 512, device="cuda")
    block(x).pow(2).mean().backward()
    opt.step()
    opt.zero_grad()

    h = torch.randn(512, 1024, device="cuda", dtype=torch.bfloat16)
    mlp(h).float().pow(2).mean().backward()
    opt_bf16.step()
    opt_bf16.zero_grad()
torch.cuda.synchronize()
print(
    "lion triton ok",
    sum(p.numel() for p in block.parameters()),
    sum(p.numel() for p in mlp.parameters()),
)
