"""Corpus driver (kx's code): meta-recsys/generative-recommenders' HSTU attention in Triton
(generative_recommenders/ops/triton/triton_hstu_attention.py: _hstu_attn_fwd / _hstu_attn_bwd
under the repo's own triton_autotune wrapper (common.py: an Autotuner keyed on AUTOTUNE_Z =
prev_power_of_2(batch), AUTOTUNE_MAX_SEQ_LEN, the head dims, DeltaSize, IS_DELTA_Q; 29 forward and
20 backward configs), the jagged (offsets-based) layout, SiLU attention scaled by 1 / max_seq_len,
causal masks with target-aware masking (num_targets), contextual prefixes, max_attn_len windows and
sort-by-length scheduling as constexpr variants), called through ops/hstu_attention.py's hstu_mha
with kernel=HammerKernel.TRITON as its tests (ops/tests/hstu_attention_test.py: test_attn) call
it. Jagged batches made here: lengths drawn per sequence, seq_offsets from their cumulative sum,
`int(seq_offsets[-1].item())` sizing q / k / v. Two bf16 forward + backward cases sharing one
autotuning key (32 and 40 sequences of up to 1088 / 536 tokens, 4 heads of 128): a plain
target-aware training shape, then contextual prefix + max_attn_len window + sort_by_length, whose
output and q / k / v gradients are compared with the repo's PyTorch reference
(ops/pytorch/pt_hstu_attention.py, whose fbgemm jagged <-> padded conversions are stand-ins
registered by the support module). The cached delta attention is driven by gr_stu_train."""

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
from generative_recommenders.ops.hstu_attention import hstu_mha  # noqa: E402

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
        pairs = ((out, ref), (q.grad, q2.grad), (k.grad, k2.grad), (v.grad, v2.grad))
        errs = [((a.float() - b.float()).abs().max() / b.float().abs().max()).item() for a, b in pairs]
        msg += " rel err out/dq/dk/dv " + " ".join(f"{e:.2e}" for e in errs)
    print(msg)


# Both cases share one autotuning key (AUTOTUNE_Z = prev_power_of_2(batch) = 32, 4 heads of 128,
# bf16): the tuner runs once for the forward and once for the backward, and the second case only
# compiles its own constexpr variant (every autotuning session compiles each of 29 / 20 configs).
H, D = S.pick((4, 128), (2, 32))
attn_case(
    "bf16 train",
    S.pick(32, 3),
    H,
    D,
    D,
    S.pick(1024, 40),
    S.pick(64, 4),
    0,
    True,
    False,
    False,
    torch.bfloat16,
    False,
)
attn_case(
    "bf16 contextual+window+sort, checked",
    S.pick(40, 3),
    H,
    D,
    D,
    S.pick(512, 30),
    S.pick(16, 4),
    S.pick(8, 2),
    True,
    True,
    True,
    torch.bfloat16,
    True,
)
torch.cuda.synchronize()
print("generative-recommenders hstu attention ok")
