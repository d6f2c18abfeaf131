"""The PyTorch baseline of kx_cpu::rms_norm (the seed's contract: `get_inputs()` gives the
op's arguments, `Model.forward` takes them and returns what the op must return):
`kx bench rmsnorm_avx2.cpp --baseline rmsnorm_baseline.py`. 2049 columns: not a multiple
of 8, so the AVX2 kernel's scalar tails run."""

import torch


class Model(torch.nn.Module):
    def forward(self, x: torch.Tensor, weight: torch.Tensor, eps: float) -> torch.Tensor:
        variance = x.pow(2).mean(-1, keepdim=True)
        return x * torch.rsqrt(variance + eps) * weight


def get_inputs():
    torch.manual_seed(0)
    return [torch.randn(64, 2049), torch.randn(2049), 1e-6]
