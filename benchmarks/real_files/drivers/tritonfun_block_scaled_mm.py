"""Corpus driver (kx's code): GiftedNovaHD/triton-fun's block-scaled matmul
(scaled_mm/block_scaled_mm.py: block_scaled_mm, a wrapper that checks the per-tile scale shapes
of A [M_blocks, K_blocks] and B [K_blocks, N_blocks] and launches block_scaled_mm_kernel,
autotuned over eight num_warps / num_stages configs keyed on the sizes and blocks) on fp16
operands with per-tile scales, at two tile shapes (the default 128 x 128 x 16, and 64 x 128 x 32)
and one LLM-like GEMM size; checked against a dequantized float32 matmul."""

import _corpus15_support as S
import torch
from scaled_mm.block_scaled_mm import block_scaled_mm

torch.manual_seed(0)
dev = "cuda"
M, N, K = S.pick((2048, 2048, 2048), (64, 64, 64))
TILES = S.pick(((128, 128, 16), (64, 128, 32)), ((32, 32, 16),))
tol = 1e-2


def tile_scales(rows, cols, br, bc):
    return torch.rand(-(-rows // br), -(-cols // bc), device=dev) * 1.5 + 0.25


def expand(scale, br, bc, rows, cols):
    return scale.repeat_interleave(br, 0).repeat_interleave(bc, 1)[:rows, :cols]


a = torch.randn(M, K, device=dev, dtype=torch.float16)
b = torch.randn(K, N, device=dev, dtype=torch.float16)
for BM, BN, BK in TILES:
    sa = tile_scales(M, K, BM, BK)
    sb = tile_scales(K, N, BK, BN)
    c = block_scaled_mm(a, b, sa, sb, BLOCK_M=BM, BLOCK_N=BN, BLOCK_K=BK, out_dtype=torch.float32)
    want = (a.float() * expand(sa, BM, BK, M, K)) @ (b.float() * expand(sb, BK, BN, K, N))
    err = S.rel_err(c, want)
    print(f"tiles {BM}x{BN}x{BK}: {tuple(c.shape)} rel err {err:.1e}")
    assert err < tol, err

torch.cuda.synchronize()
print("tritonfun_block_scaled_mm ok")
