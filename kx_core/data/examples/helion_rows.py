"""Three Helion kernels: an element-wise add and a tiled matmul with their configs given,
and a row softmax with none (a real run autotunes it; kx compiles Helion's default config
and says so)."""

import torch

import helion
import helion.language as hl


@helion.kernel(config=helion.Config(block_sizes=[32, 64], num_warps=4))
def add(x: torch.Tensor, y: torch.Tensor) -> torch.Tensor:
    out = torch.empty_like(x)
    for tile in hl.tile(out.size()):
        out[tile] = x[tile] + y[tile]
    return out


@helion.kernel(config=helion.Config(block_sizes=[64, 64, 32], num_warps=4))
def matmul(x: torch.Tensor, y: torch.Tensor) -> torch.Tensor:
    m, k = x.size()
    _, n = y.size()
    out = torch.empty([m, n], dtype=x.dtype, device=x.device)
    for tile_m, tile_n in hl.tile([m, n]):
        acc = hl.zeros([tile_m, tile_n], dtype=torch.float32)
        for tile_k in hl.tile(k):
            acc = torch.addmm(acc, x[tile_m, tile_k], y[tile_k, tile_n])
        out[tile_m, tile_n] = acc.to(x.dtype)
    return out


@helion.kernel()
def row_softmax(x: torch.Tensor) -> torch.Tensor:
    n, _m = x.size()
    out = torch.empty_like(x)
    for tile_n in hl.tile(n):
        values = x[tile_n, :]
        amax = torch.amax(values, dim=1, keepdim=True)
        exp = torch.exp(values - amax)
        out[tile_n, :] = exp / torch.sum(exp, dim=1, keepdim=True)
    return out


if __name__ == "__main__":
    a = torch.randn(512, 1024, device="cuda")
    b = torch.randn(512, 1024, device="cuda")
    add(a, b)
    matmul(a.half(), b.T.contiguous().half())
    row_softmax(a)
