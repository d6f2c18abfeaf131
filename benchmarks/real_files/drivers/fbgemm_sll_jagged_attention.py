"""Corpus driver (kx's code): FBGEMM's SLL jagged-tensor Triton ops (autograd.Functions over
[H, sum_B, D] values + [B+1] offsets): multi-head jagged flash attention forward and
backward, and jagged softmax forward and backward, at ranking-model sizes."""

import _corpus_support
import torch

_corpus_support.fbgemm_package()
from fbgemm_gpu.sll.triton import jagged_softmax, multi_head_jagged_flash_attention  # noqa: E402

torch.manual_seed(0)
lengths = [300, 512, 17, 1024, 0, 256, 700, 64]
H, D, MAX_LEN = 4, 64, 1024
offsets = torch.tensor([0] + lengths, device="cuda").cumsum(0)
S = sum(lengths)
q, k, v = (torch.randn(H, S, D, device="cuda", dtype=torch.float32, requires_grad=True) for _ in range(3))
o = multi_head_jagged_flash_attention(q, k, v, offsets, MAX_LEN)
o.sum().backward()
x = torch.randn(S, 32, device="cuda", dtype=torch.float32, requires_grad=True)
p = jagged_softmax(x, offsets, MAX_LEN, use_fbgemm_kernel=False)  # the Triton autograd.Function
p.sum().backward()
torch.cuda.synchronize()
print("fbgemm sll jagged attention ok", tuple(o.shape), tuple(p.shape))
