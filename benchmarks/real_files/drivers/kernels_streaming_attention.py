"""Corpus driver (kx's code): alexdremov/kernels' streaming attention (src/streaming_attention/kernel.py:
streaming_attention marks q / k / v's head and head-dim axes static with torch._dynamo.mark_static
and calls a @torch.compile(fullgraph=True, dynamic=True) wrapper around the custom op
alexdremov_streaming_attention::forward (torch.library.custom_op with a register_fake and a
register_autograd backward op), which launches _streaming_attn_fwd: block-sparse flash attention
over a chunked mask (a query sees its own context block and CONTEXTS_BACK blocks before it),
optional per-sequence lens, log-sum-exp output for the backward, heuristics for divisibility
flags and tile sizes from CONTEXT_SIZE, or with autotune=True a triton.autotune sweep pruned by
fwd_configs_pruner (tile sizes from the context size and head dim, a default config from
torch.cuda.get_device_capability) with pre/post hooks that shift `lens` around each benchmark
run; the backward runs _streaming_attn_bwd_precompute then _streaming_attn_bwd (dq and dk/dv
halves of one grid). The driver runs fp16 and fp32 problems forward and backward (with and
without lens, contexts 64 / 100, back 3 / 2, head dims 64 / 128, T 2048 / 1000) and one
autotuned forward (context 32, T 512); compared with a masked fp32 attention (kx's reference
built from the mask the docstring describes) on the valid rows, outputs and q / k / v grads."""

import _corpus22_support as S
import torch
from streaming_attention import streaming_attention  # noqa: E402

torch.manual_seed(0)
dev = S.device()
# (B, H, T, D, context, back, dtype, lens?, backward?, autotune?)
CASES = S.pick(
    [
        (4, 8, 2048, 64, 64, 3, torch.float16, True, True, False),
        (2, 4, 1000, 128, 100, 2, torch.float32, False, True, False),
        (2, 4, 512, 64, 32, 1, torch.float16, True, False, True),
    ],
    [
        (2, 2, 40, 16, 8, 1, torch.float32, True, True, False),
        (1, 2, 24, 32, 10, 0, torch.float32, False, True, False),
        (1, 1, 32, 16, 16, 1, torch.float32, False, False, True),
    ],
)
report = []
for b, h, t, d, ctx, back, dt, use_lens, bwd, tune in CASES:
    q, k, v = (torch.randn(b, h, t, d, device=dev, dtype=dt).requires_grad_(bwd) for _ in range(3))
    lens = torch.randint(t // 2, t + 1, (b,), dtype=torch.int32, device=dev) if use_lens else None
    o = streaming_attention(q, k, v, lens, ctx, back, autotune=tune)
    mask = S.streaming_mask(t, ctx, back, lens, dev)
    rows = (
        (torch.arange(t, device=dev)[None, :] < lens[:, None]).float()[:, None, :, None] if use_lens else 1.0
    )
    qr, kr, vr = (x.detach().float().requires_grad_(bwd) for x in (q, k, v))
    ref = S.masked_attention_ref(qr, kr, vr, mask, d**-0.5)
    errs = [S.rel_err(o.float() * rows, ref * rows)]
    if bwd:
        do = torch.randn_like(o)
        (o * rows * do).sum().backward()
        (ref * rows * do.float()).sum().backward()
        errs += [S.rel_err(x.grad, xr.grad) for x, xr in zip((q, k, v), (qr, kr, vr))]
    report.append(
        f"{str(dt)[6:]} T{t} d{d} c{ctx}/{back}{' lens' if use_lens else ''}{' tuned' if tune else ''}: "
        + "/".join(f"{e:.1e}" for e in errs)
    )
S.sync()
print(
    "alexdremov streaming_attention (out[/dq/dk/dv] rel err vs fp32 masked reference): " + "; ".join(report)
)
