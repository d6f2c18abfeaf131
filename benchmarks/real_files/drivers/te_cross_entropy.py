"""Corpus driver (kx's code): TransformerEngine's fused Triton cross entropy
(transformer_engine.pytorch.cross_entropy.parallel_cross_entropy -> CrossEntropyFunction over
transformer_engine/common/triton/cross_entropy.py: online_softmax_kernel, cross_entropy_kernel
with reduce_loss / label_smoothing as constexprs, element_mul_kernel; 32 warps, BLOCK_SIZE
min(32768, next_pow2(V))), forward and backward, on one GPU (dist_process_group=None).

1. Qwen-sized vocabulary (151936, looped in 32768-wide blocks), bf16 logits (B, SQ, V),
   label smoothing 0.1, per-token losses (reduce_loss=False) with ignored (-100) targets, and a
   non-uniform upstream gradient (the element_mul_kernel path);
2. Llama-2 vocabulary (32000), fp32 logits laid out (SQ, B, V) as Megatron passes them,
   mean loss (reduce_loss=True), a custom ignore_idx, backward with grad 1.0 (the kernel-free
   path, decided on the host with torch.equal);
3. the same with is_cg_capturable=True (element_mul_kernel even for a scalar gradient)."""

import _corpus_support
import torch

_corpus_support.transformer_engine_triton()
from transformer_engine.pytorch.cross_entropy import parallel_cross_entropy  # noqa: E402

torch.manual_seed(0)
dev = "cuda"

# 1. bf16, large vocab, label smoothing, unreduced
B, SQ, V = 2, 512, 151936
logits = torch.randn(B, SQ, V, device=dev, dtype=torch.bfloat16, requires_grad=True)
target = torch.randint(0, V, (B, SQ), device=dev)
target[:, -64:] = -100  # padding
loss = parallel_cross_entropy(logits, target, label_smoothing=0.1, reduce_loss=False)
mask = (target != -100).float()
(loss * mask).sum().div(mask.sum()).backward()

# 2. fp32 (SQ, B, V), mean loss, custom ignore index, grad_output == 1.0
SQ2, B2, V2 = 1024, 4, 32000
logits2 = torch.randn(SQ2, B2, V2, device=dev, requires_grad=True)
target2 = torch.randint(0, V2, (SQ2, B2), device=dev)
target2[::7] = 0  # token 0 ignored
loss2 = parallel_cross_entropy(logits2, target2, 0.0, True, None, ignore_idx=0)
loss2.backward()

# 3. CUDA-graph-capturable backward
logits3 = logits2.detach().clone().requires_grad_(True)
loss3 = parallel_cross_entropy(logits3, target2, 0.0, True, None, 0, is_cg_capturable=True)
loss3.backward()

torch.cuda.synchronize()
print(
    "te cross entropy ok",
    tuple(loss.shape),
    round(loss2.item(), 4),
    round(loss3.item(), 4),
    tuple(logits.grad.shape),
    tuple(logits3.grad.shape),
)
