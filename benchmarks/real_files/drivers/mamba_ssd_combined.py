"""Corpus driver (kx's code): mamba_ssm's Mamba2 SSD training path in deterministic mode,
mamba_chunk_scan_combined (autograd.Function over the chunk cumsum / state / state-passing /
bmm / scan Triton kernels; set_deterministic_mode(True) before import leaves each autotuner
its cheapest config and makes the backward reduce per-tile workspaces instead of atomics),
forward and backward on packed variable-length sequences (seq_idx), D, z gating, dt_bias,
softplus. (Autotuned, the ~120 configs take about two minutes to compile on an H200.)"""

import _corpus_support
import torch

_corpus_support.mamba_package()
from mamba_ssm.utils.determinism import set_deterministic_mode  # noqa: E402

set_deterministic_mode(True)  # read when the kernel modules build their autotune config lists
from mamba_ssm.ops.triton.ssd_combined import mamba_chunk_scan_combined  # noqa: E402

torch.manual_seed(0)
lens = [1000, 24, 3072]
T, H, P, G, N, CHUNK = sum(lens), 24, 64, 1, 128, 256
dev, bf = "cuda", torch.bfloat16
seq_idx = torch.cat([torch.full((n,), i, device=dev, dtype=torch.int32) for i, n in enumerate(lens)])[None]
x = torch.randn(1, T, H, P, device=dev, dtype=bf, requires_grad=True)
dt = torch.randn(1, T, H, device=dev, dtype=bf, requires_grad=True)
A = (-torch.rand(H, device=dev, dtype=torch.float32)).requires_grad_()
B = torch.randn(1, T, G, N, device=dev, dtype=bf, requires_grad=True)
C = torch.randn(1, T, G, N, device=dev, dtype=bf, requires_grad=True)
D = torch.randn(H, device=dev, dtype=torch.float32, requires_grad=True)
z = torch.randn(1, T, H, P, device=dev, dtype=bf, requires_grad=True)
dt_bias = torch.randn(H, device=dev, dtype=torch.float32, requires_grad=True)
kw = dict(D=D, dt_bias=dt_bias, seq_idx=seq_idx, dt_softplus=True)
y = mamba_chunk_scan_combined(x, dt, A, B, C, CHUNK, z=z, **kw)
y.float().sum().backward()
torch.cuda.synchronize()
print("mamba_ssm ssd combined ok", tuple(y.shape), tuple(x.grad.shape))
