"""Import helpers and stand-ins for fresh corpus 8's drivers (kx's own code, no upstream code).

The import helpers are corpus 7's (`_corpus7_support`: the same code, one copy); the
fbgemm stand-ins are this corpus's own. Every stand-in here is used whether or
not the real package is installed, so a driver runs the same on any machine: no download, no
hub, no installed-version drift. Upstream sources are found on sys.path (the manifest's
"pythonpath" puts the `.realfiles/...` folders there).

`small()` is true when KX_CORPUS_SMALL=1 is set: the drivers then shrink their shapes (a switch
for checking a driver on a CPU with Triton's interpreter); by default they run their real sizes.
"""

from __future__ import annotations

import sys

from _corpus7_support import _unavailable as unavailable
from _corpus7_support import (
    bare_package,
    find_on_path,
    passthrough_module,
    pick,
    quiet_warnings,
    small,
    stub_module,
)


def install_fbgemm_jagged_standins() -> None:
    """Stand-ins (kx's code) for the three fbgemm_gpu operators generative-recommenders' code calls
    outside its Triton kernels: torch.ops.fbgemm.asynchronous_complete_cumsum (offsets from
    lengths, with the leading 0), jagged_to_padded_dense and dense_to_jagged. Registered once with
    torch.library as CompositeImplicitAutograd, so autograd runs through their torch bodies."""
    import torch

    if hasattr(sys.modules[__name__], "_FBGEMM_LIB"):
        return
    lib = torch.library.Library("fbgemm", "FRAGMENT")
    globals()["_FBGEMM_LIB"] = lib
    lib.define("asynchronous_complete_cumsum(Tensor t_in) -> Tensor")
    lib.define(
        "jagged_to_padded_dense(Tensor values, Tensor[] offsets, SymInt[] max_lengths, float padding_value=0.0) -> Tensor"
    )
    lib.define(
        "dense_to_jagged(Tensor dense, Tensor[] x_offsets, SymInt? total_L=None) -> (Tensor, Tensor[])"
    )

    def complete_cumsum(t_in):
        return torch.cat([t_in.new_zeros(1), torch.cumsum(t_in, 0).to(t_in.dtype)])

    def _positions(offsets, max_len):
        lengths = offsets[1:] - offsets[:-1]
        pos = torch.arange(max_len, device=offsets.device)
        valid = pos[None, :] < lengths[:, None]
        index = (offsets[:-1, None] + pos[None, :]).clamp(max=max(int(offsets[-1]) - 1, 0))
        return index, valid

    def jagged_to_padded_dense(values, offsets, max_lengths, padding_value=0.0):
        index, valid = _positions(offsets[0], max_lengths[0])
        dense = values[index.reshape(-1)].reshape(*index.shape, *values.shape[1:])
        mask = valid.reshape(*valid.shape, *([1] * (values.dim() - 1)))
        return torch.where(mask, dense, torch.full_like(dense, padding_value))

    def dense_to_jagged(dense, x_offsets, total_L=None):
        offsets = x_offsets[0]
        _, valid = _positions(offsets, dense.shape[1])
        return dense[valid], [offsets]

    lib.impl("asynchronous_complete_cumsum", complete_cumsum, "CompositeImplicitAutograd")
    lib.impl("jagged_to_padded_dense", jagged_to_padded_dense, "CompositeImplicitAutograd")
    lib.impl("dense_to_jagged", dense_to_jagged, "CompositeImplicitAutograd")


__all__ = [
    "bare_package",
    "install_fbgemm_jagged_standins",
    "find_on_path",
    "passthrough_module",
    "pick",
    "quiet_warnings",
    "small",
    "stub_module",
    "unavailable",
]
