"""Corpus driver (kx's code): ring-flash-attention's Triton varlen LSE kernels
(ring_flash_attn/triton_utils.py: flatten_varlen_lse / unflatten_varlen_lse, which
ring_flash_attn_varlen.py and zigzag_ring_flash_attn_varlen.py import in preference to the
TorchScript versions in utils.py). flatten turns flash-attn's padded (batch, heads, max_seqlen)
LSE into the packed (heads, total_tokens) layout that update_out_and_lse merges across ring
steps (output size read on the host from cu_seqlens[-1]); unflatten restores the padded layout
at the end. Grids are lambdas reading BLOCK_M, which the wrappers pass positionally.

The ring loop of zigzag_ring_flash_attn_varlen_forward is replayed on one GPU for a world of
4 ranks: each step's (block_out, padded block_lse) comes from a torch varlen attention over the
KV shard that step would receive (flash_attn's CUDA kernels and the process group are absent
here), then flatten_varlen_lse -> utils.update_out_and_lse (TorchScript, upstream) ->
unflatten_varlen_lse, checked against the TorchScript flatten / unflatten, as upstream's
test/test_triton_kernels.py does. Packed bf16 sequences of lengths 15..1024, 16 heads, dim 128."""

import _corpus_support
import torch

_corpus_support.bare_package("ring_flash_attn", _corpus_support.find_on_path("ring_flash_attn"))
from ring_flash_attn import utils as ring_utils  # noqa: E402
from ring_flash_attn.triton_utils import flatten_varlen_lse, unflatten_varlen_lse  # noqa: E402

torch.manual_seed(0)
dev = "cuda"
WORLD, H, D = 4, 16, 128
lens = [15, 141, 373, 1024, 512]
cu_seqlens = torch.tensor([0] + lens, device=dev).cumsum(0).to(torch.int32)
max_seqlen = int((cu_seqlens[1:] - cu_seqlens[:-1]).max().item())
total = int(cu_seqlens[-1])
q = torch.randn(total, H, D, device=dev, dtype=torch.bfloat16)


def varlen_block_attention(q, k, v):
    """A stand-in for flash_attn's _flash_attn_varlen_forward (non-causal, one KV shard):
    packed out (total, H, D) and the padded LSE (batch, H, max_seqlen) older flash-attn returns."""
    out = torch.empty_like(q)
    lse = torch.zeros(len(lens), H, max_seqlen, device=dev, dtype=torch.float32)
    for i, (s, e) in enumerate(zip(cu_seqlens[:-1].tolist(), cu_seqlens[1:].tolist())):
        qi, ki, vi = (t[s:e].transpose(0, 1).float() for t in (q, k, v))  # (H, L, D)
        scores = qi @ ki.transpose(-1, -2) * D**-0.5
        lse[i, :, : e - s] = scores.logsumexp(-1)
        out[s:e] = (scores.softmax(-1) @ vi).transpose(0, 1).to(q.dtype)
    return out, lse


out, lse = None, None
for _step in range(WORLD):  # the KV shard each ring step would receive
    k = torch.randn_like(q)
    v = torch.randn_like(q)
    block_out, block_lse = varlen_block_attention(q, k, v)
    flat = flatten_varlen_lse(block_lse, cu_seqlens=cu_seqlens)
    assert torch.equal(flat, ring_utils.flatten_varlen_lse(block_lse, cu_seqlens))
    out, lse = ring_utils.update_out_and_lse(out, lse, block_out, flat)

out = out.to(q.dtype)
padded_lse = unflatten_varlen_lse(lse, cu_seqlens, max_seqlen)
reference = ring_utils.unflatten_varlen_lse(lse, cu_seqlens, max_seqlen)
for i, n in enumerate(lens):
    assert torch.equal(padded_lse[i, :, :n], reference[i, :, :n])

torch.cuda.synchronize()
print("ring varlen lse ok", tuple(out.shape), tuple(lse.shape), tuple(padded_lse.shape))
