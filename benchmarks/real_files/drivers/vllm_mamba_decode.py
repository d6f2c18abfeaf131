"""Corpus driver (kx's code): vLLM's Mamba2 decode step: causal_conv1d_update on the conv
state cache and selective_state_update on the SSM state cache, both indexed by the batch's
cache slots (continuous batching), plus a varlen causal_conv1d_fn prefill."""

import _corpus_support
import torch

_corpus_support.vllm_package()
from vllm.model_executor.layers.mamba.ops.causal_conv1d import causal_conv1d_fn, causal_conv1d_update  # noqa: E402
from vllm.model_executor.layers.mamba.ops.mamba_ssm import selective_state_update  # noqa: E402

torch.manual_seed(0)
BATCH, SLOTS, H, P, G, N, W = 64, 256, 80, 64, 1, 128, 4
DIM = H * P + 2 * G * N  # conv runs over x, B and C
slots = torch.randperm(SLOTS, device="cuda")[:BATCH].to(torch.int32)

conv_w = torch.randn(DIM, W, device="cuda", dtype=torch.bfloat16)
conv_b = torch.randn(DIM, device="cuda", dtype=torch.bfloat16)
conv_state = torch.randn(SLOTS, W - 1, DIM, device="cuda", dtype=torch.bfloat16).transpose(
    1, 2
)  # dim-contiguous
xbc = torch.randn(BATCH, DIM, device="cuda", dtype=torch.bfloat16)
xbc = causal_conv1d_update(xbc, conv_state, conv_w, conv_b, activation="silu", conv_state_indices=slots)

ssm_state = torch.randn(SLOTS, H, P, N, device="cuda", dtype=torch.float32)
x = xbc[:, : H * P].reshape(BATCH, H, P)
B = xbc[:, H * P : H * P + G * N].reshape(BATCH, G, N)
C = xbc[:, H * P + G * N :].reshape(BATCH, G, N)
dt = torch.randn(BATCH, H, device="cuda", dtype=torch.bfloat16)[:, :, None].expand(-1, -1, P)
A = (-torch.rand(H, device="cuda", dtype=torch.float32))[:, None, None].expand(-1, P, N)
D = torch.randn(H, device="cuda", dtype=torch.float32)[:, None].expand(-1, P)
dt_bias = torch.randn(H, device="cuda", dtype=torch.float32)[:, None].expand(-1, P)
out = torch.empty_like(x)
selective_state_update(
    ssm_state, x, dt, A, B, C, D, dt_bias, dt_softplus=True, state_batch_indices=slots, out=out
)

lens = [700, 1, 1300, 47]
qsl = torch.tensor([0, 700, 701, 2001, 2048], device="cuda", dtype=torch.int32)
xs = torch.randn(DIM, sum(lens), device="cuda", dtype=torch.bfloat16)
has_init = torch.tensor([False, True, False, True], device="cuda")
ys = causal_conv1d_fn(
    xs, conv_w, conv_b, conv_state, qsl, cache_indices=slots[:4], has_initial_state=has_init
)
torch.cuda.synchronize()
print("vllm mamba decode ok", tuple(out.shape), tuple(ys.shape))
