"""K3 · Numerical correctness: ULPs, tolerances, reassociation, edge shapes.

Compilers reorder floating-point work all the time (split-K, tree reductions, fused
epilogues, e-graph rewrites like (a+b)+c -> a+(b+c)). The result is *different*, not
necessarily *wrong*: a distance in ULPs, a tolerance that scales with the dtype and the
reduction length, and inputs that hit the edges tell the two apart. Names and
semantics are the drill's."""

from __future__ import annotations

import math

import numpy as np

EPS = {"float32": 2.0**-23, "float16": 2.0**-10, "bfloat16": 2.0**-7}


def to_bf16(x):
    """Round float32 values to bfloat16 (round-to-nearest-even), as float32 values."""
    a = np.asarray(x, dtype=np.float32)
    bits = a.view(np.uint32).astype(np.uint64)
    rounding = ((bits >> 16) & 1) + 0x7FFF  # ties go to the even mantissa
    out = ((bits + rounding) >> 16) << 16
    return out.astype(np.uint32).view(np.float32)


def _ordinal(x, dtype):
    """Map a value to an integer that counts representable values in order (negative
    values mirrored so -0 and +0 meet at 0)."""
    if dtype == "float16":
        bits = int(np.asarray(x, dtype=np.float16).view(np.uint16))
        sign, mag = bits >> 15, bits & 0x7FFF
    elif dtype == "bfloat16":
        bits = int(to_bf16(np.float32(x)).view(np.uint32)) >> 16
        sign, mag = bits >> 15, bits & 0x7FFF
    else:
        bits = int(np.asarray(x, dtype=np.float32).view(np.uint32))
        sign, mag = bits >> 31, bits & 0x7FFFFFFF
    return -mag if sign else mag


def ulp_diff(a, b, dtype="float32"):
    """Number of representable `dtype` values between a and b (0 means identical)."""
    return abs(_ordinal(a, dtype) - _ordinal(b, dtype))


def sum_sequential(xs):
    acc = np.float32(0)
    for x in np.asarray(xs, dtype=np.float32):
        acc = np.float32(acc + x)
    return acc


def sum_pairwise(xs):
    """Tree reduction, the order a GPU block reduction (or tl.sum) uses."""
    v = list(np.asarray(xs, dtype=np.float32))
    if not v:
        return np.float32(0)
    while len(v) > 1:
        nxt = [np.float32(v[i] + v[i + 1]) for i in range(0, len(v) - 1, 2)]
        if len(v) % 2:
            nxt.append(v[-1])
        v = nxt
    return v[0]


def tolerance(dtype, k=1, c=2.0):
    """(rtol, atol) for a `dtype` result of a length-k reduction against a high-precision
    reference: rounding errors grow like sqrt(k) * eps when random, so rtol = c * eps *
    sqrt(k); atol the same, for values near zero where relative error means nothing."""
    r = c * EPS[dtype] * math.sqrt(k)
    return r, r


def check_close(actual, expected, rtol, atol):
    """Like torch.testing.assert_close, but a report: passes iff |actual - expected| <=
    atol + rtol * |expected| everywhere, NaNs in the same places."""
    a, e = np.asarray(actual, dtype=np.float64), np.asarray(expected, dtype=np.float64)
    if a.shape != e.shape:
        return {"ok": False, "mismatched": None, "index": None, "reason": f"shape {a.shape} != {e.shape}"}
    nan_a, nan_e = np.isnan(a), np.isnan(e)
    if (nan_a != nan_e).any():
        idx = tuple(int(i) for i in np.argwhere(nan_a != nan_e)[0])
        return {
            "ok": False,
            "mismatched": int((nan_a != nan_e).sum()),
            "index": idx,
            "reason": "NaN mismatch",
        }
    with np.errstate(invalid="ignore"):
        diff = np.abs(a - e)
        same_inf = np.isinf(a) & np.isinf(e) & (np.sign(a) == np.sign(e))
        bad = ~(nan_e | same_inf | (diff <= atol + rtol * np.abs(e)))
    n = int(bad.sum())
    if n == 0:
        return {
            "ok": True,
            "mismatched": 0,
            "index": None,
            "reason": "",
            "max_abs": float(np.nanmax(diff, initial=0)),
        }
    idx = tuple(int(i) for i in np.argwhere(bad)[0])
    return {
        "ok": False,
        "mismatched": n,
        "index": idx,
        "reason": f"{n} element(s) differ; first at {idx}: {a[idx]!r} vs {e[idx]!r}",
        "max_abs": float(np.nanmax(np.where(bad, diff, 0))),
    }


def edge_sizes(block, limit=None):
    """Sizes that break tiled kernels: 1, block-1, block, block+1, 2*block+1, a prime and
    (optionally) a large non-multiple. Sorted, de-duplicated."""
    sizes = {1, block - 1, block, block + 1, 2 * block + 1, 97}
    if limit is not None:
        big = limit - 1 if (limit - 1) % block else limit - 2
        sizes.add(big)
    return sorted(s for s in sizes if s >= 1)


def edge_values(dtype="float16"):
    """Values that stress a dtype: zeros of both signs, the smallest normal, the largest
    finite, values whose square overflows, +/-inf and NaN."""
    np_type = {"float16": np.float16, "float32": np.float32, "bfloat16": np.float32}[dtype]
    info = np.finfo(np_type)
    big = float(info.max)
    root = math.sqrt(big) * 2  # squares past the largest finite value
    return np.array(
        [0.0, -0.0, float(info.tiny), big, -big, root, -root, np.inf, -np.inf, np.nan], dtype=np_type
    )
