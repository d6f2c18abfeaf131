"""Corpus driver (kx's code): triton-lang/kernels' flash attention (kernels/flash_attention.py,
the former triton.ops.attention: _fwd_kernel, _bwd_preprocess and _bwd_kernel with
_bwd_kernel_one_col_block, exp2-domain softmax, an optional sequence-parallel backward that
accumulates dq with atomics) called as test/test_flash_attention.py's test_op does:
`attention(q, k, v, causal, sm_scale, sequence_parallel)` then `out.backward(dout)`. fp16 and
bf16, causal and not, sequence_parallel off and on, head dims 64 and 128, 4 x 16 heads x 2048
tokens and 2 x 32 heads x 1024."""

import _corpus6_support as S
import torch
from kernels.flash_attention import attention

torch.manual_seed(20)
dev = "cuda"
for Z, H, N, D in S.pick(((4, 16, 2048, 64), (2, 32, 1024, 128)), ((1, 2, 128, 64),)):
    for dtype in (torch.float16, torch.bfloat16):
        for causal in (True, False):
            for seq_par in (False, True):
                q, k, v = (
                    torch.empty((Z, H, N, D), dtype=dtype, device=dev).normal_(0.0, 0.5).requires_grad_()
                    for _ in range(3)
                )
                out = attention(q, k, v, causal, D**-0.5, seq_par)
                out.backward(torch.randn_like(q))
                print((Z, H, N, D), dtype, causal, seq_par, tuple(q.grad.shape))
torch.cuda.synchronize()
print("triton-lang kernels flash attention ok")
