"""Corpus driver (kx's code): SGLang's Triton prefill attention (context_attention_fwd) on a
varlen batch (b_start_loc / b_seq_len), causal and bidirectional (vision encoder style)."""

import _corpus_support
import torch

_corpus_support.sglang_package()
from sglang.srt.layers.attention.triton_ops.prefill_attention import context_attention_fwd  # noqa: E402

torch.manual_seed(0)
seq_lens = [1024, 300, 2048, 7]
T, H, D = sum(seq_lens), 32, 128
b_start_loc = torch.tensor([0] + seq_lens[:-1], device="cuda").cumsum(0).to(torch.int32)
b_seq_len = torch.tensor(seq_lens, device="cuda", dtype=torch.int32)
q, k, v = (torch.randn(T, H, D, device="cuda", dtype=torch.bfloat16) for _ in range(3))
o = torch.empty_like(q)
context_attention_fwd(q, k, v, o, b_start_loc, b_seq_len, max(seq_lens), is_causal=True)
q80, k80, v80 = (
    torch.randn(T, 16, 80, device="cuda", dtype=torch.float16) for _ in range(3)
)  # ViT head dim 80
o80 = torch.empty_like(q80)
context_attention_fwd(q80, k80, v80, o80, b_start_loc, b_seq_len, max(seq_lens), is_causal=False)
torch.cuda.synchronize()
print("sglang prefill attention ok", tuple(o.shape), tuple(o80.shape))
