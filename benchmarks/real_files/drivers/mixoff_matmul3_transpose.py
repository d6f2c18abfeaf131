"""Corpus driver (kx's code): mixtral-offloading's 3-bit HQQ Triton matmul (dvmazur/mixtral-offloading,
src/triton_kernels.py: triton_matmul3_transpose launches matmul3_kernel_transpose through
@triton.autotune (one config, five stages, eight warps, key M / N / K) with a grouped program-id swizzle, int32
weights holding ten 3-bit values along N (read through offs_bn // 10 and a per-column shifter
(9 - n % 10) * 3; the wrapper takes N explicitly and checks the padded row count),
per-group fp16 scales and zeros gathered at [n % G, k] (HQQ's axis-0 groups) or loaded once when
NO_GROUPS (groupsize == N, a constexpr from the host), fp32 tl.dot accumulation stored to fp16;
src/packing.py: pack_3bit_i32_common, which pads the height to a multiple of ten). The driver
quantises Mixtral-shaped weights (w1 4096 -> 14336 group 64, whose 1434 packed rows end in a
partial word; 4096 -> 1024 group 64 with bias; one 4096 -> 4096 with group 128)
round-to-nearest in HQQ's layout, packs them with the file's packer and runs fp16 activations of
1 .. 1024 tokens (one 3-D); compared with the dequantised weight in fp32. hqq is a stand-in (packing.py imports it at the top)."""

import _corpus22_support as S

S.install_hqq_standin()
import torch  # noqa: E402
from packing import pack_3bit_i32_common  # noqa: E402
from triton_kernels import triton_matmul3_transpose  # noqa: E402

torch.manual_seed(0)
dev = S.device()
# (out N, in K, group, bias, token counts)
LAYERS = S.pick(
    [
        (14336, 4096, 64, False, [1, 16, 256, 1024]),
        (1024, 4096, 64, True, [7, 512]),
        (4096, 4096, 128, False, [33]),
    ],
    [(96, 64, 16, False, [1, 5]), (32, 64, 8, True, [3])],
)

errs, report = [], []
for n, k, gs, bias, tokens in LAYERS:
    w = torch.randn(n, k) * 0.02
    q, scale, zero, deq = S.hqq_axis0_quantize(w, 3, gs)
    qweight = pack_3bit_i32_common(q).to(dev)
    scale, zero, wd = scale.to(dev), zero.to(dev), deq.to(dev)
    b = (torch.randn(n) * 0.1).half().to(dev) if bias else None
    for t in tokens:
        x = torch.randn(t, k, dtype=torch.float16)
        if t == tokens[-1] and t > 1:
            x = x.reshape(1, t, k)
        x = x.to(dev)
        y = triton_matmul3_transpose(gs, x, qweight, scale, zero, n, bias=b)
        ref = x.float() @ wd.t() + (b.float() if bias else 0.0)
        errs.append(S.rel_err(y, ref))
    report.append(f"{k}->{n} g{gs}")
S.sync()
print(
    f"mixtral-offloading triton_matmul3_transpose on {len(LAYERS)} layers ({', '.join(report)}), {len(errs)} inputs: "
    f"rel err vs dequantised fp32 max {max(errs):.1e}"
)
