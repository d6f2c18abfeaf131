"""What a random op on the capture GPU draws, where PyTorch's CUDA kernel is modelled
exactly (cuda_philox). Modelled: integers (`randint`, `randint_like`, `random_(from, to)`),
uniform floats (`rand`, `rand_like`, `uniform_`) and permutations (`randperm`) of the
default CUDA generator, whose seed
and philox offset kx follows (fake_cuda). The values are a real run's, so reads of them
(lengths, labels, a keep-mask, a size) steer the file as on the GPU; anything else drawn on
the GPU stays sampled (known_values), and a read of it a placeholder.

    value = exact(torch, name, args, kwargs, target)   # a CPU tensor, or None
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

from kx_core.compile.capturing.device import cuda_philox

INTEGER_DRAWS = frozenset({"randint", "randint_like", "random_"})
UNIFORM_DRAWS = frozenset({"rand", "rand_like", "uniform_"})
PERMUTATIONS = frozenset({"randperm"})
# Elements one draw may make on the host: about 0.2 s of numpy at 2**22.
LIMIT = 1 << 22
# ATen draws 64-bit integers from a range of 2**28 up (random_from_to_kernel: "allow
# approx 5% skew in uniform int generation using %"; 2**32 in Meta's own builds)
WIDE_RANGE = 1 << 28


# (seed, philox offset, SMs, max threads per SM) of the generator an op's kwargs name, or
# None where kx does not know it: fake_cuda.philox_inputs, set when the capture GPU's
# generators are made (fake_cuda imports this module, not the other way round)
PHILOX_INPUTS: Callable[[dict], tuple[int, int, int, int] | None] | None = None


def integer_bounds(name: str, args: tuple, kwargs: dict) -> tuple[int | None, int | None] | None:
    """(low, high) of randint / randint_like / random_(from, to) / random_(to); for random_
    without `to` high is None (to the dtype's end), and low None too for random_(); None
    where randint's bounds are not plain integers."""

    def plain(v: Any) -> bool:
        return isinstance(v, int) and not isinstance(v, bool)

    if name == "random_":
        numbers = [a for a in args[1:] if plain(a)]
        low, high = kwargs.get("from"), kwargs.get("to")
        if len(numbers) == 2:
            low, high = numbers
        elif len(numbers) == 1:
            low, high = (0, numbers[0]) if high is None and low is None else (numbers[0], high)
        return (None if low is None else int(low)), (None if high is None else int(high))
    numbers = [a for a in args[1 if name == "randint_like" else 0 :] if plain(a)]
    low, high = kwargs.get("low", 0), kwargs.get("high")
    if high is None:
        if len(numbers) >= 2:
            low, high = numbers[0], numbers[1]
        elif numbers:
            high = numbers[0]
    if high is None or not plain(low):
        return None
    return int(low), int(high)


def _uniform_bounds(name: str, args: tuple, kwargs: dict) -> tuple[float, float]:
    if name != "uniform_":
        return 0.0, 1.0
    rest = list(args[1:3])
    low = kwargs.get("from", rest[0] if rest else 0.0)
    high = kwargs.get("to", rest[1] if len(rest) > 1 else 1.0)
    return float(low), float(high)


def exact(torch: Any, name: str, args: tuple, kwargs: dict, target: Any) -> Any:
    """The CPU tensor (target's shape and dtype, contiguous) op `name` fills `target` with
    on the GPU, where kx draws it as the GPU does; None where it does not."""
    integer = name in INTEGER_DRAWS
    if not (integer or name in UNIFORM_DRAWS or name in PERMUTATIONS):
        return None
    numel = target.numel()
    if not 0 < numel <= LIMIT or not target.is_contiguous():
        return None  # (an empty draw draws nothing; a strided one follows TensorIterator's order)
    inputs = PHILOX_INPUTS(kwargs) if PHILOX_INPUTS is not None else None
    if inputs is None:
        return None
    seed, offset, sm_count, threads_per_sm = inputs
    grid = cuda_philox.grid_for(numel, sm_count, threads_per_sm)
    if name in PERMUTATIONS:
        if numel < 2:
            return None  # (randperm of 0 or 1 element: nothing measured)
        value = cuda_philox.permutation(seed, offset, numel, sm_count, threads_per_sm)
        return torch.from_numpy(value).to(target.dtype)
    if integer:
        bounds = integer_bounds(name, args, kwargs)
        if bounds is None or bounds[1] is None or target.dtype in (torch.bool, torch.float64):
            return None
        low, high = bounds[0] or 0, bounds[1]
        span = high - low
        if span <= 0:
            return None
        draw = cuda_philox.words(seed, offset, numel, 2 if span >= WIDE_RANGE else 4, grid)
        value = torch.from_numpy(cuda_philox.integers(draw, low, span).copy())
    else:
        if target.dtype not in (torch.float32, torch.float16, torch.bfloat16):
            return None
        low, high = _uniform_bounds(name, args, kwargs)
        # ATen casts the bounds to the tensor's dtype, and `to - from` is taken there too
        lo, hi = (torch.tensor(v, dtype=target.dtype).item() for v in (low, high))
        span = torch.tensor(hi - lo, dtype=target.dtype).item()
        rand = cuda_philox.uniform01(cuda_philox.words(seed, offset, numel, 4, grid))
        # `rand * range + from` in float32, one rounding (nvcc contracts it to an fma)
        value = (rand.astype(np.float64) * np.float32(span) + np.float32(lo)).astype(np.float32)
        cast = torch.from_numpy(value).to(target.dtype)
        value = torch.where(
            cast == torch.tensor(hi, dtype=target.dtype), torch.tensor(lo, dtype=target.dtype), cast
        )
        return value.reshape(tuple(target.shape))
    return value.to(target.dtype).reshape(tuple(target.shape))
