"""Corpus driver (kx's code): FlashInfer's Triton cascade-attention state merging
(flashinfer.triton.cascade, the Triton twins of flashinfer.merge_state*): merge_state of two
partial attention outputs with their log-sum-exp, merge_state_in_place with a per-position
bool mask, merge_states over 16 index sets, and variable_length_merge_states over a ragged
indptr (loop bounds loaded from device memory). fp16 values, fp32 LSEs, 8 heads x 128 dims;
each kernel walks heads and dims with scalar tl.range loops over constexpr bounds."""

import _corpus_support
import torch

_corpus_support.flashinfer_triton_package()
import flashinfer.triton  # noqa: E402,F401  (upstream's test imports the package this way)
from flashinfer.triton import cascade  # noqa: E402

torch.manual_seed(0)
seq_len, num_heads, head_dim = 512, 8, 128
dev = "cuda"

va = torch.randn(seq_len, num_heads, head_dim, device=dev).half()
vb = torch.randn(seq_len, num_heads, head_dim, device=dev).half()
sa = torch.randn(seq_len, num_heads, device=dev)
sb = torch.randn(seq_len, num_heads, device=dev)
v_m, s_m = cascade.merge_state(va, sa, vb, sb)

v, s = va.clone(), sa.clone()
mask = torch.rand(seq_len, device=dev) > 0.25
cascade.merge_state_in_place(v, s, vb, sb, mask=mask)
cascade.merge_state_in_place(v, s, vb, sb)

num_states = 16
vs = torch.randn(seq_len, num_states, num_heads, head_dim, device=dev).half()
ss = torch.randn(seq_len, num_states, num_heads, device=dev)
v_all, s_all = cascade.merge_states(vs, ss)

lengths = torch.randint(1, 48, (seq_len,))
indptr = torch.cat([torch.zeros(1, dtype=torch.int64), lengths.cumsum(0)]).to(device=dev, dtype=torch.int32)
total = int(lengths.sum())
vv = torch.randn(total, num_heads, head_dim, device=dev).half()
sv = torch.randn(total, num_heads, device=dev)
v_var, s_var = cascade.variable_length_merge_states(vv, sv, indptr)
torch.cuda.synchronize()
print(
    "flashinfer triton cascade ok",
    tuple(v_m.shape),
    tuple(v.shape),
    tuple(v_all.shape),
    tuple(v_var.shape),
    round(s_var.float().mean().item(), 4),
)
