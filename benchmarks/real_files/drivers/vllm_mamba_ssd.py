"""Corpus driver (kx's code): vLLM's Mamba2 prefill path on a varlen batch: the SSD
chunked-scan Triton kernels (mamba_chunk_scan_combined_varlen, with D, z, dt_bias,
softplus and initial states) and the gated RMSNorm that follows (Mamba2-2.7B shapes)."""

import itertools

import _corpus_support
import torch

_corpus_support.vllm_package()
from vllm.model_executor.layers.mamba.ops.layernorm_gated import rms_norm_gated  # noqa: E402
from vllm.model_executor.layers.mamba.ops.ssd_combined import mamba_chunk_scan_combined_varlen  # noqa: E402

torch.manual_seed(0)
H, P, G, N, CHUNK = 80, 64, 1, 128, 256
seq_lens = [1000, 37, 2048, 513]
# the chunk metadata vLLM's Mamba2 metadata builder makes on the CPU: chunks never cross
# a sequence or a physical chunk boundary
chunk_lens, seq_idx, last_chunk, start = [], [], [], 0
for b, n in enumerate(seq_lens):
    pos = start
    while pos < start + n:
        take = min(CHUNK - pos % CHUNK, start + n - pos)
        chunk_lens.append(take)
        seq_idx.append(b)
        pos += take
    last_chunk.append(len(chunk_lens) - 1)
    start += n
T = sum(seq_lens)
cu_seqlens = torch.tensor([0, *itertools.accumulate(seq_lens)], device="cuda", dtype=torch.int32)
cu_chunks = torch.tensor([0, *itertools.accumulate(chunk_lens)], device="cuda", dtype=torch.int32)
last_chunk = torch.tensor(last_chunk, device="cuda", dtype=torch.int32)
seq_idx = torch.tensor(seq_idx, device="cuda", dtype=torch.int32)

x = torch.randn(T, H, P, device="cuda", dtype=torch.bfloat16)
dt = torch.randn(T, H, device="cuda", dtype=torch.bfloat16)
A = -torch.rand(H, device="cuda", dtype=torch.float32)
B = torch.randn(T, G, N, device="cuda", dtype=torch.bfloat16)
C = torch.randn(T, G, N, device="cuda", dtype=torch.bfloat16)
D = torch.randn(H, device="cuda", dtype=torch.float32)
dt_bias = torch.randn(H, device="cuda", dtype=torch.float32)
init = torch.randn(len(seq_lens), H, P, N, device="cuda", dtype=torch.float32)
y = torch.empty_like(x)
states = mamba_chunk_scan_combined_varlen(
    x,
    dt,
    A,
    B,
    C,
    CHUNK,
    cu_seqlens,
    cu_chunks,
    last_chunk,
    seq_idx,
    y,
    D=D,
    dt_bias=dt_bias,
    initial_states=init,
    dt_softplus=True,
    state_dtype=torch.float32,
)
gate = torch.randn(T, H * P, device="cuda", dtype=torch.bfloat16)
w = torch.ones(H * P, device="cuda", dtype=torch.bfloat16)
out = rms_norm_gated(
    y.view(T, H * P), w, None, z=gate, eps=1e-5, group_size=H * P // 8, norm_before_gate=False
)
torch.cuda.synchronize()
print("vllm mamba ssd ok", tuple(out.shape), tuple(states.shape))
