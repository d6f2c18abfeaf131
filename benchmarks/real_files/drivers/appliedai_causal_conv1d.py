"""Corpus driver (kx's code): pytorch-labs/applied-ai's Triton causal depthwise conv1d for
Mamba-2 inference (causal_conv1d_fn -> CausalConv1dFn -> @triton.autotune'd
_causal_conv1d_fwd_kernel, 11 configs keyed on (seqlen, dim, batch)), channel-last
activations as the upstream test builds them: bias + SiLU with an nn.Conv1d (d, 1, w)
weight, an initial conv state, and an fp16 call without bias/activation."""

import _corpus_support
import torch

_corpus_support.einops_standin()  # causal_1d_conv.py imports einops.rearrange (3-D weights)
from causal_1d_conv import causal_conv1d_fn  # noqa: E402


def channel_last(batch, seqlen, dim, dtype):
    # (batch, dim, seqlen) view of a (batch, seqlen, dim) buffer: stride(1) == 1
    return torch.randn(batch, seqlen, dim, device="cuda", dtype=dtype).transpose(1, 2)


torch.manual_seed(0)
with torch.no_grad():
    # Mamba-2 (d_inner 2048, d_state 128, ngroups 1): conv over x|B|C = 2304 channels, width 4
    B, L, D, W = 4, 1024, 2304, 4
    conv = torch.nn.Conv1d(D, D, W, groups=D, padding=W - 1, device="cuda", dtype=torch.float32)
    x = channel_last(B, L, D, torch.bfloat16)
    y = causal_conv1d_fn(x, conv.weight, conv.bias, activation="silu")

    # continuing a chunked prefill: the previous chunk's last W-1 inputs as the initial state
    x2 = channel_last(B, 512, D, torch.bfloat16)
    state = channel_last(B, W - 1, D, torch.bfloat16)
    y2 = causal_conv1d_fn(x2, conv.weight.squeeze(1), conv.bias, initial_states=state, activation="silu")

    # fp16, no bias, no activation, a ragged length
    x3 = channel_last(2, 777, 1536, torch.float16)
    w3 = torch.randn(1536, W, device="cuda", dtype=torch.float32)
    y3 = causal_conv1d_fn(x3, w3)
torch.cuda.synchronize()
print("applied-ai causal_conv1d ok", tuple(y.shape), tuple(y2.shape), tuple(y3.shape))
