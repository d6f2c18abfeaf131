"""Corpus driver (kx's code): SGLang's Triton merge_state (combine two partial attention
outputs by their log-sum-exp, as cascade / chunked-prefix attention does)."""

import _corpus_support
import torch

_corpus_support.sglang_package()
from sglang.srt.layers.attention.triton_ops.merge_state import merge_state_triton  # noqa: E402

torch.manual_seed(0)
T, H, D = 4096, 32, 128
for dtype in (torch.bfloat16, torch.float16):
    pre, suf = (torch.randn(T, H, D, device="cuda", dtype=dtype) for _ in range(2))
    pre_lse, suf_lse = (torch.randn(T, H, device="cuda", dtype=torch.float32) for _ in range(2))
    out, out_lse = merge_state_triton(pre, pre_lse, suf, suf_lse)
torch.cuda.synchronize()
print("sglang merge state ok", tuple(out.shape), tuple(out_lse.shape))
