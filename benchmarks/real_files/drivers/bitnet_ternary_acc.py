"""Corpus driver (kx's code): the two multiplication-free experiments of
yukikotani231/bitnet-triton (bitnet_triton/kernels_lut.py): bitnet_matmul_ternary launches
_bitnet_ternary_acc_kernel through triton.autotune (five configs over BLOCK_M / BLOCK_N, key
M / N / K) whose BLOCK_K is a constexpr with a default value (64) that no config sets, splitting
each unpacked tile into +1 and -1 masks (tl.where) for two tl.dot accumulators subtracted at the
end; bitnet_matmul_true_lut launches _bitnet_true_lut_kernel with fixed 32 x 64 tiles and no
autotuning, stepping K four at a time with scalar-strided column loads of the activations,
extracting four 2-bit codes from one packed word per step (pack index k // 16, bit offset
(k % 16) * 2 computed from the loop variable) and accumulating outer products. The driver packs
BitNet-style projections with bitnet_triton.packing.pack_weights (2048 -> 2048, 2048 -> 5632,
one K = 1000 that is not a multiple of 16) and runs fp32 and fp16 activations of 1 .. 128
tokens through both; compared with x @ W_ternary^T in fp32 (kx's absmean reference)."""

import _corpus23_support as S
import torch
from bitnet_triton.kernels_lut import bitnet_matmul_ternary, bitnet_matmul_true_lut  # noqa: E402
from bitnet_triton.packing import pack_weights  # noqa: E402

dev = S.device()
SHAPES = S.pick([(2048, 2048), (2048, 5632), (1000, 512)], [(64, 48), (40, 32)])
TOKENS = S.pick([1, 8, 33, 128], [1, 6])
DTYPES = S.pick([torch.float32, torch.float16], [torch.float32])

errs = S.bitnet_check(
    [bitnet_matmul_ternary, bitnet_matmul_true_lut],
    pack_weights,
    S.bitnet_layers(SHAPES, dev, seed=3),
    TOKENS,
    DTYPES,
    dev,
)
S.sync()
print(
    f"bitnet-triton ternary-accumulate / true-LUT matmuls on {len(SHAPES)} layers x {len(TOKENS)} token counts: "
    + ", ".join(f"{k} rel err {v:.1e}" for k, v in errs.items())
)
