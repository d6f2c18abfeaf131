"""Corpus driver (kx's code): volcengine/verl's blockwise FP8 weight quantization in Triton
(verl/utils/kernel/fp8_kernel.py: scaled_fp8_blockwise -> scaled_fp8_blockwise_triton: zero
padding to whole 128 x 128 blocks, _blockwise_cast_to_fp8_kernel with constexpr block defaults,
launch settings picked from x.is_contiguous(), one program per block writing e4m3 values and a
per-block scale, the padding cropped again) as verl's weight sync to an FP8 vLLM / SGLang rollout
runs it (verl/utils/vllm/vllm_fp8_utils.py: every linear weight of the actor, block size
[128, 128]): the 7 linear weights of 2 Qwen2.5-7B-shaped decoder layers (hidden 3584, 28 heads,
4 kv heads, MLP 18,944) in bf16, a MoE router (64 x 3584: padded rows) and a transposed
(non-contiguous) view; each dequantized and compared with the weight, and with the repo's own
PyTorch fallback (_scaled_fp8_blockwise_pytorch) for the scales."""

import _corpus11_support as S
import torch

S.bare_package("verl")  # not its __init__ (ray, the trainer stack)
from verl.utils.kernel.fp8_kernel import _scaled_fp8_blockwise_pytorch, scaled_fp8_blockwise  # noqa: E402

torch.manual_seed(0)
dev, dt = "cuda", torch.bfloat16
H, KV, MLP, LAYERS = S.pick((3584, 512, 18944, 2), (256, 128, 384, 1))
BLOCK = [128, 128]
shapes = [(H, H), (KV, H), (KV, H), (H, H), (MLP, H), (MLP, H), (H, MLP)] * LAYERS + [(64, H)]
weights = [(torch.randn(*s, device=dev) * 0.02).to(dt) for s in shapes]
weights.append(weights[4].T)  # a transposed view: the non-contiguous launch settings


def dequant(q, scale, shape):
    m, n = shape
    s = scale.repeat_interleave(BLOCK[0], 0).repeat_interleave(BLOCK[1], 1)[:m, :n]
    return q.float() * s


worst, worst_scale = 0.0, 0.0
for w in weights:
    q, scale = scaled_fp8_blockwise(w, BLOCK)
    assert q.shape == w.shape and q.dtype == torch.float8_e4m3fn
    worst = max(worst, S.rel_err(dequant(q, scale, w.shape), w))
    _, ref_scale = _scaled_fp8_blockwise_pytorch(w, BLOCK)
    worst_scale = max(worst_scale, S.rel_err(scale, ref_scale.squeeze(-1)))  # (blocks_m, blocks_n, 1) there
print(f"{len(weights)} weights quantized: worst dequant rel err {worst:.1e}, scale vs pytorch path {worst_scale:.1e}")
torch.cuda.synchronize()
print("verl fp8 blockwise ok")
