"""Structured comparison of a kernel's output with a reference's.

Tuples, lists and dicts are walked together and must agree in type, length and keys;
every tensor leaf must agree in dtype and shape and is compared *in its own dtype*
against a per-dtype tolerance: half an ulp (relative) for bf16 and fp16, so a one-ulp
error such as truncating instead of rounding to nearest-even fails; atol 1e-5 / rtol
1e-6 for fp32; 1e-9 / 1e-12 for fp64; exact equality for integers and bools. Each
mismatch names its leaf path (`output[1]`, `output['y']`), so a wrong second output is
reported as such rather than dropped. Upcasting everything to fp32 with one loose
tolerance would hide exactly the bf16 errors that matter.
"""

from __future__ import annotations

from typing import Any


def default_tolerances() -> dict:
    """dtype -> (atol, rtol)."""
    import torch

    return {
        torch.bfloat16: (0.0, 2.0**-9),  # half of bf16's 2^-8 relative ulp spacing at 1.0
        torch.float16: (0.0, 2.0**-11),
        torch.float32: (1e-5, 1e-6),
        torch.float64: (1e-9, 1e-12),
    }


def widened(tolerances: dict, atol: float | None = None, rtol: float | None = None) -> dict:
    """Every floating tolerance at least (atol, rtol): for a kernel whose accumulation
    order legitimately differs from the reference's."""
    return {d: (max(a, atol or 0.0), max(r, rtol or 0.0)) for d, (a, r) in tolerances.items()}


def _where(flat: int, shape) -> tuple[int, ...]:
    idx = []
    for dim in reversed(tuple(shape)):
        idx.insert(0, flat % dim)
        flat //= dim
    return tuple(idx)


def leaf_mismatch(ref, out, path: str, tolerances: dict) -> str | None:
    """Why one tensor leaf differs, or None."""
    import torch

    if not isinstance(out, torch.Tensor):
        return f"{path}: reference is a tensor, kernel returned {type(out).__name__}"
    if ref.dtype != out.dtype:
        return f"{path}: dtype mismatch ref={ref.dtype} kernel={out.dtype}"
    if ref.shape != out.shape:
        return f"{path}: shape mismatch ref={tuple(ref.shape)} kernel={tuple(out.shape)}"
    if ref.dtype in tolerances:
        atol, rtol = tolerances[ref.dtype]
        if torch.allclose(ref, out, atol=atol, rtol=rtol, equal_nan=True):  # in the leaf's dtype
            return None
        diff = (ref.double() - out.double()).abs().nan_to_num(nan=float("inf"))  # float64 for the report only
        flat = int(diff.argmax())
        return (
            f"{path}: value mismatch dtype={ref.dtype} atol={atol:g} rtol={rtol:g} max_diff={diff.max().item():.6e} "
            f"worst at {_where(flat, ref.shape)}: ref={ref.flatten()[flat].item():.6g} "
            f"kernel={out.flatten()[flat].item():.6g}"
        )
    if torch.equal(ref, out):  # integers and bools carry no rounding
        return None
    return f"{path}: {int((ref != out).sum())} element(s) differ in exact dtype {ref.dtype}"


def compare_structured(ref: Any, out: Any, tolerances: dict | None = None, path: str = "output") -> list[str]:
    """Every mismatch between ref and out, each naming its leaf path; [] when equal."""
    import torch

    tolerances = default_tolerances() if tolerances is None else tolerances
    if isinstance(ref, torch.Tensor):
        msg = leaf_mismatch(ref, out, path, tolerances)
        return [msg] if msg else []
    if isinstance(ref, (tuple, list)):
        if type(out) is not type(ref):
            return [f"{path}: reference is {type(ref).__name__}, kernel returned {type(out).__name__}"]
        if len(ref) != len(out):
            return [f"{path}: length mismatch ref={len(ref)} kernel={len(out)}"]
        return [
            m
            for i, (r, o) in enumerate(zip(ref, out))
            for m in compare_structured(r, o, tolerances, f"{path}[{i}]")
        ]
    if isinstance(ref, dict):
        if not isinstance(out, dict):
            return [f"{path}: reference is dict, kernel returned {type(out).__name__}"]
        if set(ref) != set(out):
            return [f"{path}: key mismatch ref={sorted(map(str, ref))} kernel={sorted(map(str, out))}"]
        return [m for k in ref for m in compare_structured(ref[k], out[k], tolerances, f"{path}[{k!r}]")]
    if isinstance(out, torch.Tensor):  # `!=` with a tensor would be element-wise
        return [f"{path}: reference is {type(ref).__name__}, kernel returned {type(out).__name__}"]
    if ref != out:
        return [f"{path}: scalar mismatch ref={ref!r} kernel={out!r}"]
    return []
