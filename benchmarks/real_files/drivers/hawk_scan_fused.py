"""Corpus driver (kx's code): fattorib/hawk-pytorch's fused RG-LRU scan (hawk/scan_fused.py:
DiagonalRecurrence, a torch.autograd.Function under torch.amp.custom_fwd(device_type='cuda',
cast_inputs=bfloat16) / custom_bwd; sequential_scan_forward launches sequential_scan_fwd_kernel
on a (batch, d / 64) grid with one warp and num_context (the sequence length) a constexpr, so
every new length is a new compile: the program walks time in a Python-range loop computing the
sigmoid gates, log_a = -8 sigmoid(a_gate) softplus(a_param) (jit helpers softplus_fwd etc.) and
h = a h + sqrt(1 - a^2) (x gate x) in fp32, stored as bf16; sequential_scan_backward launches
sequential_scan_bwd_kernel, a reverse-time loop that recomputes the gates, carries the hidden
gradient, clips the sqrt gradient (clipped_sqrt_grad with a default-valued argument) and writes
per-batch a_param gradients summed in torch). The driver runs Griffin-sized channels
(d 1024 / 2560) at sequence lengths 256, 1024 and 2048 under bf16 autocast, forward and backward;
compared with kx's fp32 sequential reference (output and the four gradients)."""

import _corpus23_support as S
import torch

S.install_einops_standin()  # hawk/__init__ imports the model, whose external.py imports einops
from hawk.scan_fused import fused_linear_scan  # noqa: E402

torch.manual_seed(0)
dev = S.device()
SHAPES = S.pick([(4, 256, 1024), (2, 1024, 2560), (1, 2048, 1024)], [(2, 8, 64), (1, 12, 128)])

res = []
for b, sq, d in SHAPES:
    ins = [torch.randn(b, sq, d, device=dev, dtype=torch.bfloat16).requires_grad_(True) for _ in range(3)]
    a_param = (torch.rand(d, device=dev) * 2 - 1).requires_grad_(True)
    with torch.autocast(device_type="cuda", dtype=torch.bfloat16, enabled=dev == "cuda"):
        h = fused_linear_scan(*ins, a_param)
    gout = torch.randn_like(h)
    h.backward(gout)
    ref_in = [t.detach().float().requires_grad_(True) for t in (*ins, a_param)]
    ref = S.rglru_scan_ref(*ref_in)
    ref.backward(gout.float())
    errs = [S.rel_err(h, ref)] + [S.rel_err(t.grad, r.grad) for t, r in zip((*ins, a_param), ref_in)]
    res.append(((b, sq, d), errs))
S.sync()
print(
    "hawk-pytorch fused RG-LRU scan (bf16) rel err out/dx/dx_gate/da_gate/da_param vs fp32: "
    + "; ".join(f"{s}: " + "/".join(f"{e:.1e}" for e in errs) for s, errs in res)
)
