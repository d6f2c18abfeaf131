"""Corpus driver (kx's code): NX-AI/mlstm_kernels' kernel registry used as its README shows
(`from mlstm_kernels.torch import get_mlstm_kernel, get_mlstm_step_kernel`; q, k, v of shape
(B, NH, S, DH), input / forget gate preactivations (B, NH, S)): forward and backward of
"parallel--triton_limit_headdim" (the quadratic parallel mLSTM: triton.autotune'd forward and
backward kernels keyed on N_CTX / HEAD_DIM, with a config filter), of
"chunkwise--triton_xl_chunk_siging" (sigmoid input gate, normalised, chunk 128), of
"chunkwise--triton_xl_chunk" and "chunkwise--triton_limit_chunk" with initial states and
return_last_states (state gradients too), each under autocast_kernel_dtype bf16; then the step
kernel "triton" for 8 recurrent steps from the chunkwise final states and mLSTMBackend in
"inference" mode on a 200-token prefill (chunkwise for 192 tokens, the fused Triton step kernel
for the last 8). bf16 inputs, B 2, 4 heads, DHQK 128 / DHV 256 (the chunkwise kernels) and
DH 64 (the parallel kernel), S 1024 / 2048."""

import torch
from mlstm_kernels.torch import get_mlstm_kernel, get_mlstm_step_kernel
from mlstm_kernels.torch.backend_module import mLSTMBackend, mLSTMBackendConfig

torch.manual_seed(42)
dev, dt = "cuda", torch.bfloat16


def inputs(B, NH, S, DHQK, DHV, grad=True):
    q = torch.randn(B, NH, S, DHQK, device=dev, dtype=dt)
    k = torch.randn(B, NH, S, DHQK, device=dev, dtype=dt)
    v = torch.randn(B, NH, S, DHV, device=dev, dtype=dt)
    i = torch.randn(B, NH, S, device=dev, dtype=dt)
    f = 3.0 + torch.randn(B, NH, S, device=dev, dtype=dt)
    return [t.requires_grad_(grad) for t in (q, k, v, i, f)]


x = inputs(2, 4, 1024, 64, 64)
h = get_mlstm_kernel("parallel--triton_limit_headdim")(*x, autocast_kernel_dtype=dt)
h.float().square().mean().backward()
print("parallel", tuple(h.shape), x[0].grad.abs().max().item())

x = inputs(2, 4, 2048, 128, 256)
h = get_mlstm_kernel("chunkwise--triton_xl_chunk_siging")(
    *x, normalize=True, chunk_size=128, autocast_kernel_dtype=dt
)
h.float().square().mean().backward()
print("xl_chunk_siging", tuple(h.shape), x[3].grad.abs().max().item())

for name in ("chunkwise--triton_xl_chunk", "chunkwise--triton_limit_chunk"):
    x = inputs(2, 4, 1024, 128, 256)
    c0 = torch.zeros(2, 4, 128, 256, device=dev, dtype=torch.float32, requires_grad=True)
    n0 = torch.zeros(2, 4, 128, device=dev, dtype=torch.float32, requires_grad=True)
    m0 = torch.zeros(2, 4, 1, device=dev, dtype=torch.float32, requires_grad=True)
    h, (c, n, m) = get_mlstm_kernel(name)(
        *x, c_initial=c0, n_initial=n0, m_initial=m0, return_last_states=True, autocast_kernel_dtype=dt
    )
    (h.float().square().mean() + c.float().mean() + n.float().mean()).backward()
    print(name, tuple(h.shape), tuple(c.shape), c0.grad.abs().max().item())

step = get_mlstm_step_kernel("triton")
c, n, m = c.detach(), n.detach(), m.detach()
with torch.no_grad():
    for _ in range(8):
        q, k, v, i, f = inputs(2, 4, 1, 128, 256, grad=False)
        h, (c, n, m) = step(q[:, :, 0], k[:, :, 0], v[:, :, 0], i, f, c, n, m)
print("step", tuple(h.shape), tuple(c.shape))

backend = mLSTMBackend(
    mLSTMBackendConfig(
        chunkwise_kernel="chunkwise--triton_xl_chunk",
        sequence_kernel="native_sequence__triton",
        step_kernel="triton",
        mode="inference",
        chunk_size=64,
        return_last_states=True,
    )
)
with torch.no_grad():
    h, (c, n, m) = backend(*inputs(1, 4, 200, 128, 256, grad=False))
torch.cuda.synchronize()
print("mlstm_kernels ops ok", tuple(h.shape), tuple(c.shape))
