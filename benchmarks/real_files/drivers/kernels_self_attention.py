"""Corpus driver (kx's code): alexdremov/kernels' flash self-attention (src/self_attention/kernel.py:
self_attention calls the custom op alexdremov_flash_attention::forward (torch.library.custom_op
with a register_fake), which picks INPUT_PRECISION from torch.get_float32_matmul_precision() on
the host and launches _self_attn_fwd: a forward-only flash attention with optional per-sequence
lens (LEN_PRESENT), heuristics RCP_LN2 / V_PRELOAD, fixed 64 x 64 tiles, or with autotune=True (the
function's default) a triton.autotune sweep over tiles, pipelining, warps and V_PRELOAD pruned by
fwd_configs_pruner (a default config from torch.cuda.get_device_capability) with pre/post hooks
that shift `lens` around each benchmark run). The driver runs fp16 / bf16 / fp32 problems with
and without lens (head dims 64 / 128 / 32, T up to 2048), one of them autotuned (head dim 128,
T 512), one under torch.compile (the fake kernel traced, the Triton kernel run from the graph);
compared with a padded fp32 attention on the valid rows."""

import _corpus22_support as S
import torch
from self_attention import self_attention  # noqa: E402

torch.manual_seed(0)
dev = S.device()
# (B, H, T, D, dtype, lens?, autotune?, compiled?)
CASES = S.pick(
    [
        (4, 8, 2048, 64, torch.float16, True, False, False),
        (2, 16, 512, 128, torch.float16, False, True, False),
        (3, 4, 777, 32, torch.float32, True, False, False),
        (2, 8, 1536, 64, torch.bfloat16, True, False, True),
    ],
    [
        (2, 2, 40, 16, torch.float32, True, False, False),
        (1, 2, 32, 32, torch.float32, False, True, False),
        (2, 1, 24, 16, torch.float32, True, False, True),
    ],
)
fn_compiled = torch.compile(self_attention)
report = []
for b, h, t, d, dt, use_lens, tune, comp in CASES:
    q, k, v = (torch.randn(b, h, t, d, device=dev, dtype=dt) for _ in range(3))
    lens = torch.randint(t // 3, t + 1, (b,), dtype=torch.int32, device=dev) if use_lens else None
    fn = fn_compiled if comp else self_attention
    o = fn(q, k, v, lens, autotune=tune)
    if use_lens:
        mask = S.padding_mask(t, lens, dev)
        rows = (torch.arange(t, device=dev)[None, :] < lens[:, None]).float()[:, None, :, None]
    else:
        mask, rows = torch.ones(1, 1, t, t, dtype=torch.bool, device=dev), 1.0
    ref = S.masked_attention_ref(q, k, v, mask, d**-0.5)
    report.append(
        f"{str(dt)[6:]} T{t} d{d}{' lens' if use_lens else ''}{' tuned' if tune else ''}{' compiled' if comp else ''}: {S.rel_err(o.float() * rows, ref * rows):.1e}"
    )
S.sync()
print("alexdremov self_attention (rel err vs fp32 reference): " + "; ".join(report))
