"""Corpus driver (kx's code): torchtitan's MoE token-permutation kernel
(torchtitan.experiments.kernels.moe.indices.generate_permute_indices -> _fill_indices_kernel,
whose chunk loop runs to per-expert token counts loaded from GPU memory) on its real call
path: a torchtitan.models.moe.MoE layer (router top-k via torch.histc, TokenReorderer,
GroupedExperts with use_grouped_mm) whose experts function is wrapped by
distributed.expert_parallel.expert_parallel: per-expert counts padded to
TOKEN_GROUP_ALIGN_SIZE_M without a host sync, tokens gathered by the permuted indices,
torch._grouped_mm SwiGLU experts, scattered back; bf16 forward and backward. Plus a direct
call in the expert-parallel layout (4 source ranks x 16 local experts, counts as received
from the all-to-all). Only the five modules involved are extracted; torchtitan/__init__
(quantization registry) and the package __init__s are not run."""

import os

import _corpus_support
import torch

root = _corpus_support.find_on_path("torchtitan")
for pkg in (
    "",
    "models",
    "distributed",
    "tools",
    "experiments",
    "experiments.kernels",
    "experiments.kernels.moe",
):
    name = ".".join(p for p in ("torchtitan", pkg) if p)
    _corpus_support.bare_package(name, os.path.join(root, *[p for p in pkg.split(".") if p]))
from torchtitan.experiments.kernels.moe.indices import generate_permute_indices  # noqa: E402
from torchtitan.models.moe import MoE, MoEArgs  # noqa: E402

torch.manual_seed(0)
DIM, HIDDEN = 1024, 512
args = MoEArgs(
    num_experts=16,
    num_shared_experts=1,
    score_func="softmax",
    route_norm=True,
    top_k=4,
    use_grouped_mm=True,
    load_balance_coeff=1e-3,
)
moe = MoE(args, dim=DIM, hidden_dim=HIDDEN)
moe.init_weights(init_std=0.02, buffer_device=torch.device("cuda"))
moe = moe.to(device="cuda", dtype=torch.bfloat16)
moe.expert_bias = moe.expert_bias.float()  # routing buffers stay fp32, as FSDP mixed precision keeps them
moe.tokens_per_expert = moe.tokens_per_expert.float()

x = torch.randn(4, 512, DIM, device="cuda", dtype=torch.bfloat16, requires_grad=True)
out = moe(x)
out.float().square().mean().backward()

# expert parallel: counts for (rank r -> local expert e), 4 ranks x 16 local experts
EP, LOCAL = 4, 16
counts = torch.randint(0, 300, (EP * LOCAL,), device="cuda", dtype=torch.int64)
counts[5] = 0  # an expert that received nothing still gets one aligned group
max_len = (int(counts.sum()) + LOCAL * 16 + 15) // 16 * 16
perm, m_sizes, m_offsets = generate_permute_indices(counts, LOCAL, EP, max_len, alignment=16)
torch.cuda.synchronize()
print(
    "torchtitan moe permute indices ok",
    tuple(out.shape),
    tuple(x.grad.shape),
    tuple(perm.shape),
    int(m_offsets[-1]),
)
