"""Import helpers and stand-ins for fresh corpus 19's drivers (kx's code, no upstream code).

The import helpers and `small()` / `pick()` / `rel_err()` are the earlier corpora's (re-exported
through `_corpus18_support`, one copy). Each stand-in here is used whether or not the real package
is installed, so a driver runs the same on any machine (the GPU machine has torch, triton and
numpy only). Upstream sources are found on sys.path (the manifest's "pythonpath" puts the
`.realfiles/...` folders there). `small()` is true under KX_CORPUS_SMALL=1 (toy sizes for a CPU
check); by default the drivers run their real sizes.
"""

from __future__ import annotations

import numpy as np
from _corpus18_support import ToyPendulum, bare_package, pick, rel_err, small, stub_module, unavailable  # noqa: F401


def install_gym_standin() -> None:
    """minimalRL's scripts do `import gym` at the top for main()'s gym.make; the drivers run
    their own loop on a numpy environment, so gym.make is a stand-in that raises if called."""
    stub_module("gym", make=unavailable("gym.make"))


class ToyPendulumV1(ToyPendulum):
    """Corpus 18's numpy pendulum (Gym's Pendulum-v1 dynamics) with the gym >= 0.26 step /
    reset signatures minimalRL's scripts use: reset() -> (obs, info), step(a) -> (obs, r, done,
    truncated, info). Episodes end by truncation at 200 steps (done stays False)."""

    def reset(self):
        return super().reset(), {}

    def step(self, u):
        obs, r, trunc = super().step(np.asarray(u, dtype=np.float64))
        return obs, r, False, trunc, {}


def causal_block_mask(n_blocks: int, block: int, device) -> "torch.Tensor":  # noqa: F821
    """Element-level (n_blocks * block)^2 boolean mask of the lower-triangular block pattern
    (True = the block takes part): the dense reference for a block-causal sparsity layout."""
    import torch

    lay = torch.tril(torch.ones(n_blocks, n_blocks, dtype=torch.bool, device=device))
    return lay.repeat_interleave(block, 0).repeat_interleave(block, 1)
