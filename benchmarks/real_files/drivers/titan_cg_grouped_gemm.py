"""Corpus driver (kx's code): torchtitan's Triton contiguous grouped GEMM for MoE experts
(experiments/kernels/triton_contiguous_group_gemm), called as its unit_test_cg.py does:
cg_backward.cg_grouped_gemm -> ContiguousGroupedGEMM autograd.Function. Forward:
cg_forward.cg_grouped_gemm_forward -> persistent _kernel_cg_persistent_forward (grid = SM
count, tl.range tile loop, @triton.autotune over STANDARD_CONFIGS with prune_configs_by
early_config_prune reading K from the launch kwargs). Backward: the autotuned
_kernel_cg_backward_dx and the plainly launched _kernel_cg_backward_dw. bf16,
DeepSeek-V2-Lite-like expert shapes (dim 2048, expert hidden 1408, 16 experts), tokens
grouped per expert in 128-row aligned blocks (one expert empty). The kernel folder goes on
sys.path as the tests expect (cg_backward imports `tma_cuda_autotune` and `cg_forward` by
bare name; cg_forward imports the package path)."""

import os

import _corpus_support
import torch

root = _corpus_support.find_on_path("torchtitan")
for pkg in (
    "",
    "experiments",
    "experiments.kernels",
    "experiments.kernels.triton_contiguous_group_gemm",
):
    name = ".".join(p for p in ("torchtitan", pkg) if p)
    _corpus_support.bare_package(name, os.path.join(root, *[p for p in pkg.split(".") if p]))
from cg_backward import cg_grouped_gemm  # noqa: E402

torch.manual_seed(0)
E, DIM, HIDDEN, GROUP = 16, 2048, 1408, 128
blocks_per_expert = torch.randint(1, 4, (E,))
blocks_per_expert[3] = 0
expert_indices = torch.repeat_interleave(torch.arange(E, dtype=torch.int32), blocks_per_expert * GROUP).cuda()
M_total = expert_indices.numel()

inputs = torch.randn(M_total, DIM, device="cuda", dtype=torch.bfloat16, requires_grad=True)
w_gate = (torch.randn(E, HIDDEN, DIM, device="cuda", dtype=torch.bfloat16) * 0.02).requires_grad_()
h = cg_grouped_gemm(inputs, w_gate, expert_indices, group_size_m=GROUP)
h.float().square().mean().backward()
torch.cuda.synchronize()
print(
    "torchtitan contiguous grouped gemm ok",
    M_total,
    tuple(h.shape),
    tuple(inputs.grad.shape),
    tuple(w_gate.grad.shape),
)
