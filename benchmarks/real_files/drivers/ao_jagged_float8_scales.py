"""Corpus driver (kx's code): torchao's MoE-training "jagged" float8 cast with per-group
column-wise scales over token groups given by end offsets (torch.library.custom_op with
register_fake; an autotuned kernel), as the grouped-GEMM weight-gradient uses it, on two
routings of the same token batch."""

import _corpus_support
import torch

_corpus_support.torchao_package("prototype.moe_training", "prototype.moe_training.kernels")
from torchao.prototype.moe_training.kernels.jagged_float8_scales import triton_fp8_per_group_colwise_scales  # noqa: E402

torch.manual_seed(0)
T, K = 16384, 2048
grad_out = torch.randn(T, K, device="cuda", dtype=torch.bfloat16)
for group_sizes in (
    [1024, 3072, 16, 4080, 2048, 6144],
    [4096, 2048, 2048, 4096, 2048, 2048],
):  # same K and group count: one tuning
    offsets = torch.tensor(group_sizes, device="cuda", dtype=torch.int32).cumsum(0).to(torch.int32)
    fp8, scales = triton_fp8_per_group_colwise_scales(grad_out, offsets, round_scales_to_power_of_2=True)
torch.cuda.synchronize()
print("torchao jagged float8 scales ok", tuple(fp8.shape), tuple(scales.shape))
