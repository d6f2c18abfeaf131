"""The numbers PyTorch's CUDA random kernels draw, computed on the host, bit for bit.

ATen's distribution kernels (native/cuda/DistributionTemplates.h,
`distribution_elementwise_grid_stride_kernel`) give each GPU thread `idx` of a
`calc_execution_policy` grid (256 threads a block) a curand Philox4x32-10 state
`curand_init(seed, subsequence=idx, offset)`, and each pass of the thread's grid-stride
loop draws `curand4` (four 32-bit words) for `unroll` elements: element
`li = idx + S * (unroll * pass + i)` (S = threads in the grid) takes word `i` (or, for 64-bit
draws, words 2i and 2i+1 as one integer; unroll 2). The offset is the generator's philox
offset before the op, a multiple of 4, so the counter of pass `p` is
`(offset / 4 + p, 0, idx, 0)` and the key the seed's two halves (curand_philox4x32_x.h:
curand_init, skipahead, curand4).

What is modelled, per ATen's transformation helpers (core/TransformationHelper.h) and
curand's `_curand_uniform`:
- integers in [low, high): `(draw % range) + low`, 32-bit draws below a range of 2**28,
  64-bit draws from it up (random_from_to_kernel);
- uniform floats in [from, to) for float32, float16 and bfloat16: `x * 2**-32 + 2**-33` in
  float32 (exact in either order of rounding: the product is a power of two's), then
  `rand * (to - from) + from`, a value equal to `to` becoming `from` (uniform_kernel).
- permutations (`randperm`, native/cuda/Randperm.cu): random keys (`random_` of int32, or of
  int64 past 32 bits), a stable radix sort of their low `bits` bits, and a Fisher-Yates
  shuffle of each run of equal keys by the thread at its start (`randperm_handle_duplicate_keys`).
Normal draws are not (the GPU's logf and sincosf differ from any host's in the last bits),
nor float64 draws.

    words(seed, offset, numel, unroll, grid) -> uint32 array (numel, 4 // unroll words each)
"""

from __future__ import annotations

import numpy as np

_M0, _M1 = np.uint64(0xD2511F53), np.uint64(0xCD9E8D57)
_W0, _W1 = np.uint32(0x9E3779B9), np.uint32(0xBB67AE85)
_LOW = np.uint64(0xFFFFFFFF)
BLOCK = 256  # threads a block in ATen's calc_execution_policy


def philox(c0: np.ndarray, c1: np.ndarray, c2: np.ndarray, c3: np.ndarray, seed: int) -> tuple:
    """Philox4x32-10 of the counters (uint32 arrays) under the 64-bit key `seed`."""
    k0, k1 = np.uint32(seed & 0xFFFFFFFF), np.uint32((seed >> 32) & 0xFFFFFFFF)
    with np.errstate(over="ignore"):
        for i in range(10):
            if i:
                k0, k1 = k0 + _W0, k1 + _W1
            p0 = _M0 * c0.astype(np.uint64)
            p1 = _M1 * c2.astype(np.uint64)
            hi0, lo0 = (p0 >> np.uint64(32)).astype(np.uint32), (p0 & _LOW).astype(np.uint32)
            hi1, lo1 = (p1 >> np.uint64(32)).astype(np.uint32), (p1 & _LOW).astype(np.uint32)
            c0, c1, c2, c3 = hi1 ^ c1 ^ k0, lo1, hi0 ^ c3 ^ k1, lo0
    return c0, c1, c2, c3


def _halves(value: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """A uint64 array as its low and high 32-bit words (a philox counter's two lanes)."""
    return (value & _LOW).astype(np.uint32), (value >> np.uint64(32)).astype(np.uint32)


def grid_for(numel: int, sm_count: int, threads_per_sm: int) -> int:
    """Blocks ATen's calc_execution_policy launches for `numel` elements."""
    return min(sm_count * (threads_per_sm // BLOCK), (numel + BLOCK - 1) // BLOCK)


def counters(numel: int, unroll: int, grid: int) -> int:
    """The philox counters a draw of `numel` elements takes (calc_execution_policy's
    counter_offset): four per pass of the grid-stride loop."""
    return ((numel - 1) // (BLOCK * grid * unroll) + 1) * 4


def words(seed: int, offset: int, numel: int, unroll: int, grid: int) -> np.ndarray:
    """The draw of each of `numel` elements, in element order: one uint32 (unroll 4) or two
    (unroll 2: the high word first) a row."""
    threads = BLOCK * grid
    li = np.arange(numel, dtype=np.int64)
    passes, idx = np.divmod(li, threads)
    passes, lane = np.divmod(passes, unroll)
    ctr = np.uint64(offset // 4) + passes.astype(np.uint64)
    out = philox(*_halves(ctr), idx.astype(np.uint32), np.zeros(numel, dtype=np.uint32), seed)
    stacked = np.stack(out, axis=1)
    if unroll == 4:
        return stacked[np.arange(numel), lane][:, None]
    return np.stack((stacked[np.arange(numel), 2 * lane], stacked[np.arange(numel), 2 * lane + 1]), axis=1)


def integers(draw: np.ndarray, low: int, span: int) -> np.ndarray:
    """`(draw % span) + low` as int64 (uniform_int_from_to): 32-bit draws (one column) or
    64-bit ones (two)."""
    if draw.shape[1] == 1:
        value = draw[:, 0].astype(np.uint64)
    else:
        value = (draw[:, 0].astype(np.uint64) << np.uint64(32)) | draw[:, 1].astype(np.uint64)
    with np.errstate(over="ignore"):
        return ((value % np.uint64(span)) + np.uint64(low & 0xFFFFFFFFFFFFFFFF)).view(np.int64)


def uniform01(draw: np.ndarray) -> np.ndarray:
    """curand's `_curand_uniform` of 32-bit draws: float32 in (0, 1]."""
    return draw[:, 0].astype(np.float32) * np.float32(2.0**-32) + np.float32(2.0**-33)


def permutation(seed: int, offset: int, n: int, sm_count: int, threads_per_sm: int) -> np.ndarray:
    """randperm_out_cuda's permutation of n > 1 elements, drawn from philox `offset`: its
    keys take the counters `random_` takes (64-bit draws: their range is 2**32 - 1 or more),
    the shuffle of equal keys the next `n` (rounded up to 4)."""
    # "bits" of note [Algorithm of randperm]: few enough keys collide over n elements
    nd = float(n)
    bits = min(64, int(np.ceil(np.log2(nd - (6 * nd * nd + 1) / (np.log(0.9) * 12)))))
    grid = grid_for(n, sm_count, threads_per_sm)
    draw = words(seed, offset, n, 2, grid)
    if bits <= 32:  # int32 keys: random_(INT_MIN, INT_MAX)
        keys = integers(draw, -(2**31), 2**32 - 1).astype(np.int32).view(np.uint32).astype(np.uint64)
    else:  # int64 keys: random_(INT64_MIN, INT64_MAX)
        keys = integers(draw, -(2**63), 2**64 - 1).view(np.uint64)
    masked = keys & np.uint64((1 << bits) - 1 if bits < 64 else 2**64 - 1)
    order = np.argsort(masked, kind="stable")  # cub's radix sort is stable
    data, sorted_keys = order.astype(np.int64), masked[order]
    shuffle_offset = offset + counters(n, 2, grid)
    starts = np.flatnonzero(
        (sorted_keys[:-1] == sorted_keys[1:]) & np.r_[True, sorted_keys[1:-1] != sorted_keys[:-2]]
    )
    for tid in starts.tolist():
        size = 1
        while tid + size < n and sorted_keys[tid + size] == sorted_keys[tid]:
            size += 1
        stream = _curand_stream(seed, tid, shuffle_offset, size)
        island = data[tid : tid + size]
        for k, i in enumerate(range(size - 1, 0, -1)):
            r = int(stream[k]) % (i + 1)
            if r != i:
                island[i], island[r] = island[r], island[i]
    return data


def _curand_stream(seed: int, subsequence: int, offset: int, count: int) -> np.ndarray:
    """The first `count` values of curand() after curand_init(seed, subsequence, offset),
    offset a multiple of 4."""
    blocks = (count + 3) // 4
    ctr = np.uint64(offset // 4) + np.arange(blocks, dtype=np.uint64)
    out = philox(*_halves(ctr), *_halves(np.full(blocks, subsequence, dtype=np.uint64)), seed)
    return np.stack(out, axis=1).reshape(-1)[:count]
