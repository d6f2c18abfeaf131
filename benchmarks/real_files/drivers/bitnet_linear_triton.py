"""Corpus driver (kx's code): yukikotani231/bitnet-triton's BitLinearTriton (bitnet_triton/ops.py:
pack_weights() quantises the fp32 weight to {-1, 0, 1} with a per-row absmean scale and packs 16
2-bit codes per int32 on the CPU (bitnet_triton/packing.py), then forward calls
kernels.bitnet_matmul, which flattens the input to 2-D and launches
_bitnet_matmul_small_batch_kernel (five autotune configs) for M <= 32 tokens and
_bitnet_matmul_kernel (eight configs) otherwise, both keyed on M / N / K: per K block the packed
words are gathered at offs_k // 16, shifted by (offs_k % 16) * 2 and masked to 2 bits, the fp32
ternary tile goes through tl.trans into tl.dot (allow_tf32) and the per-row scale multiplies the
accumulator; the output is allocated in the input's dtype). The driver converts LLaMA-7B-shaped
projections (4096 -> 4096, 4096 -> 11008, 11008 -> 4096) plus one K that is not a multiple of 16
(1000 -> 768, padded at packing, masked in the kernel) into BitLinearTriton layers and runs fp16,
bf16 and fp32 activations of 1 .. 512 tokens (2-D and 3-D); compared with x @ W_ternary^T in fp32
(kx's absmean reference), and the training path (the STE forward) against the packed path."""

import _corpus23_support as S
import torch
from bitnet_triton import BitLinearTriton  # noqa: E402

torch.manual_seed(0)
dev = S.device()
SHAPES = S.pick([(4096, 4096), (4096, 11008), (11008, 4096), (1000, 768)], [(64, 48), (40, 32)])
TOKENS = S.pick([1, 7, 32, 33, 128, 512], [1, 5, 40])
DTYPES = S.pick([torch.float16, torch.bfloat16, torch.float32], [torch.float32])

errs, ste = {}, []
for k, n, w in S.bitnet_layers(SHAPES, dev):
    layer = BitLinearTriton(k, n).to(dev)
    layer.weight.data.copy_(w)
    x0 = torch.randn(4, k, device=dev)
    y_train = layer(x0)  # unpacked: STE training path (activation absmax scaling, F.linear)
    layer.pack_weights()
    ref_w = S.ternary_ref(w)
    ste.append(S.rel_err(layer(x0), x0 @ ref_w.t()))
    for m in TOKENS:
        for dt in DTYPES:
            x = torch.randn(m, k, device=dev, dtype=dt)
            if m % 2 == 0 and m > 2:
                x = x.view(2, m // 2, k)
            y = layer(x)
            key = f"{'small' if m <= 32 else 'main'}/{str(dt)[6:]}"
            errs[key] = max(errs.get(key, 0.0), S.rel_err(y, x.float() @ ref_w.t()))
S.sync()
print(
    f"bitnet-triton BitLinearTriton on {len(SHAPES)} layers x {len(TOKENS)} token counts: rel err vs ternary fp32 "
    + ", ".join(f"{k} {v:.1e}" for k, v in sorted(errs.items()))
    + f"; packed fp32 path vs ref max {max(ste):.1e}; STE train-path output norm {y_train.norm():.3f}"
)
