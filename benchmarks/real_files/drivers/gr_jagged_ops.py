"""Corpus driver (kx's code): meta-recsys/generative-recommenders' jagged-tensor and normalisation
Triton kernels, called through the repo's dispatchers with kernel=HammerKernel.TRITON as its op
tests (ops/tests/jagged_tensors_test.py, layer_norm_test.py, position_test.py, mm_test.py) call
them, forward and backward: ops/triton/triton_jagged.py (jagged_dense_bmm_broadcast_add: per-
sequence jagged x dense + bias with its jagged-jagged reduce-sum backward; concat_2D_jagged /
split_2D_jagged with offsets or a fixed max length on either side; hstu_concat_l2_embeddings /
hstu_split_l2_embeddings moving a contextual prefix; the multirow concat / split variants),
triton_position.py (add_timestamp_positional_embeddings: position and sqrt / log time-bucket
embeddings by jagged offsets, with num_targets and interleaved targets, and its atomic-add
backward), triton_layer_norm.py (layer_norm, swish_layer_norm, rms_norm with and without SiLU, the
weight / bias gradients reduced in a second kernel) and triton_addmm.py (the addmm
torch.autograd.Function of the STU linear layers). All under the repo's triton_autotune (an
Autotuner keyed on shapes; the jagged ones on a power-of-2 bucket of max_seq_len). Jagged batches
are made here (64 sequences up to 1000 tokens, d 256, bf16 and fp32), offsets from a cumulative
sum and sizes from `.item()` of it; fp32 results of the jagged ops and norms are checked against
the repo's PyTorch paths (ops/pytorch/, whose fbgemm jagged <-> padded conversions are stand-ins
registered by the support module)."""

import _corpus8_support as S
import torch

S.install_fbgemm_jagged_standins()
from generative_recommenders.common import HammerKernel, set_dev_mode  # noqa: E402
from generative_recommenders.ops.jagged_tensors import (  # noqa: E402
    concat_2D_jagged,
    concat_2D_jagged_multirow,
    hstu_concat_l2_embeddings,
    hstu_split_l2_embeddings,
    jagged_dense_bmm_broadcast_add,
    split_2D_jagged,
    split_2D_jagged_multirow,
)
from generative_recommenders.ops.layer_norm import layer_norm, rms_norm, swish_layer_norm  # noqa: E402
from generative_recommenders.ops.mm import addmm  # noqa: E402
from generative_recommenders.ops.position import add_timestamp_positional_embeddings  # noqa: E402

torch.manual_seed(0)
set_dev_mode(True)
dev = "cuda"
TRITON, PYTORCH = HammerKernel.TRITON, HammerKernel.PYTORCH
cumsum = torch.ops.fbgemm.asynchronous_complete_cumsum
B, MAX_LEN, D = S.pick((64, 1000, 256), (3, 12, 32))


def jagged(max_len, dim, dtype, lo=0):
    lengths = torch.randint(lo, max_len + 1, (B,), device=dev)
    offsets = cumsum(lengths)
    values = torch.randn(int(offsets[-1].item()), dim, device=dev, dtype=dtype).requires_grad_()
    return lengths, offsets, values


def both(fn, inputs, **kw):
    """Run `fn` with the Triton and PyTorch kernels on copies of `inputs`; backward of a random
    cotangent; the largest differences of the outputs and of the input gradients."""
    outs, grads, cot = [], [], None
    for kernel in (TRITON, PYTORCH):
        xs = [t.detach().clone().requires_grad_(t.requires_grad) for t in inputs]
        out = fn(*xs, kernel=kernel, **kw)
        out = out if isinstance(out, tuple) else (out,)
        cot = cot or [torch.randn_like(o) for o in out]
        torch.autograd.backward(out, cot)
        outs.append(out)
        grads.append([x.grad for x in xs if x.requires_grad])
    err = max((a - b).abs().max().item() for a, b in zip(outs[0], outs[1], strict=True))
    gerr = max((a - b).abs().max().item() for a, b in zip(grads[0], grads[1], strict=True))
    return f"out err {err:.1e} grad err {gerr:.1e}"


# jagged x dense + bias, per sequence (the HSTU contextual / action MLPs). N == K, so the backward's
# jagged x dense^T reuses the forward's tuned config (each autotuning session compiles 48 configs)
lengths, offsets, jag = jagged(MAX_LEN, D, torch.float32)
dense = torch.randn(B, D, D, device=dev).requires_grad_()
bias = torch.randn(B, D, device=dev).requires_grad_()
max_seq_len = int(lengths.max().item())
print(
    "jagged_dense_bmm_broadcast_add",
    both(
        lambda s, j, d, b, kernel: jagged_dense_bmm_broadcast_add(max_seq_len, s, j, d, b, kernel=kernel),
        [offsets, jag, dense, bias],
    ),
)

# concat / split of two jagged tensors (user history + targets), and the fixed-length variants
len_l, off_l, left = jagged(MAX_LEN, D, torch.float32)
len_r, off_r, right = jagged(S.pick(40, 4), D, torch.float32, lo=1)
max_seq_len = int((len_l + len_r).max().item())
print(
    "concat_2D_jagged",
    both(
        lambda a, b, kernel: concat_2D_jagged(
            max_seq_len, a, b, offsets_left=off_l, offsets_right=off_r, kernel=kernel
        ),
        [left, right],
    ),
)
fixed = torch.randn(B * 8, D, device=dev, requires_grad=True)
print(
    "concat_2D_jagged dense right",
    both(
        lambda a, b, kernel: concat_2D_jagged(
            max_seq_len + 8, a, b, max_len_right=8, offsets_left=off_l, offsets_right=None, kernel=kernel
        ),
        [left, fixed],
    ),
)
both_off = off_l + off_r
values = torch.randn(int(both_off[-1].item()), D, device=dev, requires_grad=True)
print(
    "split_2D_jagged",
    both(
        lambda v, kernel: split_2D_jagged(
            max_seq_len, v, offsets_left=off_l, offsets_right=off_r, kernel=kernel
        ),
        [values],
    ),
)
fixed_values = torch.randn(int(off_l[-1].item()) + B * 8, D, device=dev, requires_grad=True)
print(
    "split_2D_jagged dense right",
    both(
        lambda v, kernel: split_2D_jagged(
            max_seq_len + 8, v, max_len_right=8, offsets_left=off_l, offsets_right=None, kernel=kernel
        ),
        [fixed_values],
    ),
)

# the contextual-prefix moves of the L2 embeddings (test_hstu_split_l2_embeddings' layout)
CTX, MAX_L2, MAX_T = S.pick((6, 30, 20), (2, 3, 3))
num_targets = torch.randint(1, MAX_T + 1, (B,), device=dev)
x_lengths = num_targets + torch.randint(0, MAX_LEN + 1, (B,), device=dev) + CTX
x_offsets = cumsum(x_lengths)
x = torch.empty(int(x_offsets[-1].item()), D, device=dev).uniform_(-1.0, 1.0).requires_grad_()
prefix_lengths = torch.clamp(x_lengths - MAX_L2 - num_targets - CTX, min=0)
prefix_offsets = cumsum(prefix_lengths)
l2_offsets = x_offsets - prefix_offsets
l2_max_seq_len = MAX_LEN + MAX_T + CTX
print(
    "hstu_split_l2_embeddings",
    both(
        lambda x, kernel: hstu_split_l2_embeddings(
            l2_max_seq_len, x, prefix_offsets, l2_offsets, CTX, kernel=kernel
        ),
        [x],
    ),
)
prefix_x, l2_x = hstu_split_l2_embeddings(l2_max_seq_len, x, prefix_offsets, l2_offsets, CTX, kernel=TRITON)
max_prefix = int(prefix_lengths.max().item())
max_l2 = int((l2_offsets[1:] - l2_offsets[:-1]).max().item())
print(
    "hstu_concat_l2_embeddings",
    both(
        lambda p, q, kernel: hstu_concat_l2_embeddings(
            max_prefix, p, prefix_offsets, max_l2, q, l2_offsets, CTX, kernel=kernel
        ),
        [prefix_x.detach().requires_grad_(), l2_x.detach().requires_grad_()],
    ),
)
joined = hstu_concat_l2_embeddings(
    max_prefix, prefix_x, prefix_offsets, max_l2, l2_x, l2_offsets, CTX, kernel=TRITON
)
print("l2 round trip err", f"{(joined - x).abs().max().item():.1e}")
multi = concat_2D_jagged_multirow(
    max_seq_len, left, right, off_l, off_r, int(len_l.max().item()), int(len_r.max().item())
)
a, b = split_2D_jagged_multirow(max_seq_len, multi, offsets_left=off_l, offsets_right=off_r)
(a.sum() + 2 * b.sum()).backward()
ref = concat_2D_jagged(max_seq_len, left, right, offsets_left=off_l, offsets_right=off_r, kernel=TRITON)
print(
    "multirow concat / split",
    f"err {(multi - ref).abs().max().item():.1e}",
    f"round trip {(a - left).abs().max().item():.1e}",
)

# timestamp + position embeddings of jagged sequences, with targets (plain and interleaved)
MAX_POS, CTX_POS = S.pick((1024, 6), (24, 2))
pos_w = torch.randn(MAX_POS, D, device=dev, requires_grad=True)
ts_w = torch.randn(2049, D, device=dev, requires_grad=True)
for interleave, bucket, dtype in ((False, "sqrt", torch.float32), (True, "log", torch.float32)):
    lengths = torch.randint(2, S.pick(500, 10) + 1, (B,), device=dev)
    num_targets = torch.randint(1, 3, (B,), device=dev) * (2 if interleave else 1)
    lengths = lengths + num_targets
    offsets = cumsum(lengths)
    total = int(offsets[-1].item())
    ts = torch.cumsum(torch.randint(0, 86400, (total,), device=dev), 0)
    emb = torch.randn(total, D, device=dev, dtype=dtype, requires_grad=True)
    out = add_timestamp_positional_embeddings(
        alpha=D**0.5,
        max_seq_len=MAX_POS,
        max_contextual_seq_len=CTX_POS,
        position_embeddings_weight=pos_w,
        timestamp_embeddings_weight=ts_w,
        seq_offsets=offsets,
        seq_lengths=lengths,
        seq_embeddings=emb,
        timestamps=ts,
        num_targets=num_targets,
        interleave_targets=interleave,
        time_bucket_fn=bucket,
        kernel=TRITON,
    )
    out.float().square().mean().backward()
    print("timestamp positional", bucket, dtype, tuple(out.shape), f"|dpos| {pos_w.grad.norm().item():.3f}")

# the norms and the addmm of the STU layers
rows = S.pick(8192, 37)
w = torch.randn(D, device=dev, requires_grad=True)
bn = torch.randn(D, device=dev, requires_grad=True)
xn = torch.randn(rows, D, device=dev, requires_grad=True)
print("layer_norm", both(lambda x, w, b, kernel: layer_norm(x, w, b, 1e-6, kernel=kernel), [xn, w, bn]))
print(
    "swish_layer_norm",
    both(lambda x, w, b, kernel: swish_layer_norm(x, w, b, 1e-6, kernel=kernel), [xn, w, bn]),
)
print("rms_norm", both(lambda x, w, kernel: rms_norm(x, w, 1e-6, kernel=kernel), [xn, w]))
print("rms_norm silu", both(lambda x, w, kernel: rms_norm(x, w, 1e-6, kernel=kernel, silu=True), [xn, w]))
xb = xn.detach().bfloat16().requires_grad_()
yb = swish_layer_norm(xb, w.detach().bfloat16(), bn.detach().bfloat16(), 1e-6, kernel=TRITON)
yb.float().sum().backward()
mat = torch.randn(D, S.pick(1024, 48), device=dev, requires_grad=True)
bias = torch.randn(S.pick(1024, 48), device=dev, requires_grad=True)
torch.backends.cuda.matmul.allow_tf32 = False
print("addmm fp32", both(lambda b, x, m, kernel: addmm(b, x, m, kernel=kernel), [bias, xn, mat]))
out = addmm(bias.detach().bfloat16(), xb, mat.detach().bfloat16().requires_grad_(), kernel=TRITON)
out.float().sum().backward()
torch.cuda.synchronize()
print("generative-recommenders jagged ops ok", tuple(out.shape))
