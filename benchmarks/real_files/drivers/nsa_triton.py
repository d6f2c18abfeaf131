"""Corpus driver (kx's code): lucidrains/native-sparse-attention-pytorch's Triton native
sparse attention (native_sparse_attend -> NSA autograd.Function: @triton.heuristics'd
forward_kernel and backward_kernel with block-causal + selected fine blocks, GQA query-head
groups, the do.o preprocess, atomic dq/dk/dv and selection-score grads), forward and
backward. First as test_triton_nsa.py runs it: 8 query heads over 2 kv heads, a ragged
507-token sequence, 32-token fine blocks, 2 selected blocks per query with a random mask and
a straight-through sel_scale (host check that it is all ones), fp32 inputs (the Function
casts to fp16). Then as SparseAttention(use_triton_kernel=True) calls it: bf16, 1024
tokens, 64-token blocks, 4 earlier blocks per query, mask = score > 1e-10, no gates.
native_sparse_attention_pytorch/__init__ (flex attention, the model) is skipped; einx and
jaxtyping, imported by the kernel module and its type aliases but unused at run time, are
stubbed where absent."""

import importlib.util

import _corpus_support
import torch

_corpus_support.bare_package(
    "native_sparse_attention_pytorch",
    _corpus_support.find_on_path("native_sparse_attention_pytorch"),
)
_corpus_support.einops_full_standin()  # the module imports einops.reduce
for _name, _attrs in (
    ("einx", {}),
    ("jaxtyping", {"Float": object, "Int": object, "Bool": object}),
):
    if importlib.util.find_spec(_name) is None:
        _corpus_support.stub_module(_name, **_attrs)
from native_sparse_attention_pytorch.triton_native_sparse_attention import native_sparse_attend  # noqa: E402

torch.manual_seed(0)
B, QH, KH, D = 4, 8, 2, 64


def run(n, fine, sel, dtype, sel_scale):
    q = torch.randn(B, QH, n, D, device="cuda", dtype=dtype, requires_grad=True)
    k = torch.randn(B, KH, n, D, device="cuda", dtype=dtype, requires_grad=True)
    v = torch.randn(B, KH, n, D, device="cuda", dtype=dtype, requires_grad=True)
    if sel_scale:  # test_triton_nsa.py: random blocks 0/1, random mask, scale of ones
        indices = torch.randint(0, 2, (B, KH, n, sel), device="cuda")
        mask = torch.randint(0, 2, (B, KH, n, sel), device="cuda").bool()
        scale = torch.ones(B, KH, n, sel, device="cuda", requires_grad=True)
    else:  # the module: top-n strictly earlier blocks (the diagonal block is the causal part)
        cur_block = (torch.arange(n, device="cuda") // fine)[:, None]
        indices = (torch.rand(B, KH, n, sel, device="cuda") * cur_block).long()
        mask = (torch.rand(B, KH, n, sel, device="cuda") > 0.1) & (cur_block > 0)
        scale = None
    out, lse = native_sparse_attend(q, k, v, fine, indices, mask, sel_scale=scale, return_lse=True)
    out.float().sum().backward()
    return out, q.grad, None if scale is None else scale.grad


out, dq, dsel = run(507, 32, 2, torch.float32, sel_scale=True)
out2, dq2, _ = run(1024, 64, 4, torch.bfloat16, sel_scale=False)
torch.cuda.synchronize()
print(
    "native sparse attention ok",
    tuple(out.shape),
    tuple(dq.shape),
    tuple(dsel.shape),
    tuple(out2.shape),
)
