"""Corpus driver (kx's code): pytorch-labs/applied-ai's split-K GPTQ int4 dequant GEMM
(matmul_split_k -> matmul_split_k_kernel: 4-bit unpack with per-group scales/zeros, tl.dot,
tl.atomic_add(sem='release') across 4 K-splits). The wrapper reads the launch's compiled
kernel handle (n_regs, n_spills, shared, asm['ttir'/'ttgir'/'ptx']) and writes it to
./matmul_split_k.txt, so the driver runs it from a scratch directory. Shapes: the
upstream __main__ (m=16, 4096x4096) and a LLaMA-7B up_proj decode batch (m=64, 4096->11008).
"""

import os
import tempfile

import torch
from splitk_dequant_gemm import matmul_split_k

torch.manual_seed(0)
GROUP = 128  # the wrapper's fixed quant_groupsize


def gptq_weights(k, n):
    qweight = torch.randint(-(2**31), 2**31 - 1, (k // 8, n), device="cuda", dtype=torch.int32)
    qzeros = torch.randint(-(2**31), 2**31 - 1, (k // GROUP, n // 8), device="cuda", dtype=torch.int32)
    scales = torch.rand(k // GROUP, n, device="cuda", dtype=torch.float16) * 0.02
    return qweight, scales, qzeros


os.chdir(tempfile.mkdtemp(prefix="kx_splitk_"))
outs = []
for m, k, n in ((16, 4096, 4096), (64, 4096, 11008)):
    a = torch.randn(m, k, device="cuda", dtype=torch.float16)
    qweight, scales, qzeros = gptq_weights(k, n)
    outs.append(matmul_split_k(a, qweight, scales, qzeros))
torch.cuda.synchronize()
print("applied-ai split-k dequant gemm ok", [tuple(o.shape) for o in outs])
