"""Corpus driver (kx's code): flash-attention's Triton cross-entropy (CrossEntropyLoss
autograd.Function): a 128k vocabulary with label smoothing, z-loss and ignore_index, and
the in-place backward that overwrites the logits with their gradient."""

import _corpus_support
import torch

_corpus_support.flash_attn_package()
from flash_attn.ops.triton.cross_entropy import cross_entropy_loss  # noqa: E402

torch.manual_seed(0)
N, V = 4096, 128256
logits = torch.randn(N, V, device="cuda", dtype=torch.bfloat16, requires_grad=True)
labels = torch.randint(0, V, (N,), device="cuda")
labels[::7] = -100
loss, z = cross_entropy_loss(logits, labels, label_smoothing=0.1, lse_square_scale=1e-4)
loss.sum().backward()
logits2 = torch.randn(N, 32000, device="cuda", dtype=torch.float32, requires_grad=True)
loss2, _ = cross_entropy_loss(logits2, labels % 32000, logit_scale=0.5, inplace_backward=True)
loss2.mean().backward()
torch.cuda.synchronize()
print("flash_attn cross_entropy ok", tuple(loss.shape), tuple(logits.grad.shape))
