"""Corpus driver (kx's code): meta-recsys/generative-recommenders' HSTU attention in Triton
(generative_recommenders/ops/triton/triton_hstu_attention.py: _hstu_attn_fwd / _hstu_attn_bwd
under the repo's own triton_autotune wrapper (common.py: an Autotuner keyed on AUTOTUNE_Z =
prev_power_of_2(batch), AUTOTUNE_MAX_SEQ_LEN, head dims, DeltaSize), the jagged (offsets-based)
layout, SiLU attention scaled by 1 / max_seq_len, causal masks with target-aware masking
(num_targets), contextual prefixes, max_attn_len windows, sort-by-length scheduling, and the
cached "delta" kernel for incremental inference), called through ops/hstu_attention.py's hstu_mha /
delta_hstu_mha with kernel=HammerKernel.TRITON as its tests (ops/tests/hstu_attention_test.py:
test_attn, test_delta_attn, test_cache) call them. Jagged batches made here: lengths drawn per
sequence, seq_offsets from their cumulative sum, `int(seq_offsets[-1].item())` sizing q / k / v.
Four forward + backward cases (bf16 training shapes of 32 x up to 1088 tokens, 4 heads of 128; a
contextual + max_attn_len + sort_by_length case; fp32 and fp16 cases checked against the repo's
PyTorch reference, ops/pytorch/pt_hstu_attention.py, whose fbgemm jagged <-> padded conversions are
stand-ins registered by the support module), then delta attention (fp32 check against the
reference, a bf16 call) and the cache check (the last delta_size tokens of a full Triton forward
equal delta_hstu_mha over the same keys)."""

import random

import _corpus8_support as S
import torch

S.install_fbgemm_jagged_standins()
# ops/hstu_attention.py imports a Meta-internal Blackwell (TLX) kernel unconditionally: a stand-in
S.stub_module(
    "hammer.v2.ops.triton.template.tlx_bw_hstu_attention",
    tlx_bw_hstu_mha_wrapper=S.unavailable("hammer's tlx_bw_hstu_mha_wrapper"),
)
from generative_recommenders.common import HammerKernel, set_dev_mode  # noqa: E402
from generative_recommenders.ops.hstu_attention import delta_hstu_mha, hstu_mha  # noqa: E402
from generative_recommenders.ops.jagged_tensors import split_2D_jagged  # noqa: E402

torch.manual_seed(0)
random.seed(0)
set_dev_mode(True)
torch.backends.cudnn.allow_tf32 = True
torch.backends.cuda.matmul.allow_tf32 = True
dev = "cuda"
TRITON, PYTORCH = HammerKernel.TRITON, HammerKernel.PYTORCH


def jagged_batch(batch, max_uih, max_targets, contextual):
    lengths = torch.randint(max_uih + 1, size=(batch,), device=dev)
    num_targets = torch.randint(1, max_targets + 1, size=(batch,), device=dev)
    lengths = lengths + num_targets + contextual
    max_seq_len = max_uih + max_targets + contextual
    seq_offsets = torch.zeros((batch + 1,), dtype=torch.int64, device=dev)
    seq_offsets[1:] = torch.cumsum(lengths, dim=0)
    return lengths, num_targets, max_seq_len, seq_offsets


def qkv(L, heads, attn_dim, hidden_dim, dtype, grad):
    q, k = (torch.empty((L, heads, attn_dim), dtype=dtype, device=dev).uniform_(-0.1, 0.1) for _ in range(2))
    v = torch.empty((L, heads, hidden_dim), dtype=dtype, device=dev).uniform_(-0.1, 0.1)
    return [t.requires_grad_(grad) for t in (q, k, v)]


def attn_case(
    name,
    batch,
    heads,
    attn_dim,
    hidden_dim,
    max_uih,
    max_targets,
    contextual,
    targets,
    window,
    sort,
    dtype,
    check,
):
    lengths, num_targets, max_seq_len, seq_offsets = jagged_batch(batch, max_uih, max_targets, contextual)
    L = int(seq_offsets[-1].item())
    max_attn_len = random.randint(1, max_uih // 5) if window else 0
    kw = dict(
        max_seq_len=max_seq_len,
        alpha=1.0 / attn_dim**0.5,
        seq_offsets=seq_offsets,
        causal=True,
        num_targets=num_targets if targets else None,
        dropout_pr=0.0,
        max_attn_len=max_attn_len,
        contextual_seq_len=contextual,
    )
    q, k, v = qkv(L, heads, attn_dim, hidden_dim, dtype, True)
    out = hstu_mha(q=q, k=k, v=v, sort_by_length=sort, kernel=TRITON, **kw)
    dout = torch.randn_like(out)
    out.backward(dout)
    msg = f"{name}: L {L} max_seq_len {max_seq_len} out {tuple(out.shape)}"
    if check:
        q2, k2, v2 = (t.detach().clone().requires_grad_() for t in (q, k, v))
        ref = hstu_mha(q=q2, k=k2, v=v2, kernel=PYTORCH, **kw)
        ref.backward(dout)
        errs = [(out - ref).abs().max().item()] + [
            (a.grad - b.grad).abs().max().item() for a, b in ((q, q2), (k, k2), (v, v2))
        ]
        msg += " max err out/dq/dk/dv " + " ".join(f"{e:.2e}" for e in errs)
    print(msg)


B, H, DQ, DV = S.pick((32, 4, 128, 128), (3, 2, 32, 32))
attn_case(
    "bf16 train", B, H, DQ, DV, S.pick(1024, 40), S.pick(64, 4), 0, True, False, False, torch.bfloat16, False
)
attn_case(
    "bf16 contextual+window",
    S.pick(16, 2),
    S.pick(2, 2),
    S.pick(64, 32),
    S.pick(64, 32),
    S.pick(2048, 50),
    S.pick(32, 3),
    S.pick(8, 3),
    True,
    True,
    True,
    torch.bfloat16,
    False,
)
attn_case(
    "fp32 check",
    S.pick(8, 2),
    2,
    64 if not S.small() else 32,
    64 if not S.small() else 32,
    S.pick(256, 30),
    S.pick(16, 4),
    S.pick(4, 2),
    True,
    True,
    False,
    torch.float32,
    True,
)
attn_case(
    "fp16 check",
    S.pick(8, 2),
    S.pick(4, 2),
    DQ,
    DV,
    S.pick(300, 33),
    S.pick(8, 3),
    0,
    False,
    False,
    True,
    torch.float16,
    True,
)


def delta_case(
    name, batch, heads, attn_dim, hidden_dim, max_uih, delta_size, contextual, window, dtype, check
):
    lengths = torch.randint(max_uih + 1, size=(batch,), device=dev) + delta_size + contextual
    num_targets = torch.randint(1, delta_size + 1, size=(batch,), device=dev)
    max_seq_len = max_uih + delta_size + contextual
    seq_offsets = torch.zeros((batch + 1,), dtype=torch.int64, device=dev)
    seq_offsets[1:] = torch.cumsum(lengths, dim=0)
    L = int(seq_offsets[-1].item())
    delta_q = torch.empty((batch * delta_size, heads, attn_dim), dtype=dtype, device=dev).uniform_(-0.1, 0.1)
    _, k, v = qkv(L, heads, attn_dim, hidden_dim, dtype, False)
    kw = dict(
        max_seq_len=max_seq_len,
        alpha=1.0 / attn_dim**0.5,
        delta_q=delta_q,
        k=k,
        v=v,
        seq_offsets=seq_offsets,
        num_targets=num_targets,
        max_attn_len=random.randint(1, max_uih // 5) if window else 0,
        contextual_seq_len=contextual,
    )
    out = delta_hstu_mha(kernel=TRITON, **kw)
    msg = f"{name}: L {L} delta {tuple(out.shape)}"
    if check:
        msg += f" max err {(out - delta_hstu_mha(kernel=PYTORCH, **kw)).abs().max().item():.2e}"
    print(msg)


with torch.no_grad():
    delta_case(
        "delta fp32 check",
        S.pick(8, 2),
        2,
        S.pick(64, 32),
        S.pick(64, 32),
        S.pick(512, 30),
        S.pick(16, 4),
        S.pick(6, 2),
        True,
        torch.float32,
        True,
    )
    delta_case("delta bf16", B, H, DQ, DV, S.pick(2000, 40), S.pick(20, 4), 0, False, torch.bfloat16, False)

    # the cache check (test_cache): delta attention equals the last delta_size rows of a full forward
    batch, heads, attn_dim, hidden_dim = S.pick((8, 2, 64, 64), (2, 2, 32, 32))
    max_uih, delta_size, contextual = S.pick((400, 10, 4), (30, 3, 2))
    lengths = torch.randint(max_uih + 1, size=(batch,), device=dev) + delta_size + contextual
    num_targets = torch.randint(1, delta_size + 1, size=(batch,), device=dev)
    max_seq_len = max_uih + delta_size + contextual
    seq_offsets = torch.zeros((batch + 1,), dtype=torch.int64, device=dev)
    seq_offsets[1:] = torch.cumsum(lengths, dim=0)
    L = int(seq_offsets[-1].item())
    q, k, v = qkv(L, heads, attn_dim, hidden_dim, torch.float32, False)
    prime_offsets = torch.ops.fbgemm.asynchronous_complete_cumsum(lengths - delta_size)
    split = dict(
        max_seq_len=max_seq_len,
        max_len_left=None,
        max_len_right=delta_size,
        offsets_left=prime_offsets,
        offsets_right=None,
        kernel=TRITON,
    )
    _, delta_q = split_2D_jagged(values=q.view(-1, heads * attn_dim), **split)
    full = hstu_mha(
        max_seq_len=max_seq_len,
        alpha=1.0 / attn_dim**0.5,
        q=q,
        k=k,
        v=v,
        seq_offsets=seq_offsets,
        causal=True,
        num_targets=num_targets,
        dropout_pr=0.0,
        contextual_seq_len=contextual,
        kernel=TRITON,
    )
    _, want = split_2D_jagged(values=full.view(-1, heads * hidden_dim), **split)
    got = delta_hstu_mha(
        max_seq_len=max_seq_len,
        alpha=1.0 / attn_dim**0.5,
        delta_q=delta_q.view(-1, heads, attn_dim),
        k=k,
        v=v,
        seq_offsets=seq_offsets,
        num_targets=num_targets,
        contextual_seq_len=contextual,
        kernel=TRITON,
    )
    print("cache check max err", f"{(want.view_as(got) - got).abs().max().item():.2e}")
torch.cuda.synchronize()
print("generative-recommenders hstu attention ok")
