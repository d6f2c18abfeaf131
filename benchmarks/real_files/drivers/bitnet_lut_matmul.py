"""Corpus driver (kx's code): yukikotani231/bitnet-triton's experimental LUT path
(bitnet_triton/kernels_lut.py: bitnet_matmul_lut launches _bitnet_lut_kernel through
triton.autotune (four configs, BLOCK_K 32 / 64, key M / N / K) with the same 2-bit unpack
(offs_k // 16 gather, (offs_k % 16) * 2 shift, & 0b11, minus one) feeding tl.dot on the
transposed ternary tile, per-row scales applied to the fp32 accumulator). The file also defines
an unused @triton.jit helper (_build_lut_4) that returns a zeros([16]) tensor. The driver packs
weights with bitnet_triton.packing.pack_weights (decode-time and prefill-time shapes of a
BitNet-b1.58-3B-like MLP: 3200 -> 8640, 8640 -> 3200, 3200 -> 3200) and runs fp16 and fp32
activations of 1 .. 256 tokens through bitnet_matmul_lut and, for comparison, the production
kernels.bitnet_matmul; compared with x @ W_ternary^T in fp32."""

import _corpus23_support as S
import torch
from bitnet_triton.kernels import bitnet_matmul  # noqa: E402
from bitnet_triton.kernels_lut import bitnet_matmul_lut  # noqa: E402
from bitnet_triton.packing import pack_weights  # noqa: E402

dev = S.device()
SHAPES = S.pick([(3200, 8640), (8640, 3200), (3200, 3200)], [(64, 48), (48, 32)])
TOKENS = S.pick([1, 16, 64, 256], [1, 8])
DTYPES = S.pick([torch.float16, torch.float32], [torch.float32])

errs = S.bitnet_check(
    [bitnet_matmul_lut, bitnet_matmul], pack_weights, S.bitnet_layers(SHAPES, dev), TOKENS, DTYPES, dev
)
S.sync()
print(
    f"bitnet-triton LUT matmul on {len(SHAPES)} layers x {len(TOKENS)} token counts x {len(DTYPES)} dtypes: "
    + ", ".join(f"{k} rel err {v:.1e}" for k, v in errs.items())
)
