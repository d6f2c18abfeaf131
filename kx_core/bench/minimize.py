"""T4 · Correctness bug minimization: fuzz -> fail -> shrink -> regression test.

  1. random differential test against a reference (fixed seed, edge-heavy shapes,
     several dtypes, non-contiguous strides);
  2. keep the first failing input;
  3. shrink it (smallest shape, simplest dtype, contiguous if possible) while it fails;
  4. print it as a pytest regression (or a lit test once the pass is known).

`ddmin` is Zeller's delta debugging for lists (IR lines, ops of a graph); `shrink_case`
the structured version for (shape, dtype, layout) cases. Names are the drill's."""

from __future__ import annotations

import random

import numpy as np

from kx_core.bench.numerics import check_close, edge_sizes, to_bf16, tolerance


# ---------------------------------------------------------------- generic list shrinking
def ddmin(items, fails):
    """Smallest sub-list (1-minimal) for which fails(sub) is still True; order kept.
    fails(items) must be True."""
    items = list(items)
    n = 2
    while len(items) >= 2:
        chunk = max(1, len(items) // n)
        subsets = [items[i : i + chunk] for i in range(0, len(items), chunk)]
        reduced = False
        for i, subset in enumerate(subsets):
            if fails(subset):  # a single chunk still fails: keep only it
                items, n, reduced = subset, 2, True
                break
            complement = [x for j, s in enumerate(subsets) if j != i for x in s]
            if fails(complement):  # the chunk is not needed: drop it
                items, n, reduced = complement, max(n - 1, 2), True
                break
        if not reduced:
            if n >= len(items):
                break
            n = min(len(items), 2 * n)
    return items


def shrink_int(n, fails, lo=1):
    """Smallest m in [lo, n] with fails(m) (assumes fails(n)): halve while it fails,
    then step down one at a time."""
    m = n
    while m // 2 >= lo and fails(m // 2):
        m //= 2
    while m - 1 >= lo and fails(m - 1):
        m -= 1
    return m


# ---------------------------------------------------------------- structured cases
DTYPE_ORDER = ["float32", "float16", "bfloat16"]  # simplest first


def shrink_case(case, fails):
    """case = {'shape': [..], 'dtype': str, 'contiguous': bool}: shrink each part in turn
    (dims, then dtype toward float32, then contiguous) until nothing changes."""
    case = {"shape": list(case["shape"]), "dtype": case["dtype"], "contiguous": case["contiguous"]}
    changed = True
    while changed:
        changed = False
        for d in range(len(case["shape"])):

            def fails_at(m, d=d):
                return fails({**case, "shape": case["shape"][:d] + [m] + case["shape"][d + 1 :]})

            m = shrink_int(case["shape"][d], fails_at)
            if m != case["shape"][d]:
                case["shape"][d] = m
                changed = True
        for dtype in DTYPE_ORDER[: DTYPE_ORDER.index(case["dtype"])]:
            if fails({**case, "dtype": dtype}):
                case["dtype"] = dtype
                changed = True
                break
        if not case["contiguous"] and fails({**case, "contiguous": True}):
            case["contiguous"] = True
            changed = True
    return case


def random_case(rng, block=64):
    sizes = edge_sizes(block, limit=4 * block)
    return {
        "shape": [rng.choice(sizes), rng.choice(sizes)],
        "dtype": rng.choice(DTYPE_ORDER),
        "contiguous": rng.random() < 0.7,
    }


def fuzz(check, n=200, seed=0, block=64):
    """Run `check(case) -> bool ok` on n random cases; (first failing case or None, tried)."""
    rng = random.Random(seed)
    for i in range(n):
        case = random_case(rng, block)
        if not check(case):
            return case, i + 1
    return None, n


# ---------------------------------------------------------------- the op under test
NP = {"float32": np.float32, "float16": np.float16, "bfloat16": np.float32}  # bf16 values via to_bf16


def make_input(case, seed=0):
    m, n = case["shape"]
    rng = np.random.default_rng(seed)
    if case["contiguous"]:
        x = rng.standard_normal((m, n))
    else:
        x = rng.standard_normal((n, m)).T  # same values pattern, transposed strides
    x = x.astype(NP[case["dtype"]])
    return to_bf16(x) if case["dtype"] == "bfloat16" else x


def row_sum_reference(x):
    return np.asarray(x, np.float64).sum(axis=1)


def differential_check(impl, case, seed=0):
    """impl(x) against the float64 reference with K3's tolerance for the dtype and the
    row length. True when it passes."""
    x = make_input(case, seed)
    rtol, atol = tolerance(case["dtype"], case["shape"][1], c=4.0)
    return check_close(np.asarray(impl(x), dtype=np.float64), row_sum_reference(x), rtol, atol)["ok"]


def to_pytest(case, name="test_row_sum_regression", impl="row_sum", seed=0):
    """A standalone regression test for the minimized case (needs `np` and `impl`)."""
    m, n = case["shape"]
    make = f"rng.standard_normal(({m}, {n}))" if case["contiguous"] else f"rng.standard_normal(({n}, {m})).T"
    cast = {"float32": "np.float32", "float16": "np.float16", "bfloat16": "np.float32"}[case["dtype"]]
    rtol, atol = tolerance(case["dtype"], n, c=4.0)
    return (
        f"def {name}():\n"
        f"    # minimized: shape {case['shape']}, {case['dtype']}, contiguous={case['contiguous']}\n"
        f"    rng = np.random.default_rng({seed})\n"
        f"    x = {make}.astype({cast})\n"
        f"    expected = np.asarray(x, np.float64).sum(axis=1)\n"
        f"    got = np.asarray({impl}(x), np.float64)\n"
        f"    assert np.allclose(got, expected, rtol={rtol!r}, atol={atol!r})\n"
    )
