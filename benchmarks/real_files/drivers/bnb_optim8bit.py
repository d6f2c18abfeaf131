"""Corpus driver (kx's code): bitsandbytes optimizers on its Triton backend (bitsandbytes/
backends/triton, registered for cuda as bitsandbytes registers it for xpu, since the CUDA C
library is not built here): a small bf16/fp32 MLP trained a few steps each with bnb.optim
Adam8bit, AdamW (32-bit states), Lion8bit, SGD 8-bit with momentum, RMSprop8bit and
AdEMAMix8bit. 8-bit optimizers keep blockwise-quantized states (the 2-state and 1-state 8-bit
blockwise update kernels) for tensors of at least min_8bit_size elements and 32-bit states
(the 32-bit precondition + update kernels) for the small ones (biases, LayerNorm)."""

import _corpus_support
import torch

_corpus_support.bitsandbytes_triton_cuda()
import bitsandbytes as bnb  # noqa: E402

torch.manual_seed(0)


def model(dtype):
    return torch.nn.Sequential(
        torch.nn.Linear(1024, 4096),
        torch.nn.GELU(),
        torch.nn.LayerNorm(4096),
        torch.nn.Linear(4096, 1024),
    ).to(device="cuda", dtype=dtype)


cases = [
    (bnb.optim.Adam8bit, dict(lr=1e-3, betas=(0.9, 0.995)), torch.bfloat16),
    (bnb.optim.AdamW, dict(lr=1e-3, weight_decay=0.01), torch.float32),
    (bnb.optim.Lion8bit, dict(lr=1e-4, weight_decay=0.01), torch.bfloat16),
    (bnb.optim.SGD8bit, dict(lr=1e-2, momentum=0.9), torch.float32),
    (bnb.optim.RMSprop8bit, dict(lr=1e-3), torch.float32),
    (bnb.optim.AdEMAMix8bit, dict(lr=1e-3), torch.bfloat16),
]
losses = []
for cls, kw, dtype in cases:
    net = model(dtype)
    opt = cls(net.parameters(), **kw)
    for _ in range(3):
        x = torch.randn(64, 1024, device="cuda", dtype=dtype)
        loss = net(x).float().square().mean()
        opt.zero_grad()
        loss.backward()
        opt.step()
    losses.append((cls.__name__, round(loss.item(), 4)))
torch.cuda.synchronize()
print("bnb optimizers ok", losses)
