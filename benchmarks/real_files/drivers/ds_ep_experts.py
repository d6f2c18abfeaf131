"""Corpus driver (kx's code): DeepSpeed AutoEP's MoE expert path on one GPU, as
deepspeed/module_inject/auto_ep_layer.py runs it for ep_size 1 (that module needs deepspeed.comm,
so its few steps are repeated here): TokenChoiceTopKRouter (top-2 softmax), tokens sorted by
expert, deepspeed.moe.ep_kernels.generate_permute_indices (the Triton fill-indices kernel:
dynamic-length loops over each expert's token runs, counts read on device) to pad each expert's
group to TOKEN_GROUP_ALIGN_SIZE_M, GroupedExperts (on sm90: torch._grouped_mm plus DeepSpeed's
Triton SwiGLU) forward + backward; then a two-source-rank token layout through
ep_kernels.indices_padding_wrapper around the same GroupedExperts."""

import _corpus_support
import torch

_corpus_support.deepspeed_package()
from deepspeed.moe.ep_experts import GroupedExperts  # noqa: E402
from deepspeed.moe.ep_kernels import (  # noqa: E402
    TOKEN_GROUP_ALIGN_SIZE_M,
    generate_permute_indices,
    indices_padding_wrapper,
)
from deepspeed.moe.ep_router import TokenChoiceTopKRouter  # noqa: E402

torch.manual_seed(0)
B, S, H, FF, E, TOP_K = 4, 256, 1024, 2048, 8, 2
dt = torch.bfloat16
router = TokenChoiceTopKRouter(H, E, None, None, TOP_K, "softmax", True, 1.0, False).to("cuda", dt)
experts = GroupedExperts(H, FF, E).to("cuda", dt)
for w in (experts.w1, experts.w2, experts.w3):
    torch.nn.init.normal_(w, std=0.02)

x = torch.randn(B, S, H, device="cuda", dtype=dt, requires_grad=True)
flat = x.reshape(-1, H)
top_scores, selected, counts = router(flat)
order = torch.argsort(selected.view(-1), stable=True)
routed = flat[order // TOP_K]

n, align = routed.shape[0], TOKEN_GROUP_ALIGN_SIZE_M
max_len = (n + E * align + align - 1) // align * align
with torch.no_grad():
    perm, m_sizes, _ = generate_permute_indices(counts, E, 1, max_len, align)
expert_in = torch.vstack((routed, routed.new_zeros((H,))))[perm]
expert_out = experts(expert_in, m_sizes)
unperm = expert_out.new_zeros((n + 1, H))
unperm[perm] = expert_out
per_slot = torch.zeros(n, H, device="cuda", dtype=dt)
per_slot[order] = unperm[:-1]
y = (per_slot.view(-1, TOP_K, H).float() * top_scores.unsqueeze(-1)).sum(1).to(dt).view(B, S, H)
y.float().square().mean().backward()

# tokens from two source ranks, rank-major ([2, E] counts), one expert empty on one rank
counts2 = torch.tensor(
    [40, 0, 77, 5, 64, 19, 3, 120, 8, 33, 0, 91, 16, 50, 7, 2], device="cuda", dtype=torch.int32
)
x2 = torch.randn(int(counts2.sum()), H, device="cuda", dtype=dt, requires_grad=True)
run = indices_padding_wrapper(lambda w1, w2, w3, xx, c: experts(xx, c))
y2 = run(experts.w1, experts.w2, experts.w3, x2, counts2)
y2.float().sum().backward()
torch.cuda.synchronize()
print(
    "deepspeed AutoEP experts ok",
    tuple(y.shape),
    tuple(x.grad.shape),
    tuple(y2.shape),
    tuple(experts.w1.grad.shape),
)
