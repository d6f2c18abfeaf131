"""Corpus driver (kx's code): mixtral-offloading's 2-bit HQQ Triton matmul (dvmazur/mixtral-offloading,
src/triton_kernels.py: triton_matmul2_transpose launches matmul2_kernel_transpose through
@triton.autotune (one config, key M / N / K) with a grouped program-id swizzle, uint8 weights
holding four 2-bit values along N (read four times through offs_bn // 4 and a per-column
shifter (3 - n % 4) * 2),
per-group fp16 scales and zeros gathered at [n % G, k] (HQQ's axis-0 groups) or loaded once when
NO_GROUPS (groupsize == N, a constexpr from the host), fp32 tl.dot accumulation stored to fp16;
src/packing.py: pack_2bit_u8_common). The driver quantises Mixtral-shaped expert weights
(w1 4096 -> 14336 and w2 14336 -> 4096 with group 16, the repository's 2-bit ffn config; one
4096 -> 4096 with group 128) round-to-nearest in HQQ's layout, packs them with the file's
packer and runs fp16 activations of 1 .. 512 tokens (one 3-D, one with bias); compared with the
dequantised weight in fp32. hqq is a stand-in (packing.py imports it at the top)."""

import _corpus22_support as S

S.install_hqq_standin()
import torch  # noqa: E402
from packing import pack_2bit_u8_common  # noqa: E402
from triton_kernels import triton_matmul2_transpose  # noqa: E402

torch.manual_seed(0)
dev = S.device()
# (out N, in K, group, bias, token counts)
LAYERS = S.pick(
    [
        (14336, 4096, 16, False, [1, 8, 128, 512]),
        (4096, 14336, 16, True, [3, 64]),
        (4096, 4096, 128, False, [17]),
    ],
    [(64, 64, 16, False, [1, 5]), (32, 64, 8, True, [3])],
)

errs, report = [], []
for n, k, gs, bias, tokens in LAYERS:
    w = torch.randn(n, k) * 0.02
    q, scale, zero, deq = S.hqq_axis0_quantize(w, 2, gs)
    qweight = pack_2bit_u8_common(q).to(dev)
    scale, zero, wd = scale.to(dev), zero.to(dev), deq.to(dev)
    b = (torch.randn(n) * 0.1).half().to(dev) if bias else None
    for t in tokens:
        x = torch.randn(t, k, dtype=torch.float16)
        if t == tokens[-1] and t > 1:
            x = x.reshape(1, t, k)
        x = x.to(dev)
        y = triton_matmul2_transpose(gs, x, qweight, scale, zero, bias=b)
        ref = x.float() @ wd.t() + (b.float() if bias else 0.0)
        errs.append(S.rel_err(y, ref))
    report.append(f"{k}->{n} g{gs}")
S.sync()
print(
    f"mixtral-offloading triton_matmul2_transpose on {len(LAYERS)} layers ({', '.join(report)}), {len(errs)} inputs: "
    f"rel err vs dequantised fp32 max {max(errs):.1e}"
)
