"""Corpus driver (kx's code): GPTQModel's TritonV2 GPTQ backend
(gptqmodel/nn_modules/triton_utils/dequant.py): QuantLinearFunction, the autograd.Function
TritonV2Linear.forward applies, dequantizes the packed GPTQ (v2 format) weight with the
@triton.autotune'd dequant_kernel (key numels; out_dtype / pack_bits / maxq / bits /
out_features / num_groups as constexprs, a tl.static_assert'd 3-bit 10-1-10-1-10 word
layout, a generic 2/4/8-bit shift-and-mask path) and multiplies with torch. Inference only:
TritonV2Linear takes this path in eval mode (in training it falls back to TorchLinear), and
QuantLinearFunction.backward returns 7 gradients for its 8 inputs, so autograd rejects it.

Checkpoint-shaped buffers (random packed words, fp16 / bf16 scales, g_idx) for the layer
configurations GPTQModel quantizes to, on a 4096 x 4096 projection:
4-bit group 128 with desc_act (permuted g_idx), fp16 activations; 3-bit group 128 (bf16);
8-bit per-channel (group_size -1: one group, zero g_idx); 2-bit group 64; 4-bit packed in
int16 words (pack_dtype=torch.int16, pack_bits 16). Each runs a prefill batch (4 x 256 tokens)
and a decode step (4 tokens) under torch.inference_mode()."""

import _corpus_support
import torch

_corpus_support.gptqmodel_triton()
from gptqmodel.nn_modules.triton_utils.dequant import QuantLinearFunction  # noqa: E402

torch.manual_seed(0)
dev = "cuda"
IN = OUT = 4096


def gptq_buffers(bits, group_size, pack_dtype, dtype, desc_act=False):
    pack_bits = torch.iinfo(pack_dtype).bits
    groups = 1 if group_size == -1 else IN // group_size
    if bits == 3:  # 32 values in 3 words
        w_rows, z_cols = IN // 32 * 3, OUT // 32 * 3
    else:
        w_rows, z_cols = IN // (pack_bits // bits), OUT // (pack_bits // bits)
    info = torch.iinfo(pack_dtype)
    qweight = torch.randint(info.min, info.max, (w_rows, OUT), device=dev, dtype=pack_dtype)
    qzeros = torch.randint(info.min, info.max, (groups, z_cols), device=dev, dtype=pack_dtype)
    scales = (torch.rand(groups, OUT, device=dev) * 0.01 + 1e-3).to(dtype)
    g_idx = torch.arange(IN, device=dev, dtype=torch.int32) // (IN if group_size == -1 else group_size)
    if desc_act:
        g_idx = g_idx[torch.randperm(IN, device=dev)]
    return qweight, scales, qzeros, g_idx, bits, pack_bits, 2**bits - 1


configs = [
    (4, 128, torch.int32, torch.float16, True),
    (3, 128, torch.int32, torch.bfloat16, False),
    (8, -1, torch.int32, torch.float16, False),
    (2, 64, torch.int32, torch.float16, False),
    (4, 128, torch.int16, torch.float16, False),
]
shapes = []
with torch.inference_mode():
    for bits, gs, pack, dtype, desc in configs:
        buffers = gptq_buffers(bits, gs, pack, dtype, desc)
        for tokens in (256, 1):  # prefill, decode
            x = torch.randn(4, tokens, IN, device=dev, dtype=dtype)
            y = QuantLinearFunction.apply(x.reshape(-1, IN), *buffers).reshape(4, tokens, OUT)
            shapes.append((bits, tuple(y.shape)))

torch.cuda.synchronize()
print("gptqmodel tritonv2 ok", shapes)
