"""A Gluon tile transpose and a scaled copy: the layouts are written in the source (click
one to see which lane owns which element), and the transpose's convert_layout moves the
tile between them through shared memory."""

import torch
from triton.experimental import gluon
from triton.experimental.gluon import language as gl


@gluon.jit
def scale_kernel(x_ptr, y_ptr, n, scale, BLOCK: gl.constexpr, layout: gl.constexpr):
    pid = gl.program_id(0)
    offs = pid * BLOCK + gl.arange(0, BLOCK, layout=layout)
    mask = offs < n
    x = gl.load(x_ptr + offs, mask=mask)
    gl.store(y_ptr + offs, x * scale, mask=mask)


@gluon.jit
def transpose_kernel(x_ptr, y_ptr, M, N, BM: gl.constexpr, BN: gl.constexpr):
    # rows read along N (4 contiguous floats per thread), written along M
    load_layout: gl.constexpr = gl.BlockedLayout(
        size_per_thread=[1, 4], threads_per_warp=[4, 8], warps_per_cta=[4, 1], order=[1, 0]
    )
    store_layout: gl.constexpr = gl.BlockedLayout(
        size_per_thread=[4, 1], threads_per_warp=[8, 4], warps_per_cta=[1, 4], order=[0, 1]
    )
    pm = gl.program_id(0)
    pn = gl.program_id(1)
    rm = pm * BM + gl.arange(0, BM, layout=gl.SliceLayout(1, load_layout))
    rn = pn * BN + gl.arange(0, BN, layout=gl.SliceLayout(0, load_layout))
    tile = gl.load(x_ptr + rm[:, None] * N + rn[None, :])
    tile = gl.convert_layout(tile, store_layout)
    sm = pm * BM + gl.arange(0, BM, layout=gl.SliceLayout(1, store_layout))
    sn = pn * BN + gl.arange(0, BN, layout=gl.SliceLayout(0, store_layout))
    gl.store(y_ptr + sn[None, :] * M + sm[:, None], tile)


if __name__ == "__main__":
    x = torch.randn(4096, device="cuda")
    y = torch.empty_like(x)
    layout = gl.BlockedLayout(size_per_thread=[4], threads_per_warp=[32], warps_per_cta=[4], order=[0])
    scale_kernel[(4,)](x, y, x.numel(), 2.0, BLOCK=1024, layout=layout, num_warps=4)
    a = torch.randn(256, 512, device="cuda")
    b = torch.empty(512, 256, device="cuda")
    transpose_kernel[(256 // 64, 512 // 64)](a, b, 256, 512, BM=64, BN=64, num_warps=4)
    torch.testing.assert_close(b, a.T)
