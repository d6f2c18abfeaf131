"""L5 · Differential test: a reference runtime vs a device runtime, as a regression test.

Luminal ships two runtimes for one compiled graph: `luminal_reference` (a CPU
interpreter that defines the semantics, with narrow-float and tf32 emulation) and the
device runtime. A backend change is judged by "does the device agree with the reference
within a tolerance I can justify?". Around one op, softmax over the last axis (a classic
place for backend bugs: max subtraction, masked tails, fp16 accumulation):

  reference_softmax   float64: the semantics
  device_softmax      tiled in blocks, fp32 accumulation, output in the storage dtype,
                      with switchable realistic bugs
  tolerance_for       rtol/atol from the dtype's eps and the row length (K3), with the
                      rationale that goes into the test
  run_differential    random edge-heavy shapes, dtypes, seeds -> the failures
  emit_rust_test      the regression test, in the style of luminal's crate tests

Names and semantics are the drill's; the order of random draws is kx's own (see the
tests for the figures it gives).
"""

from __future__ import annotations

import math
import random

import numpy as np

from kx_core.bench.numerics import EPS, check_close, edge_sizes, to_bf16

STORAGE = {"float32": np.float32, "float16": np.float16, "bfloat16": np.float32}
DTYPE_ORDER = ("float32", "float16", "bfloat16")


def store(x, dtype):
    x = np.asarray(x, np.float32).astype(STORAGE[dtype])
    return to_bf16(x) if dtype == "bfloat16" else x


def reference_softmax(x):
    x = np.asarray(x, np.float64)
    m = x.max(axis=-1, keepdims=True)
    e = np.exp(x - m)
    return e / e.sum(axis=-1, keepdims=True)


def device_softmax(x, dtype, block=64, bug=None):
    """Two passes over each row in blocks of `block`: online max and sum, then normalise.
    bug: None | 'no_max_sub' (overflows for large inputs) | 'tail' (the last partial block
    is left out of the sum) | 'fp16_acc' (the running sum kept in fp16)."""
    x = store(x, dtype).astype(np.float32)
    rows, n = x.shape
    acc_t = np.float16 if bug == "fp16_acc" else np.float32
    out = np.empty_like(x)
    for r in range(rows):
        m = np.float32(-np.inf) if bug != "no_max_sub" else np.float32(0)
        s = acc_t(0)
        stop = n if bug != "tail" else (n // block) * block or n
        for k0 in range(0, stop, block):
            blk = x[r, k0 : min(k0 + block, stop)]
            if bug != "no_max_sub":
                m_new = max(m, blk.max())
                s = acc_t(s * acc_t(np.exp(m - m_new)) + acc_t(np.exp(blk - m_new).sum()))
                m = m_new
            else:
                with np.errstate(over="ignore"):
                    s = acc_t(s + acc_t(np.exp(blk).sum()))
        with np.errstate(over="ignore", invalid="ignore"):
            out[r] = np.exp(x[r] - m) / np.float32(s)
    return store(out, dtype)


def tolerance_for(dtype, n):
    """(rtol, atol, rationale). Outputs are in [0, 1]. Their error comes from rounding the
    output to the storage dtype (half an ulp, eps/2, relative; twice that allowed since the
    normaliser itself is rounded), and from the length-n sum in fp32, which grows like
    sqrt(n) * eps32 (times 4 for the exponentials' own rounding). atol, a quarter of the
    storage eps, covers the tiny probabilities whose relative error is noise."""
    eps = EPS[dtype]
    rtol = 2 * eps + 4 * math.sqrt(n) * EPS["float32"]
    atol = eps / 4
    why = (
        f"{dtype} output, row length n={n}: rtol = 2*eps({dtype}) + 4*sqrt(n)*eps(float32) = {rtol:.3g} "
        f"(output rounding + fp32 accumulation), atol = eps/4 = {atol:.3g} (tiny probabilities)"
    )
    return rtol, atol, why


def make_input(rows, n, dtype, seed, scale=3.0):
    rng = np.random.default_rng(seed)
    x = rng.standard_normal((rows, n)) * scale
    return store(x, dtype)


def run_differential(impl, cases=60, seed=0, block=64, dtypes=DTYPE_ORDER, scale=3.0):
    """Random cases (rows, edge-heavy row length, dtype, seed), each compared with the
    reference under tolerance_for. Returns (failures, tried); a failure is
    {'rows', 'n', 'dtype', 'seed', 'report'} (report from K3's check_close)."""
    rng = random.Random(seed)
    lengths = edge_sizes(block, limit=4 * block)
    failures = []
    for _ in range(cases):
        rows = rng.choice((1, 2, 3, 8))
        n = rng.choice(lengths)
        dtype = rng.choice(list(dtypes))
        case_seed = rng.randrange(2**31)
        x = make_input(rows, n, dtype, case_seed, scale)
        rtol, atol, _ = tolerance_for(dtype, n)
        with np.errstate(all="ignore"):
            report = check_close(np.asarray(impl(x, dtype), np.float64), reference_softmax(x), rtol, atol)
        if not report["ok"]:
            if report.get("max_abs") is None or not np.isfinite(report.get("max_abs", np.inf)):
                report["max_abs"] = float("inf")
            failures.append({"rows": rows, "n": n, "dtype": dtype, "seed": case_seed, "report": report})
    return failures, cases


def smallest_failure(fails):
    """The failure easiest to debug: fewest elements, then shortest rows, simplest dtype."""
    if not fails:
        return None
    return min(fails, key=lambda f: (f["rows"] * f["n"], f["n"], DTYPE_ORDER.index(f["dtype"])))


RUST_DTYPE = {"float32": "F32", "float16": "F16", "bfloat16": "Bf16"}


def emit_rust_test(f, name="softmax_matches_reference"):
    """A Rust regression test sketch: the same graph compiled for both runtimes and
    compared with the justified tolerance. (Adapt the calls to the current crate.)"""
    rtol, atol, why = tolerance_for(f["dtype"], f["n"])
    dt = RUST_DTYPE[f["dtype"]]
    return (
        "#[test]\n"
        f"fn {name}() {{\n"
        f"    // minimized by kx: rows={f['rows']}, n={f['n']}, dtype={f['dtype']}, seed={f['seed']}\n"
        f"    // tolerance: {why}\n"
        "    let mut cx = Graph::new();\n"
        f"    let x = cx.tensor(({f['rows']}, {f['n']})).as_dtype(DType::{dt});\n"
        "    let y = x.softmax(1).retrieve();\n"
        f"    let input = random_vec_seeded({f['rows']} * {f['n']}, {f['seed']});\n"
        "    let reference = run_reference(&mut cx.clone(), x, &input, y);\n"
        "    let device = run_cuda(&mut cx, x, &input, y);\n"
        f"    assert_close_with(&device, &reference, {rtol:.6e}, {atol:.6e});\n"
        "}\n"
    )
